import { type ExecFileSyncOptionsWithStringEncoding, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding apiary's own package.json (src/harness or dist/harness → package root). */
function packageRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        if ((JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'apiary') return dir;
      } catch {
        // not ours; keep looking
      }
    }
    dir = dirname(dir);
  }
  return undefined;
}

/** apiary's version from its package.json, `unknown` if it cannot be read. */
export function packageVersion(): string {
  const root = packageRoot();
  if (!root) return 'unknown';
  try {
    return (
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ??
      'unknown'
    );
  } catch {
    return 'unknown';
  }
}

/** The git commit of apiary's checkout (with `+dirty` when it has local changes), or null. */
export function gitRevision(): string | null {
  const root = packageRoot();
  if (!root || !existsSync(join(root, '.git'))) return null;
  try {
    const opts: ExecFileSyncOptionsWithStringEncoding = {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    };
    const rev = execFileSync('git', ['rev-parse', 'HEAD'], opts).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], opts).trim() !== '';
    return dirty ? `${rev}+dirty` : rev;
  } catch {
    return null;
  }
}
