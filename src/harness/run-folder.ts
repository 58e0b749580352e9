import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where runs go when `--out` is not given (relative to the working directory). */
export const DEFAULT_RUNS_DIR = join('.apiary', 'runs');

const slug = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');

/** `appbench-flat-gpt-4o-mini`: the part of a default run folder name that names the settings. */
export function runFolderPrefix(task: string, solver: string, model: string | null): string {
  return slug(`${task}-${solver}-${model ?? 'nomodel'}`);
}

/** `20260102T030405Z` (UTC, second resolution; sorts as text). */
export function runTimestamp(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

const STAMP = /^(\d{8}T\d{6}Z)(?:-(\d+))?$/;

/**
 * Creates a new run folder `<root>/<prefix>-<timestamp>` (with `-2`, `-3`… when a run started
 * in the same second already took the name), so two runs never share a folder by default.
 */
export function createRunFolder(root: string, prefix: string, now: Date): string {
  mkdirSync(root, { recursive: true });
  const base = `${prefix}-${runTimestamp(now)}`;
  for (let n = 1; ; n++) {
    const dir = join(root, n === 1 ? base : `${base}-${n}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** The most recent `<prefix>-<timestamp>` folder under `root` holding a results file, if any. */
export function latestRunFolder(root: string, prefix: string): string | undefined {
  if (!existsSync(root)) return undefined;
  const found: Array<{ name: string; stamp: string; n: number }> = [];
  for (const name of readdirSync(root)) {
    if (!name.startsWith(`${prefix}-`)) continue;
    const m = STAMP.exec(name.slice(prefix.length + 1));
    if (m && existsSync(join(root, name, 'results.jsonl')))
      found.push({ name, stamp: m[1]!, n: Number(m[2] ?? 1) });
  }
  found.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.n - b.n));
  const last = found.at(-1);
  return last ? join(root, last.name) : undefined;
}
