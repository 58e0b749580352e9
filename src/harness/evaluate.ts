import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { LanguageModel } from 'ai';
import {
  checkModelEndpoint,
  createLocalModel,
  type ResponseCache,
  type ResponseCacheStats,
} from '../models/index.js';
import { defaultPluginRegistry } from '../plugins/index.js';
import { ApiaryError } from '../shared/index.js';
import type { AnyTask, TaskDefinition } from '../tasks/index.js';
import { gitRevision, packageVersion } from './environment.js';
import type { QueueAuth } from './queue-auth.js';
import { type QueueRunStats, startQueueCoordinator } from './queue-coordinator.js';
import { type EvalProgress, type RunEvalResult, runEval } from './run-eval.js';
import { createRunFolder, DEFAULT_RUNS_DIR, latestRunFolder, runFolderPrefix } from './run-folder.js';
import { buildRunSpec, type Price, type RunSpec, type RunSpecDeps } from './run-spec.js';
import {
  loadResolvedRecipe,
  type RecipeRegistries,
  type ResolvedRecipe,
  resolveRecipe,
  type TaskRecipe,
  type TaskRecipeInput,
} from './sample-runner.js';

/** The live, non-serialisable side of a run: where it writes, how wide it runs, what it reports to. */
export interface EvaluateOptions extends RecipeRegistries {
  /** The run folder; default a new one under `runsDir` (with `resume`: the latest of these settings). */
  outDir?: string;
  /** Where default run folders go (default `.apiary/runs` in the working folder). */
  runsDir?: string;
  /** Continue the run folder's results; `overwrite`: discard them. */
  resume?: boolean;
  overwrite?: boolean;
  /** Samples in flight (default 4). */
  concurrency?: number;
  /** Worker threads solving and scoring samples (default 1: this thread). */
  workers?: number;
  /** Distributed: samples go on a BullMQ queue on this Redis server for `apiary worker` processes. */
  queue?: {
    url: string;
    auth: QueueAuth;
    rateLimit?: { max: number; durationMs: number };
    /** The coordinator's own lines (workers refusing the run, lost jobs). */
    onNote?: (line: string) => void;
  };
  /** Stops starting samples; those cut short are not recorded (a resume reruns them). */
  signal?: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
  /** Lines worth showing: the task's notes, where the results go, the queue to start workers on. */
  onNote?: (line: string) => void;
  /** Called once the task has loaded, just before the first sample starts. */
  onStart?: () => void;
  /** Dollars per million tokens: each record gets its cost; needed by `maxCost`. */
  price?: Price | null;
  /** Stop starting samples once the recorded cost reaches this many dollars. */
  maxCost?: number;
  /** Stop after this many samples in a row could not reach the model endpoint (default: never). */
  maxConsecutiveConnectionFailures?: number;
  /**
   * Stop after this many samples in a row failed because the model endpoint failed after its retries
   * (HTTP 5xx, garbage, error statuses; not connection failures alone); default: never.
   */
  maxConsecutiveEndpointFailures?: number;
  /**
   * The model of this thread, used instead of building one from `recipe.model` (which still
   * describes it for worker threads, queue workers and the run spec).
   */
  model?: LanguageModel;
  /** A response cache in front of the model of this thread (`recipe.model.cacheDir` for workers). */
  cache?: ResponseCache;
  /** Ask `<baseURL>/models` before anything is loaded or written (endpoint models only). */
  checkEndpoint?: boolean;
  /** Clocks and facts of the run spec (tests). */
  deps?: Partial<RunSpecDeps>;
}

export interface EvaluateResult<R = unknown> extends RunEvalResult<R> {
  /** The recipe as run, every default filled in (what worker threads and queue workers received). */
  recipe: TaskRecipe;
  spec: RunSpec;
  outDir: string;
  definition: TaskDefinition;
  /** The loaded task (its `formatReport` renders `summary.report`). */
  task: AnyTask;
  /** Lines the task has once the run ended (a tool recording's hits and misses). */
  finalNotes: string[];
  /** Response-cache counts (the worker threads' when they ran the samples). */
  cacheStats?: ResponseCacheStats;
  /** What went through the queue, with `queue`. */
  queueStats?: QueueRunStats;
}

const endpointOf = (recipe: TaskRecipe) => (recipe.model?.kind === 'endpoint' ? recipe.model : undefined);

/** The model as the run spec records it: endpoint id and URL, a module's export, or a live model's id. */
function specModel(recipe: TaskRecipe, live?: LanguageModel): RunSpec['model'] {
  const m = recipe.model;
  if (m?.kind === 'endpoint') return { id: m.modelId, baseUrl: m.baseURL };
  if (m?.kind === 'local') return { id: `gguf:${basename(m.path)}`, baseUrl: `gguf:${m.path}` };
  if (m?.kind === 'module') return { id: m.export ?? 'createModel', baseUrl: m.module };
  if (live) return { id: typeof live === 'string' ? live : live.modelId, baseUrl: null };
  return null;
}

/**
 * The run folder: `outDir`, else with `resume` the latest run of these settings, else a new one.
 * `created`: made by this call (removed again if the task cannot load).
 */
function runFolder(opts: EvaluateOptions, prefix: string): { outDir: string; created: boolean } {
  if (opts.outDir) return { outDir: resolve(opts.outDir), created: false };
  const runsDir = resolve(opts.runsDir ?? DEFAULT_RUNS_DIR);
  if (!opts.resume) return { outDir: createRunFolder(runsDir, prefix, new Date()), created: true };
  const latest = latestRunFolder(runsDir, prefix);
  if (!latest)
    throw new ApiaryError(
      'USAGE',
      `nothing to resume: no earlier run ${prefix}-* in ${runsDir}; pass --out DIR to name the run folder`,
    );
  return { outDir: latest, created: false };
}

/**
 * The recipe as worker threads and queue workers receive it: the data folder absolute, the run
 * folder, the response cache folder, and the module of the task's plugin, which they import.
 */
function recipeForWorkers(resolved: ResolvedRecipe, opts: EvaluateOptions, outDir: string): TaskRecipe {
  const { recipe } = resolved;
  const plugins = opts.plugins ?? defaultPluginRegistry;
  const owner = plugins.pluginOfTask(recipe.task);
  const module = owner ? plugins.moduleOf(owner.name) : undefined;
  const modules = [...(recipe.plugins ?? []), ...(module ? [module] : [])];
  const model =
    (recipe.model?.kind === 'endpoint' || recipe.model?.kind === 'local') && opts.cache
      ? { ...recipe.model, cacheDir: opts.cache.dir }
      : recipe.model;
  return {
    ...recipe,
    model,
    ...(recipe.dataDir !== undefined ? { dataDir: resolve(recipe.dataDir) } : {}),
    ...(modules.length ? { plugins: [...new Set(modules)] } : {}),
    runDir: outDir,
  };
}

/** Why samples cannot run outside this thread, or null: what a worker could not rebuild. */
function outsideThisThread(resolved: ResolvedRecipe, opts: EvaluateOptions): string | null {
  const { recipe } = resolved;
  if (opts.model && !recipe.model)
    return 'the model was given live (options.model) without recipe.model: workers cannot rebuild it';
  const plugins = opts.plugins ?? defaultPluginRegistry;
  const owner = plugins.pluginOfTask(recipe.task);
  if (owner && !plugins.moduleOf(owner.name) && !recipe.plugins?.length)
    return `plugin "${owner.name}" was registered in code, not from a module: name its module in recipe.plugins`;
  return null;
}

/**
 * Runs a task end to end: the one way to run one, used by `apiary eval`, `eval all`, worker threads
 * and queue workers (which load the task through the same `resolveRecipe`/`loadResolvedRecipe`).
 * Validates the recipe, imports its plugins, loads the task through the plugin registry, builds the
 * run spec, solves and scores every sample into `<outDir>/results.jsonl` and returns the summary.
 */
export async function evaluate<R = unknown>(
  input: TaskRecipeInput,
  options: EvaluateOptions = {},
): Promise<EvaluateResult<R>> {
  const resolved = await resolveRecipe(input, options);
  const { definition: def, solver } = resolved;
  const solverName = resolved.recipe.solver;
  const usesModel = solver.needsModel !== false;
  // a solver that uses no model is given none (its recipe then names none)
  if (!usesModel) resolved.recipe = { ...resolved.recipe, model: null };
  const liveModel = usesModel ? options.model : undefined;
  const { recipe } = resolved;
  const hasModel = Boolean(recipe.model || liveModel);
  if (solver.needsModel === true && !hasModel)
    throw new ApiaryError(
      'USAGE',
      `solver "${solverName}" of ${def.name} needs a model: give the recipe a model (recipe.model)`,
    );
  const workers = Math.max(1, Math.floor(options.workers ?? 1));
  if (options.queue && workers > 1)
    throw new ApiaryError('USAGE', 'a queue and worker threads exclude each other: start more queue workers');
  if (workers > 1 || options.queue) {
    const why = outsideThisThread(resolved, options);
    if (why) throw new ApiaryError('USAGE', `samples cannot run outside this thread: ${why}`);
  }
  if (options.maxCost !== undefined && !options.price)
    throw new ApiaryError(
      'USAGE',
      'a cost budget (--max-cost) needs a price (--price-input, --price-output)',
    );

  // A dead endpoint stops here, with its URL and the cause, before any data is loaded or written.
  const endpoint = endpointOf(recipe);
  if (endpoint && options.checkEndpoint)
    await checkModelEndpoint({
      baseURL: endpoint.baseURL,
      modelId: endpoint.modelId,
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
    });
  // a local model has no endpoint: it is loaded here once, so a bad file stops the run the same way
  if (recipe.model?.kind === 'local' && options.checkEndpoint) await createLocalModel(recipe.model).load();

  const model = specModel(recipe, liveModel);
  const { outDir, created } = runFolder(options, runFolderPrefix(def.name, solverName, model?.id ?? null));
  const note = options.onNote ?? (() => {});
  // the run folder is known before loading: tasks keep their artefacts in it (GTA's tool images)
  resolved.recipe = { ...recipe, runDir: outDir };
  let loadedRun: Awaited<ReturnType<typeof loadResolvedRecipe>>;
  try {
    const live =
      liveModel && options.cache
        ? options.cache.wrap(liveModel as Parameters<ResponseCache['wrap']>[0])
        : liveModel;
    loadedRun = await loadResolvedRecipe(resolved, {
      ...(live ? { model: live } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    // a task that cannot load leaves no empty run folder behind
    if (created && existsSync(outDir) && readdirSync(outDir).length === 0)
      rmSync(outDir, { recursive: true });
    throw error;
  }
  const { loaded } = loadedRun;
  const cache = options.cache ?? loadedRun.cache;
  const { task } = loaded;
  for (const n of loaded.notes ?? []) note(n);
  const sampling = hasModel ? recipe.sampling : null;
  const concurrency = options.concurrency ?? 4;
  const spec = buildRunSpec(
    {
      task: { name: def.name, version: task.version, options: recipe.taskOptions },
      solver: { name: solverName, options: recipe.solverOptions },
      model,
      sampling: sampling
        ? {
            temperature: sampling.temperature ?? null,
            topP: sampling.topP ?? null,
            maxOutputTokens: sampling.maxOutputTokens ?? null,
          }
        : null,
      data: loaded.dataSource,
      limit: recipe.limit ?? null,
      size: task.dataset.length,
      seed: recipe.seed,
      epochs: recipe.epochs ?? 1,
      concurrency,
      price: options.price ?? null,
    },
    { now: () => new Date(), gitRevision, packageVersion, ...options.deps },
  );
  const outFile = resolve(outDir, 'results.jsonl');
  // `--resume` on a folder with no results starts a new run: say so, not "resuming"
  const resuming = options.resume && existsSync(outFile) && statSync(outFile).size > 0;
  const label = resuming
    ? ' (resuming)'
    : options.resume
      ? ' (new run: --resume found no results there)'
      : '';
  note(`results: ${outFile}${label}`);

  const workerRecipe = recipeForWorkers(resolved, options, outDir);
  let coordinator: Awaited<ReturnType<typeof startQueueCoordinator>> | null = null;
  let result: RunEvalResult<R>;
  try {
    if (options.queue) {
      const q = options.queue;
      coordinator = await startQueueCoordinator({
        url: q.url,
        auth: q.auth,
        recipe: workerRecipe,
        data: loaded.dataSource,
        ...(q.rateLimit ? { rateLimit: q.rateLimit } : {}),
        ...(q.onNote ? { onNote: q.onNote } : {}),
      });
      note(`queue: ${coordinator.queueName} on ${q.url}; start workers with: apiary worker --queue ${q.url}`);
    }
    options.onStart?.();
    result = await runEval({
      task,
      spec,
      // with a queue every missing sample goes on it at once; the workers' concurrency bounds the work
      concurrency: coordinator ? Number.POSITIVE_INFINITY : concurrency,
      outFile,
      resume: Boolean(options.resume),
      overwrite: Boolean(options.overwrite),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.maxConsecutiveConnectionFailures !== undefined
        ? { maxConsecutiveConnectionFailures: options.maxConsecutiveConnectionFailures }
        : {}),
      ...(options.maxConsecutiveEndpointFailures !== undefined
        ? { maxConsecutiveEndpointFailures: options.maxConsecutiveEndpointFailures }
        : {}),
      ...(coordinator ? { pool: coordinator } : workers > 1 ? { workers, recipe: workerRecipe } : {}),
      ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}),
      metrics: def.metrics,
      ...(def.passed ? { passed: def.passed } : {}),
    });
  } finally {
    await coordinator?.close();
    await loaded.dispose?.();
  }
  const queueStats = coordinator?.stats();
  // with worker threads the cache lives in each worker: their counts replace this thread's (all 0)
  const cacheStats = result.workerCacheStats ?? cache?.stats;
  return {
    ...result,
    recipe: workerRecipe,
    spec,
    outDir,
    definition: def,
    task,
    finalNotes: loaded.finalNotes?.() ?? [],
    ...(cacheStats ? { cacheStats } : {}),
    ...(queueStats ? { queueStats } : {}),
  };
}
