import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's vendored `data/` folder (licence-compatible files only; see data/ATTRIBUTION.md). */
export function bundledDataDir(): string {
  // src/catalog or dist/catalog → package root
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, 'data', 'ATTRIBUTION.md'))) return join(dir, 'data');
    dir = dirname(dir);
  }
  return resolve('data');
}

/**
 * Where benchmark files are looked up: an explicit `--data` dir, else `$APIARY_DATA`, else the
 * bundled folder. Every dir uses the same layout as the official releases (`sgd/train/schema.json`…).
 */
export function resolveDataDir(explicit?: string): string {
  return explicit || process.env.APIARY_DATA || bundledDataDir();
}

/** First existing path of `rel` under the given dir, then the bundled dir. */
export function findDataFile(rel: string, dataDir?: string): string | undefined {
  const dirs = [...new Set([resolveDataDir(dataDir), bundledDataDir()])];
  for (const dir of dirs) {
    const p = join(dir, rel);
    if (existsSync(p)) return p;
  }
  return undefined;
}
