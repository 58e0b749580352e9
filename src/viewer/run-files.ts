import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

export type RunFileLookup = { ok: true; path: string } | { ok: false; reason: 'outside' | 'missing' };

/**
 * Where a path a trace names (relative to the run folder, or absolute) really is, if it is a file
 * inside the run folder. Links are followed before the check, so neither `..` nor a symbolic link
 * reaches outside.
 */
export function resolveRunFile(folder: string, requested: string): RunFileLookup {
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
