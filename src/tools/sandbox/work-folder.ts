import { spawnSync } from 'node:child_process';
import type { Dirent } from 'node:fs';
import { createWriteStream, existsSync, lstatSync } from 'node:fs';
import { chmod, constants, mkdir, open, readdir, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ApiaryError } from '../../shared/index.js';
import { SANDBOX_PRIVATE_DIRS } from './bwrap-args.js';

/** The program's file in the work folder (`/sandbox/main.py` inside). */
export const ENTRY_FILE = 'main.py';
/** At most this many written files are listed (and copied) per run. */
export const MAX_LISTED_FILES = 64;

export interface SandboxFile {
  /** Path relative to the work folder, `/`-separated. */
  name: string;
  bytes: number;
  /** Where the copy is on the host (only with `collectInto`). */
  path?: string;
  /** The file's bytes (only for names in the request's `read`). */
  data?: Buffer;
}

/** An input file name as a path inside the work folder; absolute or escaping names are refused. */
export function safeRelativeName(name: string): string {
  const normal = normalize(name);
  if (isAbsolute(normal) || normal === '..' || normal.startsWith(`..${sep}`) || normal === '.')
    throw new ApiaryError(
      'TOOL_FAILED',
      `sandbox input file "${name}" must be a relative path inside the work folder`,
    );
  if (normal === ENTRY_FILE || SANDBOX_PRIVATE_DIRS.includes(normal.split(sep)[0]!))
    throw new ApiaryError(
      'TOOL_FAILED',
      `sandbox input file "${name}" would replace the sandbox's own files`,
    );
  return normal;
}

/** Regular files under the work folder, except the sandbox's own folders and the given inputs. */
export async function listWrittenFiles(workDir: string, inputs: Set<string>): Promise<SandboxFile[]> {
  const found: SandboxFile[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // a folder the code made unreadable
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (found.length >= MAX_LISTED_FILES) return;
      const name = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (!prefix && SANDBOX_PRIVATE_DIRS.includes(entry.name)) continue;
      if (entry.isDirectory()) await walk(join(dir, entry.name), name);
      else if (entry.isFile() && !inputs.has(name))
        found.push({ name, bytes: lstatSync(join(dir, entry.name)).size });
    }
  };
  await walk(workDir, '');
  return found;
}

/**
 * Copies written files out of the work folder. Opened with O_NOFOLLOW: a file the code swapped
 * for a symlink is not followed (the sandbox is dead by now, so nothing changes under us).
 */
export async function collectFiles(workDir: string, files: SandboxFile[], into: string): Promise<void> {
  await mkdir(into, { recursive: true });
  for (const file of files) {
    const target = join(into, file.name);
    await mkdir(dirname(target), { recursive: true });
    const handle = await open(join(workDir, file.name), constants.O_RDONLY | constants.O_NOFOLLOW);
    await pipeline(handle.createReadStream(), createWriteStream(target)); // closes the handle
    file.path = target;
  }
}

export async function readNoFollow(path: string): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Folders below this depth are left to `rm` (see removeTree), not walked by chmodTree. */
const MAX_CHMOD_DEPTH = 64;

/**
 * Removes a work folder, however deep and whatever the code did to it. Node's rm works with full
 * paths and fails on a chain of folders longer than PATH_MAX (or one the code made unwritable);
 * then the folders are made writable again and coreutils' `rm -rf`, which descends with
 * directory fds (no path length limit), removes the rest. Throws (TOOL_FAILED) if the folder is
 * still there after that.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
    return;
  } catch {
    await chmodTree(dir, 0);
  }
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  if (existsSync(dir)) spawnSync('rm', ['-rf', '--one-file-system', '--', dir], { env: {}, timeout: 60_000 });
  if (existsSync(dir))
    throw new ApiaryError('TOOL_FAILED', `the sandbox work folder ${dir} could not be removed`);
}

async function chmodTree(dir: string, depth: number): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  if (depth >= MAX_CHMOD_DEPTH) return;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) if (entry.isDirectory()) await chmodTree(join(dir, entry.name), depth + 1);
}
