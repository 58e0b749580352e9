/**
 * `appbench-scale`: the AppBench-mini records replicated to `samples` distinct samples, solved by
 * the flat agent (or the no-op solver) — registered on import so that worker threads rebuild it
 * from a recipe (`setupModules: [<this file>]`) exactly as the main thread builds it.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import { flatAgent } from '../src/agents/index.js';
import {
  APPBENCH_SAMPLING,
  type AppBenchSample,
  appBenchTask,
  loadAppBenchDataset,
  summarizeAppBench,
} from '../src/benchmarks/appbench/index.js';
import { loadCatalog } from '../src/catalog/index.js';
import { defaultTaskRegistry } from '../src/tasks/index.js';

const catalog = loadCatalog('appbench');
const mini = loadAppBenchDataset(resolve(import.meta.dirname, '../examples/appbench-mini')).samples;

/** The 8 hand-written records repeated to n samples with distinct ids. */
export function replicate(n: number): AppBenchSample[] {
  return Array.from({ length: n }, (_, i) => {
    const base = mini[i % mini.length]!;
    return { ...base, id: `${base.category}-${i}`, index: i };
  });
}

const noopAgent = {
  name: 'noop',
  plan: async () => ({ reply: '', usage: { inputTokens: 0, outputTokens: 0 }, modelCalls: 0 }),
};

export const SCALE_TASK = 'appbench-scale';

if (!defaultTaskRegistry.has(SCALE_TASK))
  defaultTaskRegistry.register({
    name: SCALE_TASK,
    description: 'AppBench-mini replicated (perf scripts)',
    version: '1',
    options: z.object({ samples: z.number().int().min(1).default(10_240) }),
    solvers: {
      flat: { description: 'flat agent', options: z.object({}), needsModel: true },
      noop: { description: 'answers nothing', options: z.object({}), needsModel: false },
    },
    defaultSolver: 'flat',
    sampling: APPBENCH_SAMPLING,
    async load(ctx) {
      const samples = replicate(Number(ctx.options.samples));
      const agent =
        ctx.solver === 'noop'
          ? noopAgent
          : flatAgent({ model: ctx.model, settings: ctx.sampling, maxRetries: 0, ...ctx.modelCalls });
      return {
        task: appBenchTask({ samples, catalog, agent }),
        dataSource: { path: 'bench', sha256: 'bench' },
      };
    },
    summarize: summarizeAppBench,
    metrics: () => ({}),
  });
