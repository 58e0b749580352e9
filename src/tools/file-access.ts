import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { ApiaryError } from '../shared/index.js';

/**
 * Which files a tool may read when its file arguments come from a model or an MCP client: a list
 * of granted paths, each a folder (everything under it) or a single file, as real paths (symlinks
 * resolved). A tool call never reads a file outside them; the refusal is the same sentence whether
 * the file exists or not, so a caller cannot probe the disk through it.
 */
export type ReadablePaths = readonly string[];

/** The real path of `path`, or its absolute form when it does not exist (a grant may name a folder made later). */
function realOrResolved(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** Grants for these folders or files (real paths, duplicates dropped), e.g. `[outputDir, ...allowDirs]`. */
export function readablePaths(paths: Iterable<string>): ReadablePaths {
  return [...new Set([...paths].map(realOrResolved))];
}

function isUnder(path: string, grants: ReadablePaths): boolean {
  return grants.some((grant) => path === grant || path.startsWith(grant.endsWith(sep) ? grant : grant + sep));
}

/**
 * The real path of the nearest part of `abs` that exists, with the missing rest appended; or
 * undefined when the last part exists but does not resolve (a dangling symlink: its target is
 * unknown, so it counts as outside).
 */
function realOfMissing(abs: string): string | undefined {
  try {
    lstatSync(abs);
    return undefined;
  } catch {}
  let head = abs;
  const rest: string[] = [];
  for (;;) {
    const parent = dirname(head);
    rest.unshift(basename(head));
    if (parent === head) return abs;
    head = parent;
    try {
      return join(realpathSync(head), ...rest);
    } catch {}
  }
}

/**
 * The path to read for a file a tool argument names, if `grants` allow it: its real path, or, when
 * nothing is there, its absolute path inside a grant (the caller says "not found" in its words).
 * Everything not inside a grant (after symlinks and `..` are resolved) gets one refusal,
 * PERMISSION_DENIED `<tool>: <arg> "<path>" is outside the folders this tool may read (…)`,
 * whether it exists, is a folder or cannot be accessed: the answer tells nothing about the disk.
 */
export function grantedPath(tool: string, arg: string, path: string, grants: ReadablePaths): string {
  const abs = resolve(path);
  let real: string | undefined;
  try {
    real = realpathSync(abs);
  } catch {
    real = realOfMissing(abs);
  }
  if (real === undefined || !isUnder(real, grants))
    throw new ApiaryError(
      'PERMISSION_DENIED',
      `${tool}: ${arg} "${path}" is outside the folders this tool may read (grant more with --allow-dir)`,
    );
  return real;
}
