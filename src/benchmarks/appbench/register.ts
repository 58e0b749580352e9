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
import type { Catalog } from '../../catalog/index.js';
import type { AgentDemo } from '../../retrieval/index.js';
import { sha256OfFiles } from '../../shared/index.js';
import type { TaskDefinition, TaskLoadContext } from '../../tasks/index.js';
import { chain, createSolver, defineSolver, type SolverDefinition, solverNamed } from '../../tasks/index.js';
import { openSgdDatabase } from './apps/sgd-database.js';
import { appBenchCatalogSource } from './catalog.js';
import { resolveAppBenchData } from './data-folder.js';
import { appSelectionConstraint, planLineConstraint } from './plan-line-grammar.js';
import { APPBENCH_CATEGORIES } from './record.js';
import { AppBenchOutputSchema, AppBenchScoreSchema } from './record-schemas.js';
import { formatAppBenchReport } from './report-format.js';
import type { AppBenchSample } from './sample.js';
import { APPBENCH_SAMPLING } from './sampling.js';
import { type AppBenchReport, type AppBenchSampleScore, summarizeAppBench } from './score-appbench.js';
import {
  APPBENCH_TASK_VERSION,
  type AppBenchOutput,
  type AppBenchSolverFn,
  appBenchDemos,
  appBenchGoldReply,
  appBenchPlanner,
  appBenchTask,
  loadAppBenchDataset,
  seededDemoPicker,
} from './task.js';
import { type AppBenchWorld, appBenchWorld } from './tool-loop.js';

/** What AppBench's solvers are built from: the run's settings, the demo pool and the catalog. */
interface AppBenchSolverEnv {
  ctx: TaskLoadContext;
  pool: readonly AppBenchSample[];
  catalog: Catalog;
  /**
   * The simulated apps a solver that executes acts on (opened on first call, one per run); the
   * scorer then compares the sample's effects with the gold plan's effects on the same apps.
   */
  world(db: string | null): AppBenchWorld;
}

/** A fraction as a percentage (the unit of every AppBench table). */
const pct = (x: number) => x * 100;

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
type DemoArgs = z.output<ReturnType<typeof LlmSolverOptionsShape>>;

/** Flat and hierarchical prompting: the demos, and whether the plan is generated under the plan-line grammar. */
const PlanSolverOptions = LlmSolverOptionsShape().extend({
  constrain: z
    .boolean()
    .optional()
    .describe(
      'generate the plan under the plan-line grammar where the model supports it (local GGUF models); default on',
    ),
});
type PlanSolverArgs = z.output<typeof PlanSolverOptions>;

const ToolLoopOptions = LlmSolverOptionsShape().extend({
  maxSteps: z.number().int().min(1).default(10).describe('model turns per instruction at most'),
  db: z
    .string()
    .nullable()
    .default(null)
    .describe('simulated-app database (default: built by `apiary apps build-db`, else the bundled subset)'),
});

/** The k-shot demos step (absent with 0 shots): seeded random, or sharing a likely App as the paper does. */
function demosStep({ shots, demos }: DemoArgs, env: AppBenchSolverEnv): AppBenchSolverFn[] {
  if (shots <= 0) return [];
  const { pool, catalog, ctx } = env;
  return [
    appBenchDemos(
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
    ),
  ];
}

/** What the LLM agents share: model, sampling, call limits and the demos an earlier step chose. */
function llmOptions(ctx: TaskLoadContext, demos: readonly AgentDemo[] | undefined): LlmAgentOptions {
  return {
    ...(ctx.model ? { model: ctx.model } : {}),
    settings: ctx.sampling,
    ...ctx.modelCalls,
    ...(demos ? { demos: async () => [...demos] } : {}),
  };
}

/** An LLM solver: the demos step, then the agent `make` builds plans (under the plan-line grammar unless `constrain: false`). */
function llmSolver(
  args: DemoArgs & { constrain?: boolean },
  env: AppBenchSolverEnv,
  make: (opts: LlmAgentOptions) => PlanningAgent,
): AppBenchSolverFn {
  const constrained = args.constrain !== false;
  const plan = appBenchPlanner(
    (demos) =>
      make({
        ...llmOptions(env.ctx, demos),
        ...(constrained ? { planConstraint: planLineConstraint, appSelectionConstraint } : {}),
      }),
    { catalog: env.catalog },
  );
  return chain(...demosStep(args, env), plan);
}

/** AppBench's solvers. Adding one is one entry here. */
export const APPBENCH_SOLVERS = {
  flat: defineSolver({
    name: 'flat',
    description: 'one prompt listing every App and API; the model writes the plan lines',
    args: PlanSolverOptions,
    needsModel: true,
    create: (args: PlanSolverArgs, env: AppBenchSolverEnv) => llmSolver(args, env, flatAgent),
  }),
  hierarchical: defineSolver({
    name: 'hierarchical',
    description: 'two prompts: pick the Apps, then plan with their APIs only',
    args: PlanSolverOptions,
    needsModel: true,
    create: (args: PlanSolverArgs, env: AppBenchSolverEnv) => llmSolver(args, env, hierarchicalAgent),
  }),
  baseline: defineSolver({
    name: 'baseline',
    description: 'no LLM: BM25 API selection, rule-based slot filling, output→input linking',
    args: z.object({}),
    needsModel: false,
    create: (_args, env: AppBenchSolverEnv) => {
      const agent = baselineAgent();
      return appBenchPlanner(() => agent, { catalog: env.catalog });
    },
  }),
  'tool-loop': defineSolver({
    name: 'tool-loop',
    description:
      'plans and executes: the model calls the APIs natively on the simulated apps (approved automatically), adds the state score',
    args: ToolLoopOptions,
    needsModel: true,
    create: ({ maxSteps, db, ...demoArgs }, env: AppBenchSolverEnv) => {
      const world = env.world(db);
      return llmSolver(demoArgs, env, (opts) =>
        toolLoopAgent({ ...opts, toolset: world.toolset, budget: { maxSteps } }),
      );
    },
  }),
} satisfies Record<string, SolverDefinition<never, AppBenchSolverEnv, AppBenchSample, AppBenchOutput>>;

const AppBenchOptionsSchema = z.object({
  categories: z
    .array(z.enum(APPBENCH_CATEGORIES))
    .min(1)
    .nullable()
    .default(null)
    .describe('subset of ss, sm, ms, mm; null: every category file present'),
});

export const appBenchDefinition: TaskDefinition<AppBenchReport, AppBenchSampleScore, AppBenchOutput> = {
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
    const catalog = appBenchCatalogSource.load({});
    let world: AppBenchWorld | undefined;
    const solver = createSolver(solverNamed('appbench', APPBENCH_SOLVERS, ctx.solver), ctx.solverOptions, {
      ctx,
      pool: dataset.samples,
      catalog,
      world: (db) => (world ??= appBenchWorld({ catalog, db: openSgdDatabase(db ?? undefined).db })),
    });
    const goldState = world?.goldState;
    const files = dataset.categories.map((c) => join(data.dir, `${dataset.prefix}_${c}.json`));
    return {
      task: appBenchTask({ samples: dataset.samples, catalog, solver, ...(goldState ? { goldState } : {}) }),
      dataSource: { path: data.dir, sha256: sha256OfFiles(files) },
      notes: [
        `data: ${data.dir} (${data.origin}; ${dataset.prefix}_*.json, ${dataset.samples.length} samples in ${dataset.categories.join(', ')})`,
      ],
    };
  },
  summarize: (scores) => summarizeAppBench(scores),
  formatReport: (report) => formatAppBenchReport(report),
  // In % like every AppBench table (the scorers give fractions); the official ones only when the
  // official scorer kept a sample (with none its zero guards would read 0 or 100).
  metrics: (r) => ({
    ...(r.scoredOfficial
      ? {
          'official.appF1': pct(r.official.appF1),
          'official.argF1': pct(r.official.argF1),
          'official.success': pct(r.official.success),
        }
      : {}),
    'corrected.appF1': pct(r.corrected.appF1),
    'corrected.argF1': pct(r.corrected.argF1),
    'corrected.success': pct(r.corrected.success),
  }),
  // A sample passes when its plan is fully right in corrected mode (a failed generation fails).
  passed: (score) => score.corrected.success === 1,
  outputSchema: AppBenchOutputSchema,
  scoreSchema: AppBenchScoreSchema,
};
