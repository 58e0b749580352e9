import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Command, Option } from 'commander';
import pc from 'picocolors';
import {
  createProgressReporter,
  type EvaluateOptions,
  type EvaluateResult,
  evaluate,
  formatDollars,
  formatRunSummary,
  importPluginModule,
  progressModeFor,
  resolveQueueAuth,
  type TaskRecipeInput,
} from '../../harness/index.js';
import { createResponseCache, resolveModelSetup, type SamplingSettings } from '../../models/index.js';
import {
  defaultPluginRegistry,
  type PluginRegistry,
  type TaskEvalFlag,
  type TaskFlagSettings,
} from '../../plugins/index.js';
import { ApiaryError } from '../../shared/index.js';
import {
  getSolver,
  getTask,
  parseOptionAssignments,
  routeOptions,
  validateOptions,
} from '../../tasks/index.js';
import { addLocalModelOptions, type LocalModelFlags, localModelOptions } from '../local-model-options.js';
import { parseInteger, parseNumber, parseOutputPath } from '../options.js';
import { EXIT, printJson, terminalText } from '../output.js';
import { runEvalAll } from './eval-all.js';
import { chooseSolver, modelRequiredError, parsePrice, parseTopPFlag } from './eval-settings.js';
import { reportRun } from './report.js';

/**
 * The flags of `apiary eval`. A task's own flags (declared by its plugin, `PluginTask.evalFlags`)
 * arrive under commander's camelCase keys beside these.
 */
export interface EvalFlags extends LocalModelFlags {
  /** Plugin modules to import and register (`--plugin FILE`, repeatable). */
  plugin?: string[];
  solver?: string;
  option?: string[];
  epochs?: string;
  priceInput?: string;
  priceOutput?: string;
  maxCost?: string;
  data?: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  config?: string;
  temperature?: string;
  topP?: string;
  maxTokens?: string;
  out?: string;
  concurrency: string;
  workers?: string;
  /** Redis URL: samples go on a BullMQ queue served by `apiary worker` processes. */
  queue?: string;
  /** With --queue: at most this many samples start per --rate-window-ms over all workers. */
  rateLimit?: string;
  rateWindowMs?: string;
  /** With --queue: the file of the secret shared with the workers (else APIARY_QUEUE_SECRET). */
  queueSecretFile?: string;
  insecureNoAuth?: boolean;
  resume?: boolean;
  overwrite?: boolean;
  limit?: string;
  seed: string;
  timeoutMs?: string;
  retries?: string;
  retryDelayMs?: string;
  cache?: string | boolean;
  /** Commander's negation of --no-endpoint-check. */
  endpointCheck?: boolean;
  maxConnectionFailures?: string;
  maxEndpointFailures?: string;
  json?: boolean;
  /** A task's own flags. */
  [taskFlag: string]: unknown;
}

function parseRateLimit(flags: EvalFlags): { max: number; durationMs: number } | undefined {
  const max = parseInteger('--rate-limit', flags.rateLimit, { min: 1 });
  const durationMs = parseInteger('--rate-window-ms', flags.rateWindowMs, { min: 1 }) ?? 1000;
  if (max === undefined) {
    if (flags.rateWindowMs !== undefined)
      throw new ApiaryError('USAGE', '--rate-window-ms needs --rate-limit');
    return undefined;
  }
  return { max, durationMs };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Exit status of a run stopped by Ctrl-C or SIGTERM (128 + the signal's number), as shells report it. */
const EXIT_STOPPED_BY: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

/** The signals that stop a run cleanly: Ctrl-C, and SIGTERM (a supervisor, `kill`, a container's stop). */
type StopSignal = 'SIGINT' | 'SIGTERM';
const STOP_SIGNALS: StopSignal[] = ['SIGINT', 'SIGTERM'];

/** A task's own flag (declared by its plugin), as commander names it in the parsed flags. */
interface OwnFlag {
  task: string;
  flag: TaskEvalFlag;
  /** Commander's camelCase key (`recordMissing`). */
  key: string;
  /** The long name (`--record-missing`). */
  long: string;
}

/** Every task's own flags from the registered plugins (a name two tasks declare: the first one's). */
export function tasksOwnFlags(plugins: PluginRegistry = defaultPluginRegistry): OwnFlag[] {
  const seen = new Set<string>();
  const out: OwnFlag[] = [];
  for (const plugin of plugins.list())
    for (const task of plugin.tasks ?? [])
      for (const flag of task.evalFlags?.flags ?? []) {
        const option = new Option(flag.flags, flag.description);
        const long = option.long ?? flag.flags;
        if (seen.has(long)) continue;
        seen.add(long);
        out.push({ task: task.name, flag, key: option.attributeName(), long });
      }
  return out;
}

/** What one task's own flags set: foreign flags refused, the task's own turned into settings. */
function ownFlagSettings(taskName: string, flags: EvalFlags): TaskFlagSettings {
  const own: Record<string, unknown> = {};
  for (const f of tasksOwnFlags()) {
    if (flags[f.key] === undefined) continue;
    if (f.task !== taskName) throw new ApiaryError('USAGE', f.flag.notForTask(f.long, taskName));
    own[f.key] = flags[f.key];
  }
  const plugin = defaultPluginRegistry.pluginOfTask(taskName);
  const evalFlags = plugin?.tasks?.find((t) => t.name === taskName)?.evalFlags;
  return evalFlags ? evalFlags.settings(own) : {};
}

/** `--plugin FILE`: each module imported and registered (its tasks then known to eval and tasks). */
export async function importPluginFlags(files: readonly string[] = []): Promise<string[]> {
  const urls: string[] = [];
  for (const file of files) {
    const path = resolve(file);
    if (!existsSync(path)) throw new ApiaryError('USAGE', `--plugin ${file}: no such file (${path})`);
    try {
      await importPluginModule(path);
    } catch (error) {
      if (error instanceof ApiaryError && error.code === 'USAGE')
        throw new ApiaryError('USAGE', `--plugin ${file}: ${error.message}`, { cause: error });
      throw error;
    }
    urls.push(pathToFileURL(path).href);
  }
  return urls;
}

/** One `apiary eval` run as the library takes it, and what the CLI prints around it. */
export interface EvalRequest {
  recipe: TaskRecipeInput;
  options: EvaluateOptions;
  /** The solver ran because no model is configured (said in the output). */
  fallback: boolean;
  solver: string;
  maxCost: number | undefined;
  maxConnectionFailures: number;
  maxEndpointFailures: number;
  workers: number;
  modelBaseURL: string | undefined;
  /** Lines for stderr (silent with --json). */
  note: (line: string) => void;
  /** Stops the progress display and the Ctrl-C/SIGTERM handlers once the run ended. */
  done: () => void;
  /** The signal that stopped the run early, if one did. */
  stoppedBy: () => StopSignal | undefined;
}

/**
 * Turns the flags of `apiary eval <task>` into a recipe and options for `evaluate`: every check,
 * message and default of the command (the task's own flags through its plugin).
 */
export async function evalRequest(taskName: string, flags: EvalFlags): Promise<EvalRequest> {
  const plugins = await importPluginFlags(flags.plugin);
  await defaultPluginRegistry.loadTasks();
  const def = getTask(taskName);
  if (flags.resume && flags.overwrite)
    throw new ApiaryError('USAGE', '--resume and --overwrite exclude each other');
  const own = ownFlagSettings(def.name, flags);
  const concurrency = parseInteger('--concurrency', flags.concurrency, { min: 1 }) ?? 4;
  const workers = parseInteger('--workers', flags.workers, { min: 1 }) ?? 1;
  const rateLimit = parseRateLimit(flags);
  if (flags.queue !== undefined && workers > 1)
    throw new ApiaryError(
      'USAGE',
      '--queue and --workers exclude each other: start more `apiary worker` processes',
    );
  if (rateLimit && flags.queue === undefined)
    throw new ApiaryError('USAGE', '--rate-limit shares one limit among queue workers: it needs --queue');
  const limit = parseInteger('--limit', flags.limit, { min: 0 });
  // a run folder: checked before the data loads and the model is called (a file there is a USAGE error)
  parseOutputPath('--out', flags.out, 'directory');
  if (typeof flags.cache === 'string') parseOutputPath('--cache', flags.cache, 'directory');
  const seed = parseInteger('--seed', flags.seed, { min: 0 }) ?? 0;
  const epochs = parseInteger('--epochs', flags.epochs, { min: 1 }) ?? 1;
  const price = parsePrice(flags.priceInput, flags.priceOutput);
  const maxCost = parseNumber('--max-cost', flags.maxCost, { min: 0 });
  if (maxCost !== undefined && flags.queue !== undefined)
    throw new ApiaryError(
      'USAGE',
      '--max-cost is not supported with --queue (every sample is queued at once); run in one process, or resume with a smaller --limit',
    );
  if ((flags.queueSecretFile !== undefined || flags.insecureNoAuth) && flags.queue === undefined)
    throw new ApiaryError('USAGE', '--queue-secret-file and --insecure-no-auth are for --queue');
  // checked before the data loads: a distributed run without a secret is refused at once
  const queueAuth =
    flags.queue !== undefined
      ? resolveQueueAuth({ secretFile: flags.queueSecretFile, insecure: flags.insecureNoAuth })
      : undefined;
  if (queueAuth?.insecure)
    process.stderr.write(
      'warning: --insecure-no-auth: jobs and results on the queue are not authenticated; anyone who can write to this Redis can forge results\n',
    );
  if (maxCost !== undefined && !price)
    throw new ApiaryError(
      'USAGE',
      '--max-cost needs --price-input and --price-output (dollars per million tokens)',
    );
  const modelCalls = {
    ...(flags.timeoutMs !== undefined
      ? { timeoutMs: parseInteger('--timeout-ms', flags.timeoutMs, { min: 1 })! }
      : {}),
    ...(flags.retries !== undefined
      ? { maxRetries: parseInteger('--retries', flags.retries, { min: 0 })! }
      : {}),
    ...(flags.retryDelayMs !== undefined
      ? { baseDelayMs: parseInteger('--retry-delay-ms', flags.retryDelayMs, { min: 0 })! }
      : {}),
  };
  const flagSampling: SamplingSettings = {};
  const temperature = parseNumber('--temperature', flags.temperature, { min: 0, max: 2 });
  if (temperature !== undefined) flagSampling.temperature = temperature;
  const topP = parseTopPFlag(flags.topP);
  if (topP !== undefined) flagSampling.topP = topP;
  const maxConnectionFailures =
    parseInteger('--max-connection-failures', flags.maxConnectionFailures, { min: 1 }) ?? 5;
  const maxEndpointFailures =
    parseInteger('--max-endpoint-failures', flags.maxEndpointFailures, { min: 1 }) ?? 5;
  const maxTokens = parseInteger('--max-tokens', flags.maxTokens, { min: 1 });
  if (maxTokens !== undefined) flagSampling.maxOutputTokens = maxTokens;
  const note = (msg: string) => {
    if (!flags.json) process.stderr.write(`${msg}\n`);
  };

  // The model (if any), with the task's default sampling under flags, env and config.
  const setup = resolveModelSetup({
    ...(flags.baseUrl ? { baseURL: flags.baseUrl } : {}),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.apiKeyEnv ? { apiKeyEnv: flags.apiKeyEnv } : {}),
    ...(flags.config ? { configFile: flags.config } : {}),
    local: localModelOptions(flags),
    sampling: flagSampling,
    ...(def.sampling ? { defaults: def.sampling } : {}),
  });
  const { solver: solverName, fallback } = chooseSolver(def, {
    ...(flags.solver ? { solver: flags.solver } : {}),
    ...(own.solverWithModel ? { prompting: own.solverWithModel } : {}),
    hasModel: Boolean(setup),
  });
  const solver = getSolver(def, solverName);
  if (solver.needsModel === true && !setup) throw modelRequiredError(def.name, solverName);
  const model = solver.needsModel !== false ? setup : undefined;
  if (setup && !model)
    note(`solver ${solverName} uses no model: the configured model ${setup.modelId} is not called`);
  if (fallback)
    note(
      `no model configured: running the ${solverName} agent (no LLM calls). Pass --model/--base-url, or set APIARY_MODEL/APIARY_BASE_URL, for a model run.`,
    );

  // Options: the task's own flags first, then --option key=value.
  const routed = routeOptions(def, solverName, parseOptionAssignments(flags.option ?? []));
  const solverHas = (k: string) => k in solver.options.shape;
  const flagSolverOptions = Object.fromEntries(
    Object.entries(own.solverOptions ?? {}).filter(([k]) => model && solverHas(k)),
  );
  const taskOptions = validateOptions(def.options, { ...own.taskOptions, ...routed.task }, def.name);
  const solverOptions = validateOptions(
    solver.options,
    { ...flagSolverOptions, ...routed.solver },
    `${def.name} solver ${solverName}`,
  );

  const cache =
    model && flags.cache
      ? createResponseCache(typeof flags.cache === 'string' ? { dir: resolve(flags.cache) } : {})
      : undefined;
  const recipe: TaskRecipeInput = {
    task: def.name,
    taskOptions,
    solver: solverName,
    solverOptions,
    model: model
      ? model.local
        ? { kind: 'local' as const, ...model.local }
        : {
            kind: 'endpoint' as const,
            baseURL: model.baseURL,
            modelId: model.modelId,
            ...(model.apiKey ? { apiKey: model.apiKey } : {}),
          }
      : null,
    sampling: model ? model.sampling : (def.sampling ?? {}),
    ...(flags.data ? { dataDir: flags.data } : {}),
    seed,
    ...(limit !== undefined ? { limit } : {}),
    epochs,
    modelCalls,
    ...(own.tools ? { tools: own.tools } : {}),
    ...(plugins.length ? { plugins } : {}),
  };

  const ac = new AbortController();
  let stoppedBy: StopSignal | undefined;
  // SIGTERM stops like Ctrl-C: the samples in flight finish, the summary is written, the lock is
  // released and a queue run's announcement withdrawn (a worker started later must not join it)
  const onStopSignal = (name: StopSignal) => {
    if (ac.signal.aborted) process.exit(EXIT_STOPPED_BY[stoppedBy ?? name]); // the lock is removed on exit
    stoppedBy = name;
    process.stderr.write(
      name === 'SIGINT'
        ? '\ninterrupted: finishing the samples in flight (Ctrl-C again to quit now)\n'
        : '\nterminated (SIGTERM): finishing the samples in flight (SIGTERM or Ctrl-C again to quit now)\n',
    );
    ac.abort();
  };
  let reporter: ReturnType<typeof createProgressReporter> | undefined;
  const options: EvaluateOptions = {
    ...(flags.out ? { outDir: flags.out } : {}),
    resume: Boolean(flags.resume),
    overwrite: Boolean(flags.overwrite),
    concurrency,
    workers,
    ...(flags.queue !== undefined
      ? {
          queue: {
            url: flags.queue,
            auth: queueAuth!,
            ...(rateLimit ? { rateLimit } : {}),
            onNote: (n: string) => process.stderr.write(`${n}\n`),
          },
        }
      : {}),
    signal: ac.signal,
    onNote: note,
    onStart: () => {
      for (const name of STOP_SIGNALS) process.on(name, onStopSignal);
      reporter = createProgressReporter({
        label: def.name,
        mode: progressModeFor(process.stderr, Boolean(flags.json)),
      });
    },
    onProgress: (p) => reporter?.update(p),
    price,
    ...(maxCost !== undefined ? { maxCost } : {}),
    maxConsecutiveConnectionFailures: maxConnectionFailures,
    maxConsecutiveEndpointFailures: maxEndpointFailures,
    ...(model ? { model: model.model } : {}),
    ...(cache ? { cache } : {}),
    checkEndpoint: flags.endpointCheck !== false,
  };
  return {
    recipe,
    options,
    fallback,
    solver: solverName,
    maxCost,
    maxConnectionFailures,
    maxEndpointFailures,
    workers,
    modelBaseURL: model?.baseURL,
    note,
    done: () => {
      reporter?.stop();
      for (const name of STOP_SIGNALS) process.off(name, onStopSignal);
    },
    stoppedBy: () => stoppedBy,
  };
}

/** Runs a request through the library's `evaluate`, the Ctrl-C handler and progress display around it. */
async function evaluateRequest(request: EvalRequest): Promise<EvaluateResult> {
  try {
    return await evaluate(request.recipe, request.options);
  } finally {
    request.done();
  }
}

/**
 * What `apiary eval` prints once a run ended (stdout unless `stdout` is false: `eval all --json`
 * prints one document for every task), and the exit status it sets.
 */
export function reportEvalResult(
  result: EvaluateResult,
  request: EvalRequest,
  flags: Pick<EvalFlags, 'json'>,
  stdout = true,
): void {
  const { note, fallback, maxCost, maxConnectionFailures, maxEndpointFailures, workers } = request;
  const { summary, spec, outDir, queueStats, cacheStats, task } = result;
  const cache = request.options.cache;
  const queued = Boolean(request.options.queue);
  // with worker threads the tasks that ran the samples live in the workers: this thread's counts are 0
  if (workers > 1 && result.finalNotes.length)
    note('tool recording: with --workers each worker thread keeps its own counts (not shown)');
  else for (const n of result.finalNotes) note(n);
  if (result.lockTakenOver)
    note(
      `note: took over a stale lock of pid ${result.lockTakenOver.pid} (started ${result.lockTakenOver.startedAt}; that process is gone)`,
    );
  if (!stdout) {
    // eval all --json: its single JSON document is the only thing on stdout
  } else if (flags.json) {
    printJson({
      resultsFile: result.resultsFile,
      summaryFile: result.summaryFile,
      ran: result.ran,
      skipped: result.skipped,
      aborted: result.aborted,
      stopReason: result.stopReason,
      infrastructureErrors: result.infrastructureErrors,
      repairedTail: result.repairedTail,
      lockTakenOver: result.lockTakenOver,
      elapsedMs: Math.round(result.elapsedMs),
      ...(cache ? { cache: { dir: cache.dir, ...(queued ? {} : cacheStats) } } : {}),
      ...(queueStats ? { queue: queueStats } : {}),
      summary,
    });
  } else {
    if (result.repairedTail) note('dropped a torn last line left by an interrupted run');
    if (result.skipped)
      note(`resumed: ${result.skipped} samples were already recorded, ${result.ran} run now`);
    process.stdout.write(
      formatRunSummary(summary, task.formatReport ? (r) => task.formatReport!(r) : undefined),
    );
    process.stdout.write(`results: ${result.resultsFile}\nsummary: ${result.summaryFile}\n`);
    if (fallback) process.stdout.write(`agent: ${request.solver} (no model configured)\n`);
    if (queueStats)
      process.stdout.write(
        `queue: ${queueStats.queued} queued, ${queueStats.results} results, ${queueStats.duplicates} duplicates, ${queueStats.lost} lost, ${queueStats.failed} failed, ${queueStats.retried} retried after a worker stalled, ${queueStats.refused} results refused\n`,
      );
    if (cache && queued)
      process.stdout.write(`response cache: kept by each queue worker in ${cache.dir} on its machine\n`);
    else if (cache)
      process.stdout.write(
        `response cache: ${cacheStats?.hits ?? 0} hits, ${cacheStats?.misses ?? 0} misses (${cache.dir})\n`,
      );
  }
  const total = spec.size * spec.epochs;
  if (result.stopReason === 'budget') {
    process.stderr.write(
      `budget reached: ${formatDollars(summary.cost?.total ?? 0)} recorded, --max-cost ${formatDollars(maxCost ?? 0)}; ` +
        `${summary.records} of ${total} samples recorded. To go on, rerun the same command with --resume --out ${outDir} and a larger --max-cost\n`,
    );
    process.exitCode = EXIT.runtime;
  } else if (result.stopReason === 'connection') {
    process.stderr.write(
      `${pc.red('error')} [MODEL_UNREACHABLE] stopped: ${maxConnectionFailures} consecutive samples could not reach the model endpoint (--max-connection-failures ${maxConnectionFailures}); ` +
        `${summary.records} of ${total} samples recorded. Check the server at ${request.modelBaseURL}, then rerun with --resume --out ${outDir}\n`,
    );
    process.exitCode = EXIT.runtime;
  } else if (result.stopReason === 'endpoint') {
    // the last error names the fault classes of its attempts (http5xx, invalid-json, …)
    const last = result.endpointError ? ` (last: ${terminalText(result.endpointError)})` : '';
    process.stderr.write(
      `${pc.red('error')} [MODEL_CALL_FAILED] stopped: ${maxEndpointFailures} consecutive samples failed because the model endpoint failed after its retries${last} (--max-endpoint-failures ${maxEndpointFailures}); ` +
        `${summary.records} of ${total} samples recorded. Check the server at ${request.modelBaseURL}, then rerun with --resume --out ${outDir}\n`,
    );
    process.exitCode = EXIT.runtime;
  } else if (result.stopReason === 'signal') {
    process.stderr.write(
      `stopped early: ${summary.records} of ${total} samples recorded; rerun with --resume to finish (--out ${outDir})\n`,
    );
    process.exitCode = EXIT_STOPPED_BY[request.stoppedBy() ?? 'SIGINT'];
  }
  if (result.stopReason === null && result.infrastructureErrors > 0) {
    note(
      `${result.infrastructureErrors} sample(s) failed because the model endpoint failed (recorded as errors, not as predictions); see the "error" field in ${result.resultsFile}`,
    );
    process.exitCode = EXIT.runtime;
  }
}

/** `apiary eval <task>`: flags → recipe and options → `evaluate` → the summary. */
export async function runEvalCommand(taskName: string, flags: EvalFlags): Promise<void> {
  const request = await evalRequest(taskName, flags);
  reportEvalResult(await evaluateRequest(request), request, flags);
}

/** What the registered tasks say for one help text: `task: text` (or the texts alone). */
function tasksHelp(part: 'data' | 'category', named: boolean): string {
  return defaultPluginRegistry
    .list()
    .flatMap((p) => p.tasks ?? [])
    .flatMap((t) => (t.help?.[part] ? [named ? `${t.name}: ${t.help[part]}` : t.help[part]] : []))
    .join(named ? '; ' : ', ');
}

/** The flags of `apiary eval <task>` (shared with nothing else; listed once here). */
function evalOptions(cmd: Command): Command {
  const dataHelp = tasksHelp('data', true);
  const categoryHelp = tasksHelp('category', false);
  const modelFlags = cmd
    .option('--solver <name>', 'solver of the task (apiary tasks lists them; default: the task default)')
    .option('--option <key=value>', 'task or solver option, repeatable (apiary tasks lists them)', collect)
    .option('--epochs <k>', 'run every sample k times (mean ± 95% CI, pass^k)', '1')
    .option('--price-input <usd>', 'dollars per million input tokens (cost per sample and per run)')
    .option('--price-output <usd>', 'dollars per million output tokens')
    .option('--max-cost <usd>', 'stop starting samples once the recorded cost reaches this (exit 3)')
    .option('--data <dir>', `data folder${dataHelp ? ` (${dataHelp})` : ''}`)
    .option(
      '--model <id>',
      'model name, or gguf:PATH for a local GGUF file run in process (or APIARY_MODEL / apiary.config.json)',
    )
    .option('--base-url <url>', 'OpenAI-compatible endpoint ending in /v1 (or APIARY_BASE_URL)')
    .option('--api-key-env <name>', 'environment variable holding the API key')
    .option('--config <file>', 'model config file (default ./apiary.config.json when present)')
    .option('--temperature <t>', 'sampling temperature (default: the task default)')
    .option('--top-p <p>', 'top_p in [0, 1], or omit (default: the task default)')
    .option('--max-tokens <n>', 'max output tokens (default: the task default)');
  return addLocalModelOptions(modelFlags)
    .option('--out <dir>', 'run folder (default .apiary/runs/<task>-<solver>-<model>-<time>, new per run)')
    .option('--concurrency <n>', 'samples in flight', '4')
    .option(
      '--workers <n>',
      'worker threads solving and scoring samples (default 1: in the main thread, which always writes the results)',
      '1',
    )
    .option(
      '--queue <redis-url>',
      'distributed: put the samples on a BullMQ queue on this Redis server for `apiary worker` processes (docs/distributed.md)',
    )
    .option(
      '--rate-limit <n>',
      'with --queue: at most n samples start per --rate-window-ms over all workers (BullMQ global rate limit)',
    )
    .option('--rate-window-ms <ms>', 'window of --rate-limit (default 1000)')
    .option(
      '--queue-secret-file <file>',
      'with --queue: file holding the secret shared with the workers (default: APIARY_QUEUE_SECRET)',
    )
    .option(
      '--insecure-no-auth',
      'with --queue: run without a shared secret (anyone who can write to the Redis server can forge results)',
    )
    .option('--resume', 'continue the run folder (default: the latest run of these settings)')
    .option('--overwrite', 'discard existing results in the run folder')
    .option('--limit <n>', `first N samples of each category${categoryHelp ? ` (${categoryHelp})` : ''}`)
    .option('--seed <n>', 'seed for run order and demo sampling', '0')
    .option('--timeout-ms <ms>', 'per-attempt model timeout (default 120000)')
    .option('--retries <n>', 'retries per model call after the first attempt (default 4)')
    .option('--retry-delay-ms <ms>', 'first retry backoff, doubled per retry (default 1000)')
    .option('--no-endpoint-check', 'skip the request to <base-url>/models made before the run')
    .option(
      '--max-connection-failures <n>',
      'stop after n samples in a row could not reach the model endpoint (exit 3)',
      '5',
    )
    .option(
      '--max-endpoint-failures <n>',
      'stop after n samples in a row failed because the endpoint kept failing (HTTP 5xx, not a completion, error status) after its retries (exit 3)',
      '5',
    )
    .option('--cache [dir]', 'reuse identical model calls from a response cache (default dir: user cache)')
    .option(
      '--plugin <file>',
      'a module exporting a benchmark plugin (default or `plugin` export); its tasks run like the built-in ones (repeatable)',
      collect,
    );
}

/** Each registered task's own flags (its plugin declares them), then --json. */
function taskFlagOptions(cmd: Command): Command {
  for (const { flag } of tasksOwnFlags()) cmd.option(flag.flags, flag.description);
  return cmd.option('--json', 'machine-readable output (no progress display)');
}

/** The registered tasks' names, for the help of `<task>`. */
const taskNames = () =>
  defaultPluginRegistry
    .list()
    .flatMap((p) => (p.tasks ?? []).map((t) => t.name))
    .join(', ') || 'apiary tasks lists them';

export function registerEvalCommands(program: Command): void {
  const evalCmd = taskFlagOptions(
    evalOptions(
      program
        .command('eval')
        .description(
          'run a registered task end to end (resumable JSONL results); `apiary tasks` lists tasks, ' +
            'solvers and options. Without a model a task runs its no-model solver (a no-LLM baseline)',
        )
        .argument('<task>', `task name (${taskNames()}), or all: every task, one report`),
    ),
  ).action((taskName: string, flags: EvalFlags) =>
    taskName === 'all' ? runEvalAll(flags) : runEvalCommand(taskName, flags),
  );

  evalCmd
    .command('report')
    .description('same as `apiary report`: recompute and print the summary of a run from its results.jsonl')
    .argument('<run>', 'run folder (holding results.jsonl) or the results file itself')
    .option('--json', 'machine-readable output')
    .action(async (run: string, flags: { json?: boolean }, cmd: Command) => {
      // `eval` has its own --json, which takes the flag when it comes after `report DIR`
      const json = Boolean(flags.json || cmd.parent?.opts().json);
      await reportRun(run, { json });
    });
}
