import { join } from 'node:path';
import { z } from 'zod';
import {
  baselineAgent,
  flatAgent,
  hierarchicalAgent,
  type LlmAgentOptions,
  type PlanningAgent,
  sameAppDemos,
  toolLoopAgent,
} from '../../agents/index.js';
import { openSgdDatabase } from '../../apps/index.js';
import { type Catalog, loadCatalog } from '../../catalog/index.js';
import { NotFoundError, sha256OfFiles } from '../../shared/index.js';
import type { SolverDefinition, TaskDefinition, TaskLoadContext } from '../../tasks/index.js';
import { defaultTaskRegistry, type TaskRegistry } from '../../tasks/index.js';
import { resolveAppBenchData } from './data-folder.js';
import { APPBENCH_CATEGORIES } from './record.js';
import { formatAppBenchReport } from './report-format.js';
import type { AppBenchSample } from './sample.js';
import { APPBENCH_SAMPLING } from './sampling.js';
import { type AppBenchReport, type AppBenchSampleScore, summarizeAppBench } from './score-appbench.js';
import {
  APPBENCH_TASK_VERSION,
  appBenchGoldReply,
  appBenchTask,
  type GoldStateProvider,
  loadAppBenchDataset,
  seededDemoPicker,
} from './task.js';
import { appBenchWorld } from './tool-loop.js';

/**
 * A solver of AppBench: its definition plus how to build the planning agent for a run (and, for
 * solvers that execute, the gold state their effects are scored against).
 */
export interface AppBenchSolver extends SolverDefinition {
  build(
    ctx: TaskLoadContext,
    pool: readonly AppBenchSample[],
    catalog: Catalog,
  ): { agent: PlanningAgent; goldState?: GoldStateProvider };
}

const LlmSolverOptionsShape = () =>
  z.object({
    shots: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('k demonstrations per instruction, taken from the other samples (gold replies)'),
    demos: z
      .enum(['same-app', 'random'])
      .default('same-app')
      .describe('same-app (the paper: demos sharing a likely App) | random (seeded)'),
  });
const LlmSolverOptions = LlmSolverOptionsShape();

const ToolLoopOptions = LlmSolverOptionsShape().extend({
  maxSteps: z.number().int().min(1).default(10).describe('model turns per instruction at most'),
  db: z
    .string()
    .nullable()
    .default(null)
    .describe('simulated-app database (default: built by `apiary apps build-db`, else the bundled subset)'),
});

/** What the flat and hierarchical agents share: model, sampling, call limits and k-shot demos. */
function llmOptions(
  ctx: TaskLoadContext,
  pool: readonly AppBenchSample[],
  catalog: Catalog,
): LlmAgentOptions {
  const { shots, demos } = LlmSolverOptions.parse(
    Object.fromEntries(Object.entries(ctx.solverOptions).filter(([k]) => k === 'shots' || k === 'demos')),
  );
  return {
    ...(ctx.model ? { model: ctx.model } : {}),
    settings: ctx.sampling,
    ...ctx.modelCalls,
    ...(shots > 0
      ? {
          demos:
            demos === 'random'
              ? seededDemoPicker(pool, shots, ctx.seed)
              : sameAppDemos(
                  pool.map((s) => ({
                    id: s.id,
                    instruction: s.record.input,
                    reply: appBenchGoldReply(s.record),
                    apps: s.record.output.used_app,
                  })),
                  shots,
                  { catalog },
                ),
        }
      : {}),
  };
}

/** AppBench's solvers. Adding one is one entry here (name → definition and agent factory). */
export const APPBENCH_SOLVERS: Record<string, AppBenchSolver> = {
  flat: {
    description: 'one prompt listing every App and API; the model writes the plan lines',
    options: LlmSolverOptions,
    needsModel: true,
    build: (ctx, pool, catalog) => ({ agent: flatAgent(llmOptions(ctx, pool, catalog)) }),
  },
  hierarchical: {
    description: 'two prompts: pick the Apps, then plan with their APIs only',
    options: LlmSolverOptions,
    needsModel: true,
    build: (ctx, pool, catalog) => ({ agent: hierarchicalAgent(llmOptions(ctx, pool, catalog)) }),
  },
  baseline: {
    description: 'no LLM: BM25 API selection, rule-based slot filling, output→input linking',
    options: z.object({}),
    needsModel: false,
    build: () => ({ agent: baselineAgent() }),
  },
  'tool-loop': {
    description:
      'plans and executes: the model calls the APIs natively on the simulated apps (approved automatically), adds the state score',
    options: ToolLoopOptions,
    needsModel: true,
    build: (ctx, pool, catalog) => {
      const { maxSteps, db } = ToolLoopOptions.parse(ctx.solverOptions);
      const world = appBenchWorld({ catalog, db: openSgdDatabase(db ?? undefined).db });
      const agent = toolLoopAgent({
        ...llmOptions(ctx, pool, catalog),
        toolset: world.toolset,
        budget: { maxSteps },
      });
      return { agent, goldState: world.goldState };
    },
  },
};

const AppBenchOptionsSchema = z.object({
  categories: z
    .array(z.enum(APPBENCH_CATEGORIES))
    .min(1)
    .nullable()
    .default(null)
    .describe('subset of ss, sm, ms, mm; null: every category file present'),
});

export const appBenchDefinition: TaskDefinition<AppBenchReport, AppBenchSampleScore> = {
  name: 'appbench',
  description:
    'AppBench / MetaBench planning: one plan of App API calls per instruction, scored official + corrected',
  version: APPBENCH_TASK_VERSION,
  options: AppBenchOptionsSchema,
  solvers: APPBENCH_SOLVERS,
  defaultSolver: 'flat',
  noModelSolver: 'baseline',
  sampling: APPBENCH_SAMPLING,
  async load(ctx) {
    const { categories } = AppBenchOptionsSchema.parse(ctx.options);
    const data = resolveAppBenchData(ctx.dataDir);
    const dataset = loadAppBenchDataset(data.dir, {
      ...(categories ? { categories: [...new Set(categories)] } : {}),
      ...(ctx.limit !== undefined ? { limit: ctx.limit } : {}),
    });
    const catalog = loadCatalog('appbench');
    const solver = APPBENCH_SOLVERS[ctx.solver];
    if (!solver) throw new NotFoundError('appbench solver', ctx.solver, Object.keys(APPBENCH_SOLVERS));
    const { agent, goldState } = solver.build(ctx, dataset.samples, catalog);
    const files = dataset.categories.map((c) => join(data.dir, `${dataset.prefix}_${c}.json`));
    return {
      task: appBenchTask({ samples: dataset.samples, catalog, agent, ...(goldState ? { goldState } : {}) }),
      dataSource: { path: data.dir, sha256: sha256OfFiles(files) },
      notes: [
        `data: ${data.dir} (${data.origin}; ${dataset.prefix}_*.json, ${dataset.samples.length} samples in ${dataset.categories.join(', ')})`,
      ],
    };
  },
  summarize: (scores) => summarizeAppBench(scores),
  formatReport: (report) => formatAppBenchReport(report),
  metrics: (r) => ({
    'official.appF1': r.official.appF1,
    'official.argF1': r.official.argF1,
    'official.success': r.official.success,
    'corrected.appF1': r.corrected.appF1,
    'corrected.argF1': r.corrected.argF1,
    'corrected.success': r.corrected.success,
  }),
  // A sample passes when its plan is fully right in corrected mode (a failed generation fails).
  passed: (score) => score.corrected.success === 1,
};

export function registerAppBenchTask(registry: TaskRegistry = defaultTaskRegistry): void {
  registry.register(appBenchDefinition);
}
