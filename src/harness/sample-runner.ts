import type { LanguageModel } from 'ai';
import { z } from 'zod';
import {
  createResponseCache,
  isConnectionFailure,
  isInfrastructureFailure,
  type ResponseCache,
  resolveModelSetup,
  type SamplingSettings,
} from '../models/index.js';
import { ApiaryError } from '../shared/index.js';
import {
  type AnyTask,
  defaultTaskRegistry,
  type Outcome,
  registerBuiltinTasks,
  type SolveContext,
  type Solved,
  type TaskRegistry,
  type TaskSample,
  type TaskToolSettings,
  type TaskUsage,
} from '../tasks/index.js';

/**
 * How a thread (or, later, a process on another machine) that holds no live objects rebuilds the
 * model of a run. `endpoint`: an OpenAI-compatible server, as `apiary eval` resolves one. `module`:
 * a module whose export (default `createModel`) is called with `options` and returns the model —
 * for scripted test and benchmark models, which are closures and cannot cross a thread.
 */
const ModelRecipeSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('endpoint'),
    baseURL: z.string().min(1),
    modelId: z.string().min(1),
    /** The key itself: passed between threads of one process, never written to disk. */
    apiKey: z.string().optional(),
    /** Response cache folder (`--cache`), when the run uses one. */
    cacheDir: z.string().optional(),
  }),
  z.object({
    kind: z.literal('module'),
    /** A file URL or path of an ES module (a `.ts` one loads through tsx, as in tests and perf scripts). */
    module: z.string().min(1),
    export: z.string().optional(),
    options: z.unknown().optional(),
  }),
]);
type ModelRecipe = z.infer<typeof ModelRecipeSchema>;

/**
 * Everything needed to rebuild a registered task in another thread: the task and solver by name
 * with their validated options, the model recipe and sampling, the data folder and seed — the
 * serialisable counterpart of `TaskLoadContext`.
 */
export const TaskRecipeSchema = z.object({
  task: z.string().min(1),
  taskOptions: z.record(z.string(), z.unknown()),
  solver: z.string().min(1),
  solverOptions: z.record(z.string(), z.unknown()),
  model: ModelRecipeSchema.nullable(),
  sampling: z.object({
    temperature: z.number().optional(),
    topP: z.number().nullable().optional(),
    maxOutputTokens: z.number().optional(),
    stopSequences: z.array(z.string()).optional(),
    seed: z.number().optional(),
  }),
  dataDir: z.string().optional(),
  seed: z.number().int(),
  limit: z.number().int().min(0).optional(),
  modelCalls: z
    .object({
      timeoutMs: z.number().optional(),
      maxRetries: z.number().optional(),
      baseDelayMs: z.number().optional(),
    })
    .optional(),
  /** Modules imported before the task is looked up (each registers tasks on the default registry). */
  setupModules: z.array(z.string()).optional(),
  /** The run folder (tasks keep artefacts there) and the tools' settings (GTA), as `TaskLoadContext`. */
  runDir: z.string().optional(),
  /** Plain JSON (flags, endpoints, a recording folder): it crosses threads as it is. */
  tools: z
    .custom<TaskToolSettings>((v) => v === undefined || (typeof v === 'object' && v !== null))
    .optional(),
});
export type TaskRecipe = z.infer<typeof TaskRecipeSchema>;

/** What solving and scoring one sample gave, in a form that crosses threads (no error objects). */
export interface SampleRun<O = unknown, Sc = unknown> {
  output: O | null;
  /** `CODE: message` of what stopped the solver or the scorer, else null. */
  error: string | null;
  usage: TaskUsage | null;
  modelCalls: number;
  score: Sc;
  /** The model endpoint failed (counted apart from wrong answers). */
  infrastructureFailure: boolean;
  /** The endpoint could not be reached at all (counts toward the consecutive-failure stop). */
  connectionFailure: boolean;
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiaryError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * Solves one sample and scores the outcome: a solver that throws gives a recorded error (scored as
 * such), a scorer that throws is scored again as a failure. Returns null when the run's abort cut
 * the solver short (the sample is left for a resume).
 */
export async function solveAndScore<S extends TaskSample, O, Sc>(
  task: { solve: AnyTask['solve']; score: AnyTask['score'] },
  sample: S,
  ctx: SolveContext,
): Promise<SampleRun<O, Sc> | null> {
  let solved: Solved<O> | null = null;
  let error: string | null = null;
  let infrastructureFailure = false;
  let connectionFailure = false;
  try {
    solved = await task.solve(sample, ctx);
  } catch (e) {
    if (ctx.signal?.aborted) return null;
    error = errorMessage(e);
    infrastructureFailure = isInfrastructureFailure(e);
    connectionFailure = isConnectionFailure(e);
  }
  const outcome: Outcome<O> = solved
    ? { output: solved.output }
    : { output: null, error: error ?? 'no output' };
  let score: Sc;
  try {
    score = await task.score(sample, outcome);
  } catch (e) {
    error = `scoring failed: ${errorMessage(e)}`;
    score = await task.score(sample, { output: null, error });
  }
  return {
    output: solved ? solved.output : null,
    error,
    usage: solved?.usage ?? null,
    modelCalls: solved?.modelCalls ?? 0,
    score,
    infrastructureFailure,
    connectionFailure,
  };
}

async function importModule(specifier: string): Promise<Record<string, unknown>> {
  return (await import(specifier)) as Record<string, unknown>;
}

async function buildModel(
  recipe: ModelRecipe,
  sampling: SamplingSettings,
): Promise<{ model: LanguageModel; cache?: ResponseCache }> {
  if (recipe.kind === 'module') {
    const mod = await importModule(recipe.module);
    const name = recipe.export ?? 'createModel';
    const factory = mod[name];
    if (typeof factory !== 'function')
      throw new ApiaryError('USAGE', `model module ${recipe.module} has no function export "${name}"`);
    return { model: (await factory(recipe.options)) as LanguageModel };
  }
  // No env, no config file: everything comes from the recipe (the thread that wrote it resolved them).
  const setup = resolveModelSetup(
    {
      baseURL: recipe.baseURL,
      model: recipe.modelId,
      sampling,
    },
    {
      env: recipe.apiKey ? { APIARY_API_KEY: recipe.apiKey } : {},
      cwd: process.cwd(),
      exists: () => false,
    },
  );
  if (!setup) throw new ApiaryError('USAGE', 'the model recipe names no model');
  if (!recipe.cacheDir) return { model: setup.model };
  const cache = createResponseCache({ dir: recipe.cacheDir });
  return { model: cache.wrap(setup.model), cache };
}

/** A task rebuilt from its recipe, with its samples by id. */
export interface RebuiltTask {
  task: AnyTask;
  samplesById: Map<string, TaskSample>;
  /** The response cache the rebuilt model writes through, when the recipe has one. */
  cache?: ResponseCache;
  /** What the load read (folder and content hash): a distributed worker checks it against the run's. */
  dataSource?: { path: string; sha256: string | null };
}

/** Loads the task a recipe names, through the task registry (built-in tasks are registered first). */
export async function rebuildTask(
  recipe: TaskRecipe,
  registry: TaskRegistry = defaultTaskRegistry,
  signal?: AbortSignal,
): Promise<RebuiltTask> {
  registerBuiltinTasks(registry);
  for (const m of recipe.setupModules ?? []) await importModule(m);
  const def = registry.get(recipe.task);
  const built = recipe.model ? await buildModel(recipe.model, recipe.sampling) : undefined;
  const loaded = await def.load({
    options: recipe.taskOptions,
    solver: recipe.solver,
    solverOptions: recipe.solverOptions,
    ...(built ? { model: built.model } : {}),
    sampling: recipe.sampling,
    ...(recipe.dataDir !== undefined ? { dataDir: recipe.dataDir } : {}),
    seed: recipe.seed,
    ...(recipe.limit !== undefined ? { limit: recipe.limit } : {}),
    ...(recipe.modelCalls ? { modelCalls: recipe.modelCalls } : {}),
    ...(signal ? { signal } : {}),
    ...(recipe.runDir !== undefined ? { runDir: recipe.runDir } : {}),
    ...(recipe.tools ? { tools: recipe.tools } : {}),
  });
  const samplesById = new Map(loaded.task.dataset.map((s: TaskSample) => [s.id, s]));
  return {
    task: loaded.task,
    samplesById,
    ...(built?.cache ? { cache: built.cache } : {}),
    dataSource: loaded.dataSource,
  };
}

/** Runs one sample of a rebuilt task by id (what a worker does per message). */
export async function runSampleById(
  rebuilt: RebuiltTask,
  id: string,
  ctx: SolveContext,
): Promise<SampleRun | null> {
  const sample = rebuilt.samplesById.get(id);
  if (!sample)
    throw new ApiaryError(
      'NOT_FOUND',
      `sample "${id}" is not in the rebuilt task ${rebuilt.task.name} (its data differs from the main thread's)`,
    );
  return solveAndScore(rebuilt.task, sample, ctx);
}
