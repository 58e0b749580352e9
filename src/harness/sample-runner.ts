import type { LanguageModel } from 'ai';
import { z } from 'zod';
import { type AgentTraceEvent, memoryAgentTrace } from '../agents/index.js';
import {
  createLocalModel,
  createResponseCache,
  isConnectionFailure,
  isInfrastructureFailure,
  type ResponseCache,
  resolveModelSetup,
  type SamplingSettings,
  type TokenUsage,
} from '../models/index.js';
import { defaultPluginRegistry, type PluginRegistry } from '../plugins/index.js';
import { ApiaryError } from '../shared/index.js';
import {
  type AnyTask,
  defaultTaskRegistry,
  getSolver,
  type LoadedTask,
  type Outcome,
  type SolveContext,
  type Solved,
  type SolverDefinition,
  solveSample,
  type TaskDefinition,
  type TaskRegistry,
  type TaskSample,
  type TaskToolSettings,
  validateOptions,
} from '../tasks/index.js';
import { importPluginModule } from './plugin-modules.js';

/**
 * How a thread (or, later, a process on another machine) that holds no live objects rebuilds the
 * model of a run. `endpoint`: an OpenAI-compatible server, as `apiary eval` resolves one. `local`: a
 * GGUF file each thread loads once (`--model gguf:PATH`). `module`:
 * a module whose export (default `createModel`) is called with `options` and returns the model —
 * for scripted test and benchmark models, which are closures and cannot cross a thread.
 */
export const ModelRecipeSchema = z.discriminatedUnion('kind', [
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
    kind: z.literal('local'),
    /** Absolute path of the GGUF file, run in process on node-llama-cpp (`--model gguf:PATH`). */
    path: z.string().min(1),
    threads: z.number().int().min(1).optional(),
    contextSize: z.number().int().min(1).optional(),
    gpuLayers: z.number().int().min(0).optional(),
    /** Grammar-constrained decoding (default on). */
    constrain: z.boolean().optional(),
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
export type ModelRecipe = z.infer<typeof ModelRecipeSchema>;

/**
 * The serialisable input of a run: the task and solver by name with their options, the model
 * recipe and sampling, the data folder, seed, limit and epochs, and the plugin modules that
 * declare the task. `evaluate(recipe)` runs it; worker threads and queue workers load the same
 * task from it (`loadTaskFromRecipe`).
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
  seed: z.number().int().min(0),
  limit: z.number().int().min(0).optional(),
  /** Runs of every sample (mean ± CI over epochs); default 1. */
  epochs: z.number().int().min(1).optional(),
  modelCalls: z
    .object({
      timeoutMs: z.number().optional(),
      maxRetries: z.number().optional(),
      baseDelayMs: z.number().optional(),
    })
    .optional(),
  /**
   * Plugin modules (paths or file URLs) imported and registered before the task is looked up: each
   * exports a `BenchmarkPlugin` as default or `plugin` (or a list as `plugins`).
   */
  plugins: z.array(z.string().min(1)).optional(),
  /** Modules imported before the task is looked up (each registers tasks on the default registry). */
  setupModules: z.array(z.string()).optional(),
  /** The run folder (tasks keep artefacts there) and the tools' settings (GTA), as `TaskLoadContext`. */
  runDir: z.string().optional(),
  /** Plain JSON (flags, endpoints, a recording folder): it crosses threads as it is. */
  tools: z
    .custom<TaskToolSettings>((v) => v === undefined || (typeof v === 'object' && v !== null))
    .optional(),
});
/** A recipe with every setting named: what crosses to a worker thread or a queue worker. */
export type TaskRecipe = z.infer<typeof TaskRecipeSchema>;

/**
 * The same recipe as a caller of `evaluate` writes it: what has a default may be left out (the
 * task's default solver, or its no-model solver without a model; the task's sampling; no model;
 * seed 0; no options).
 */
export const TaskRecipeInputSchema = TaskRecipeSchema.extend({
  taskOptions: TaskRecipeSchema.shape.taskOptions.default({}),
  solver: TaskRecipeSchema.shape.solver.optional(),
  solverOptions: TaskRecipeSchema.shape.solverOptions.default({}),
  model: TaskRecipeSchema.shape.model.default(null),
  sampling: TaskRecipeSchema.shape.sampling.optional(),
  seed: TaskRecipeSchema.shape.seed.default(0),
});
export type TaskRecipeInput = z.input<typeof TaskRecipeInputSchema>;

/**
 * The recipe checked against its schema: a USAGE error naming the first bad field
 * (`recipe field "epochs": …`), so a library caller sees what to fix.
 */
export function parseTaskRecipe(input: unknown): z.infer<typeof TaskRecipeInputSchema> {
  const parsed = TaskRecipeInputSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.') || '(recipe)';
  throw new ApiaryError('USAGE', `recipe field "${field}": ${issue.message}`, { cause: parsed.error });
}

/** What solving and scoring one sample gave, in a form that crosses threads (no error objects). */
export interface SampleRun<O = unknown, Sc = unknown> {
  output: O | null;
  /** `CODE: message` of what stopped the solver or the scorer, else null. */
  error: string | null;
  usage: TokenUsage | null;
  modelCalls: number;
  score: Sc;
  /** What the sample did (the solver's events, ending with a stop). */
  events: AgentTraceEvent[];
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
  task: Pick<AnyTask, 'name' | 'solver' | 'scorer'>,
  sample: S,
  ctx: SolveContext,
): Promise<SampleRun<O, Sc> | null> {
  let solved: Solved<O> | null = null;
  let error: string | null = null;
  let infrastructureFailure = false;
  let connectionFailure = false;
  const events = memoryAgentTrace();
  const given = ctx.events;
  const sink = given
    ? {
        write(e: AgentTraceEvent) {
          events.write(e);
          given.write(e);
        },
      }
    : events;
  const t0 = performance.now();
  try {
    solved = await solveSample(task, sample, { ...ctx, events: sink });
  } catch (e) {
    if (ctx.signal?.aborted) return null;
    error = errorMessage(e);
    infrastructureFailure = isInfrastructureFailure(e);
    connectionFailure = isConnectionFailure(e);
  }
  if (needsStop(events.events, solved !== null))
    sink.write(fallbackStop(events.events, solved, error, performance.now() - t0));
  const outcome: Outcome<O> = solved
    ? { output: solved.output }
    : { output: null, error: error ?? 'no output' };
  let score: Sc;
  try {
    score = await task.scorer(sample, outcome);
  } catch (e) {
    error = `scoring failed: ${errorMessage(e)}`;
    score = await task.scorer(sample, { output: null, error });
  }
  return {
    output: solved ? solved.output : null,
    error,
    usage: solved?.usage ?? null,
    modelCalls: solved?.modelCalls ?? 0,
    score,
    events: events.events,
    infrastructureFailure,
    connectionFailure,
  };
}

/**
 * Whether the harness must end a sample's events with its own stop: a solved sample whose solver
 * wrote no stop, or a failed one whose events do not end with a stop that says why (a solver that
 * ran an agent to its end and then threw, like the hierarchical agent after its selection runs).
 */
function needsStop(events: readonly AgentTraceEvent[], solved: boolean): boolean {
  if (solved) return !events.some((e) => e.type === 'stop');
  const last = events.at(-1);
  return !(last?.type === 'stop' && last.reason !== 'final');
}

/**
 * The stop of a sample whose solver wrote none (a solver that threw, a task written before events):
 * every record ends with one. Its step is the number of model turns written.
 */
function fallbackStop(
  events: readonly AgentTraceEvent[],
  solved: Solved<unknown> | null,
  error: string | null,
  totalMs: number,
): AgentTraceEvent {
  return {
    type: 'stop',
    step: events.filter((e) => e.type === 'turn').length,
    reason: solved ? 'final' : 'error',
    answer: null,
    ...(error !== null ? { detail: error } : {}),
    usage: solved?.usage ?? { inputTokens: 0, outputTokens: 0 },
    totalMs,
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
  if (recipe.kind === 'local') {
    const { kind: _, cacheDir, ...local } = recipe;
    const model = createLocalModel(local);
    if (!cacheDir) return { model };
    const cache = createResponseCache({ dir: cacheDir });
    return { model: cache.wrap(model), cache };
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

/** A recipe resolved against the registries: the definition, the solver and the validated options. */
export interface ResolvedRecipe {
  /** The recipe with solver, options and sampling filled in: what crosses to a worker. */
  recipe: TaskRecipe;
  definition: TaskDefinition;
  solver: SolverDefinition;
}

export interface RecipeRegistries {
  /** Where the task is looked up (default: the default task registry). */
  registry?: TaskRegistry;
  /** Whose plugins' tasks are loaded into `registry` (default: the default plugin registry). */
  plugins?: PluginRegistry;
}

/**
 * Step one of loading a recipe, shared by `evaluate` and every worker: imports the recipe's plugin
 * and setup modules, loads the plugins' tasks, looks the task and solver up and validates both
 * options (USAGE errors naming the option, NOT_FOUND listing the known names).
 */
export async function resolveRecipe(input: unknown, regs: RecipeRegistries = {}): Promise<ResolvedRecipe> {
  const recipe = parseTaskRecipe(input);
  const plugins = regs.plugins ?? defaultPluginRegistry;
  for (const m of recipe.plugins ?? []) await importPluginModule(m, plugins);
  for (const m of recipe.setupModules ?? []) await importModule(m);
  const registry = await plugins.loadTasks(regs.registry ?? defaultTaskRegistry);
  const definition = registry.get(recipe.task);
  const solverName =
    recipe.solver ??
    (recipe.model === null && definition.noModelSolver ? definition.noModelSolver : definition.defaultSolver);
  const solver = getSolver(definition, solverName);
  const taskOptions = validateOptions(definition.options, recipe.taskOptions, definition.name);
  const solverOptions = validateOptions(
    solver.options,
    recipe.solverOptions,
    `${definition.name} solver ${solverName}`,
  );
  return {
    recipe: {
      ...recipe,
      solver: solverName,
      taskOptions,
      solverOptions,
      sampling: recipe.sampling ?? definition.sampling ?? {},
    },
    definition,
    solver,
  };
}

/** Step two: builds the recipe's model (unless one is given live) and loads the task's data. */
export async function loadResolvedRecipe(
  resolved: ResolvedRecipe,
  live: { model?: LanguageModel; signal?: AbortSignal } = {},
): Promise<{ loaded: LoadedTask; model?: LanguageModel; cache?: ResponseCache }> {
  const { recipe, definition } = resolved;
  const built = live.model
    ? { model: live.model }
    : recipe.model
      ? await buildModel(recipe.model, recipe.sampling)
      : undefined;
  const loaded = await definition.load({
    options: recipe.taskOptions,
    solver: recipe.solver,
    solverOptions: recipe.solverOptions,
    ...(built ? { model: built.model } : {}),
    sampling: recipe.sampling,
    ...(recipe.dataDir !== undefined ? { dataDir: recipe.dataDir } : {}),
    seed: recipe.seed,
    ...(recipe.limit !== undefined ? { limit: recipe.limit } : {}),
    ...(recipe.modelCalls ? { modelCalls: recipe.modelCalls } : {}),
    ...(live.signal ? { signal: live.signal } : {}),
    ...(recipe.runDir !== undefined ? { runDir: recipe.runDir } : {}),
    ...(recipe.tools ? { tools: recipe.tools } : {}),
  });
  return {
    loaded,
    ...(built ? { model: built.model } : {}),
    ...(built && 'cache' in built && built.cache ? { cache: built.cache } : {}),
  };
}

/**
 * Loads the task a recipe names: the one path of `evaluate`, worker threads and queue workers
 * (plugins and setup modules imported, task and solver resolved, options validated, model built).
 */
export async function loadTaskFromRecipe(
  input: unknown,
  opts: RecipeRegistries & { signal?: AbortSignal } = {},
): Promise<RebuiltTask> {
  const resolved = await resolveRecipe(input, opts);
  const { loaded, cache } = await loadResolvedRecipe(resolved, opts.signal ? { signal: opts.signal } : {});
  return {
    task: loaded.task,
    samplesById: new Map(loaded.task.dataset.map((s: TaskSample) => [s.id, s])),
    ...(cache ? { cache } : {}),
    dataSource: loaded.dataSource,
  };
}

/** `loadTaskFromRecipe` with a task registry and a signal as positional arguments. */
export function rebuildTask(
  recipe: TaskRecipeInput,
  registry?: TaskRegistry,
  signal?: AbortSignal,
): Promise<RebuiltTask> {
  return loadTaskFromRecipe(recipe, { ...(registry ? { registry } : {}), ...(signal ? { signal } : {}) });
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
