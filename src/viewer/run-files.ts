import { realpathSync, statSync } from 'node:fs';
import { extname, isAbsolute, relative, resolve, sep } from 'node:path';

type RunFileLookup = { ok: true; path: string } | { ok: false; reason: 'outside' | 'missing' };

/**
 * Where a path a trace names (relative to the run folder, or absolute) really is, if it is a file
 * inside the run folder. Links are followed before the check, so neither `..` nor a symbolic link
 * reaches outside.
 */
function resolveRunFile(folder: string, requested: string): RunFileLookup {
  if (requested === '' || requested.includes('\0')) return { ok: false, reason: 'outside' };
  let root: string;
  let real: string;
  try {
    root = realpathSync(folder);
  } catch {
    return { ok: false, reason: 'missing' };
  }
  const target = isAbsolute(requested) ? requested : resolve(root, requested);
  try {
    real = realpathSync(target);
  } catch {
    // not there: still say "outside" for a path that names a place outside the folder
    return { ok: false, reason: inside(root, resolve(target)) ? 'missing' : 'outside' };
  }
  if (!inside(root, real)) return { ok: false, reason: 'outside' };
  if (!statSync(real).isFile()) return { ok: false, reason: 'missing' };
  return { ok: true, path: real };
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** Media types of the images the viewer shows; it serves no other kind of file. */
const IMAGE_MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.svg': 'image/svg+xml',
};

export type RunFileAccess =
  | { ok: true; path: string; mediaType: string }
  | { ok: false; status: 403 | 404; reason: string };

/**
 * Decides whether the viewer may send a file: only an image the run's records name (compared by
 * real path, so `a/../b.png` and an absolute spelling of a named file are the same file), inside
 * the run folder, reached through no hidden folder or file (`.ssh/`, `.aws/`, `.env.png`). Anything
 * else is refused, however it is spelled. `realOfNamed` caches the real path of each path the records name
 * (filled here as paths are first found).
 */
export function runFileAccess(
  folder: string,
  requested: string,
  namedFiles: ReadonlySet<string>,
  realOfNamed: Map<string, string>,
): RunFileAccess {
  const found = resolveRunFile(folder, requested);
  if (!found.ok)
    return found.reason === 'outside'
      ? { ok: false, status: 403, reason: 'refused: the viewer serves only files inside the run folder' }
      : { ok: false, status: 404, reason: 'not found' };
  const rel = relative(realpathSync(folder), found.path);
  const mediaType = IMAGE_MEDIA_TYPES[extname(found.path).toLowerCase()];
  if (rel.split(sep).some((part) => part.startsWith('.')) || !mediaType)
    return {
      ok: false,
      status: 403,
      reason: "refused: the viewer serves only the images the run's records name",
    };
  if (namedFiles.has(requested)) return { ok: true, path: found.path, mediaType }; // as the page asks
  for (const name of namedFiles) {
    let real = realOfNamed.get(name);
    if (real === undefined) {
      const r = resolveRunFile(folder, name);
      if (!r.ok) continue; // a file not written yet may come later: looked up again then
      real = r.path;
      realOfNamed.set(name, real);
    }
    if (real === found.path) return { ok: true, path: found.path, mediaType };
  }
  return {
    ok: false,
    status: 403,
    reason: "refused: the viewer serves only the images the run's records name",
  };
}
