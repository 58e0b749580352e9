import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { APPBENCH_SAMPLING } from '../../benchmarks/appbench/index.js';
import type { TaskRecipe } from '../sample-runner.js';

/** The AppBench mini example every queue test distributes. */
export const MINI = resolve(import.meta.dirname, '../../../examples/appbench-mini');
/** A module model that answers the mini scenario after `latencyMs`. */
export const slowModel = pathToFileURL(resolve(import.meta.dirname, 'slow-scenario-model.ts')).href;

/** The built-in plugins as a plugin module (the in-process queue worker knows appbench through it). */
export const BUILTIN = pathToFileURL(resolve(import.meta.dirname, '../../benchmarks/builtin.ts')).href;

/** The flat AppBench recipe of the mini example with `model`. */
export const recipe = (model: TaskRecipe['model']): TaskRecipe => ({
  task: 'appbench',
  taskOptions: { categories: null },
  solver: 'flat',
  solverOptions: { shots: 0, demos: 'same-app' },
  model,
  sampling: APPBENCH_SAMPLING,
  dataDir: MINI,
  seed: 0,
  modelCalls: { maxRetries: 0 },
  plugins: [BUILTIN],
});

export const moduleModel = (latencyMs: number): TaskRecipe['model'] => ({
  kind: 'module',
  module: slowModel,
  options: { latencyMs },
});
