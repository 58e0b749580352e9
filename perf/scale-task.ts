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
  appBenchPlanner,
  appBenchTask,
  loadAppBenchDataset,
  summarizeAppBench,
} from '../src/benchmarks/appbench/index.js';
import { registerBuiltinPlugins } from '../src/benchmarks/builtin.js';
import { loadCatalog } from '../src/catalog/index.js';
import {
  createSolver,
  defaultTaskRegistry,
  defineSolver,
  solverNamed,
  type TaskLoadContext,
} from '../src/tasks/index.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

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

const SCALE_SOLVERS = {
  flat: defineSolver({
    name: 'flat',
    description: 'flat agent',
    args: z.object({}),
    needsModel: true,
    create: (_args, ctx: TaskLoadContext) => {
      const agent = flatAgent({ model: ctx.model, settings: ctx.sampling, maxRetries: 0, ...ctx.modelCalls });
      return appBenchPlanner(() => agent, { catalog });
    },
  }),
  noop: defineSolver({
    name: 'noop',
    description: 'answers nothing',
    args: z.object({}),
    needsModel: false,
    create: () => appBenchPlanner(() => noopAgent, { catalog }),
  }),
};

if (!defaultTaskRegistry.has(SCALE_TASK))
  defaultTaskRegistry.register({
    name: SCALE_TASK,
    description: 'AppBench-mini replicated (perf scripts)',
    version: '1',
    options: z.object({ samples: z.number().int().min(1).default(10_240) }),
    solvers: SCALE_SOLVERS,
    defaultSolver: 'flat',
    sampling: APPBENCH_SAMPLING,
    async load(ctx) {
      const samples = replicate(Number(ctx.options.samples));
      const solver = createSolver(solverNamed(SCALE_TASK, SCALE_SOLVERS, ctx.solver), ctx.solverOptions, ctx);
      return {
        task: appBenchTask({ samples, catalog, solver }),
        dataSource: { path: 'bench', sha256: 'bench' },
      };
    },
    summarize: summarizeAppBench,
    metrics: () => ({}),
  });
