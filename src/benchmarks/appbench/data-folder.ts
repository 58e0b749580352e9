import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { bundledDataDir } from '../../catalog/index.js';
import { ApiaryError } from '../../shared/index.js';
import { findAppBenchData } from './pull-appbench.js';

/** The bundled hand-written sample set (examples/appbench-mini), so a fresh clone can run. */
function bundledAppBenchMini(): string | undefined {
  const dir = join(dirname(bundledDataDir()), 'examples', 'appbench-mini');
  return existsSync(dir) ? dir : undefined;
}

/** --data, else the data `apiary data pull appbench` stored, else the bundled appbench-mini. */
export function resolveAppBenchData(explicit: string | undefined): { dir: string; origin: string } {
  if (explicit) return { dir: resolve(explicit), origin: 'given with --data' };
  const pulled = findAppBenchData();
  if (pulled) return { dir: pulled, origin: 'pulled official data' };
  const mini = bundledAppBenchMini();
  if (mini)
    return {
      dir: mini,
      origin: 'bundled examples/appbench-mini (8 hand-written records; pass --data for the real set)',
    };
  throw new ApiaryError(
    'NOT_FOUND',
    'no AppBench data: pass --data DIR (a folder with test_*.json or dev_*.json)',
  );
}
