import { existsSync, readdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  buildRunSpec,
  createProgressReporter,
  createRunFolder,
  DEFAULT_RUNS_DIR,
  formatDollars,
  formatRunSummary,
  gitRevision,
  latestRunFolder,
  packageVersion,
  progressModeFor,
  resolveQueueAuth,
  runEval,
  runFolderPrefix,
  startQueueCoordinator,
  type TaskRecipe,
} from '../../harness/index.js';
import {
  checkModelEndpoint,
  createResponseCache,
  resolveModelSetup,
  type SamplingSettings,
} from '../../models/index.js';
import { ApiaryError } from '../../shared/index.js';
import {
  getSolver,
  getTask,
  parseOptionAssignments,
  registerBuiltinTasks,
  routeOptions,
  validateOptions,
} from '../../tasks/index.js';
import { parseInteger, parseList, parseNumber, parseOutputPath } from '../options.js';
import { EXIT, printJson } from '../output.js';
import { runEvalAll } from './eval-all.js';
import {
  chooseSolver,
  type LegacyAppBenchFlags,
  mapLegacyAppBenchFlags,
  modelRequiredError,
  parsePrice,
  parseTopPFlag,
} from './eval-settings.js';
import { reportRun } from './report.js';
import { addToolFlags, type ToolFlags, toolSettingsFrom } from './tool-flags.js';

/** Flags that configure GTA's executable tools (only the gta task reads them). */
const TOOL_FLAG_NAMES: ReadonlyArray<[keyof ToolFlags, string]> = [
  ['searchCorpus', '--search-corpus'],
  ['searchProvider', '--search-provider'],
  ['visionBaseUrl', '--vision-base-url'],
  ['visionModel', '--vision-model'],
  ['imageBaseUrl', '--image-base-url'],
  ['imageModel', '--image-model'],
  ['embeddingsBaseUrl', '--embeddings-base-url'],
  ['embeddingsModel', '--embeddings-model'],
  ['record', '--record'],
  ['replay', '--replay'],
  ['recordMissing', '--record-missing'],
];

export interface EvalFlags extends LegacyAppBenchFlags, ToolFlags {
  /** GTA: step | e2e (the task option `mode`). */
  mode?: string;
  /** ShortcutsBench: comma-separated levels (the task option `levels`). */
  levels?: string;
  /** ShortcutsBench: a folder of the user's shortcuts (the task option `shortcuts`). */
  shortcuts?: string;
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
  json?: boolean;
  /** Internal (`eval all`): print nothing to stdout; the caller prints one result for every task. */
  noStdout?: boolean;
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

/** Exit status of a run stopped by Ctrl-C (128 + SIGINT). */
const EXIT_INTERRUPTED = 130;

export async function runEvalCommand(taskName: string, flags: EvalFlags): Promise<void> {
  registerBuiltinTasks();
  const def = getTask(taskName);
  if (flags.resume && flags.overwrite)
    throw new ApiaryError('USAGE', '--resume and --overwrite exclude each other');
  const legacy = mapLegacyAppBenchFlags(def.name, flags);
  if (flags.levels !== undefined && def.name !== 'shortcuts')
    throw new ApiaryError(
      'USAGE',
      `--levels is a shortcuts flag; for ${def.name} use --option key=value (see apiary tasks)`,
    );
  if (flags.shortcuts !== undefined && def.name !== 'shortcuts')
    throw new ApiaryError('USAGE', `--shortcuts is a flag of the shortcuts task, not of ${def.name}`);
  if (flags.mode !== undefined && def.name !== 'gta')
    throw new ApiaryError('USAGE', `--mode is a flag of the gta task, not of ${def.name}`);
  const toolFlag = TOOL_FLAG_NAMES.find(([k]) => flags[k] !== undefined);
  if (toolFlag && def.name !== 'gta')
    throw new ApiaryError(
      'USAGE',
      `${toolFlag[1]} configures GTA's tools: a flag of the gta task, not of ${def.name}`,
    );
  const tools = def.name === 'gta' ? toolSettingsFrom(flags) : undefined;
  const levels = {
    ...(flags.mode === undefined ? {} : { mode: flags.mode }),
    ...(flags.levels === undefined
      ? {}
      : { levels: parseList('--levels', flags.levels, ['1', '2', '3', '4']).map(Number) }),
    ...(flags.shortcuts === undefined ? {} : { shortcuts: resolve(flags.shortcuts) }),
  };
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
    sampling: flagSampling,
    ...(def.sampling ? { defaults: def.sampling } : {}),
  });
  const { solver: solverName, fallback } = chooseSolver(def, {
    ...(flags.solver ? { solver: flags.solver } : {}),
    ...(legacy.prompting ? { prompting: legacy.prompting } : {}),
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

  // Options: today's AppBench flags first, then --option key=value.
  const routed = routeOptions(def, solverName, parseOptionAssignments(flags.option ?? []));
  const solverUsesLegacy = (k: string) => k in solver.options.shape;
  const legacySolverOptions = Object.fromEntries(
    Object.entries(legacy.solverOptions).filter(([k]) => model && solverUsesLegacy(k)),
  );
  const taskOptions = validateOptions(
    def.options,
    { ...legacy.taskOptions, ...levels, ...routed.task },
    def.name,
  );
  const solverOptions = validateOptions(
    solver.options,
    { ...legacySolverOptions, ...routed.solver },
    `${def.name} solver ${solverName}`,
  );

  // A dead endpoint stops here, with its URL and the cause, before any data is loaded or written.
  if (model && flags.endpointCheck !== false)
    await checkModelEndpoint({
      baseURL: model.baseURL,
      modelId: model.modelId,
      ...(model.apiKey ? { apiKey: model.apiKey } : {}),
    });

  const cache =
    model && flags.cache
      ? createResponseCache(typeof flags.cache === 'string' ? { dir: resolve(flags.cache) } : {})
      : undefined;
  const prefix = runFolderPrefix(def.name, solverName, model?.modelId ?? null);
  const runsDir = resolve(DEFAULT_RUNS_DIR);
  let outDir: string;
  if (flags.out) outDir = resolve(flags.out);
  else if (flags.resume) {
    const latest = latestRunFolder(runsDir, prefix);
    if (!latest)
      throw new ApiaryError(
        'USAGE',
        `nothing to resume: no earlier run ${prefix}-* in ${runsDir}; pass --out DIR to name the run folder`,
      );
    outDir = latest;
  } else outDir = createRunFolder(runsDir, prefix, new Date());
  const createdNow = !flags.out && !flags.resume;
  const ac = new AbortController();
  // the run folder is known before loading: tasks keep their artefacts in it (GTA's tool images)
  const loading = def.load({
    options: taskOptions,
    solver: solverName,
    solverOptions,
    ...(model ? { model: cache ? cache.wrap(model.model) : model.model } : {}),
    sampling: model ? model.sampling : (def.sampling ?? {}),
    ...(flags.data ? { dataDir: flags.data } : {}),
    seed,
    ...(limit !== undefined ? { limit } : {}),
    modelCalls,
    signal: ac.signal,
    runDir: outDir,
    ...(tools ? { tools } : {}),
  });
  let loaded: Awaited<typeof loading>;
  try {
    loaded = await loading;
  } catch (error) {
    // a task that cannot load leaves no empty run folder behind
    if (createdNow && existsSync(outDir) && readdirSync(outDir).length === 0)
      rmSync(outDir, { recursive: true });
    throw error;
  }
  const { task } = loaded;
  for (const n of loaded.notes ?? []) note(n);
  const spec = buildRunSpec(
    {
      task: { name: def.name, version: task.version, options: taskOptions },
      solver: { name: solverName, options: solverOptions },
      model: model ? { id: model.modelId, baseUrl: model.baseURL } : null,
      sampling: model
        ? {
            temperature: model.sampling.temperature ?? null,
            topP: model.sampling.topP ?? null,
            maxOutputTokens: model.sampling.maxOutputTokens ?? null,
          }
        : null,
      data: loaded.dataSource,
      limit: limit ?? null,
      size: task.dataset.length,
      seed,
      epochs,
      concurrency,
      price,
    },
    { now: () => new Date(), gitRevision, packageVersion },
  );

  const outFile = resolve(outDir, 'results.jsonl');
  note(`results: ${outFile}${flags.resume ? ' (resuming)' : ''}`);

  // what a worker thread or a queue worker needs to load the same task, solver and model again
  const recipe: TaskRecipe = {
    task: def.name,
    taskOptions,
    solver: solverName,
    solverOptions,
    model: model
      ? {
          kind: 'endpoint' as const,
          baseURL: model.baseURL,
          modelId: model.modelId,
          ...(model.apiKey ? { apiKey: model.apiKey } : {}),
          ...(cache ? { cacheDir: cache.dir } : {}),
        }
      : null,
    sampling: model ? model.sampling : (def.sampling ?? {}),
    ...(flags.data ? { dataDir: resolve(flags.data) } : {}),
    seed,
    ...(limit !== undefined ? { limit } : {}),
    modelCalls,
    runDir: outDir,
    ...(tools ? { tools } : {}),
  };
  const coordinator = flags.queue
    ? await startQueueCoordinator({
        url: flags.queue,
        auth: queueAuth!,
        recipe,
        data: loaded.dataSource,
        ...(rateLimit ? { rateLimit } : {}),
        onNote: (n) => process.stderr.write(`${n}\n`),
      })
    : null;
  if (coordinator)
    note(
      `queue: ${coordinator.queueName} on ${flags.queue}; start workers with: apiary worker --queue ${flags.queue}`,
    );

  const onSigint = () => {
    if (ac.signal.aborted) process.exit(EXIT_INTERRUPTED); // the lock is removed on exit
    process.stderr.write('\ninterrupted: finishing the samples in flight (Ctrl-C again to quit now)\n');
    ac.abort();
  };
  process.on('SIGINT', onSigint);
  const reporter = createProgressReporter({
    label: def.name,
    mode: progressModeFor(process.stderr, Boolean(flags.json)),
  });
  let result: Awaited<ReturnType<typeof runEval>>;
  try {
    result = await runEval({
      task,
      spec,
      // with --queue every missing sample goes on the queue at once; the workers' --concurrency bounds the work
      concurrency: coordinator ? Number.POSITIVE_INFINITY : concurrency,
      outFile,
      resume: Boolean(flags.resume),
      overwrite: Boolean(flags.overwrite),
      onProgress: (p) => reporter.update(p),
      signal: ac.signal,
      maxConsecutiveConnectionFailures: maxConnectionFailures,
      ...(coordinator ? { pool: coordinator } : workers > 1 ? { workers, recipe } : {}),
      ...(maxCost !== undefined ? { maxCost } : {}),
      metrics: def.metrics,
      ...(def.passed ? { passed: def.passed } : {}),
    });
  } finally {
    reporter.stop();
    process.off('SIGINT', onSigint);
    await coordinator?.close();
    await loaded.dispose?.();
  }
  const queueStats = coordinator?.stats();
  const { summary } = result;
  const finalNotes = loaded.finalNotes?.() ?? [];
  // with worker threads the tasks that ran the samples live in the workers: this thread's counts are 0
  if (workers > 1 && finalNotes.length)
    note('tool recording: with --workers each worker thread keeps its own counts (not shown)');
  else for (const n of finalNotes) note(n);
  // with worker threads the cache lives in each worker: their counts replace this thread's (all 0)
  const cacheStats = result.workerCacheStats ?? cache?.stats;
  if (result.lockTakenOver)
    note(
      `note: took over a stale lock of pid ${result.lockTakenOver.pid} (started ${result.lockTakenOver.startedAt}; that process is gone)`,
    );
  if (flags.noStdout) {
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
      ...(cache ? { cache: { dir: cache.dir, ...(coordinator ? {} : cacheStats) } } : {}),
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
    if (fallback) process.stdout.write(`agent: ${solverName} (no model configured)\n`);
    if (queueStats)
      process.stdout.write(
        `queue: ${queueStats.queued} queued, ${queueStats.results} results, ${queueStats.duplicates} duplicates, ${queueStats.lost} lost, ${queueStats.failed} failed, ${queueStats.retried} retried after a worker stalled, ${queueStats.refused} results refused\n`,
      );
    if (cache && coordinator)
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
      `stopped: ${maxConnectionFailures} consecutive samples could not reach the model endpoint (--max-connection-failures ${maxConnectionFailures}); ` +
        `${summary.records} of ${total} samples recorded. Check the server at ${model?.baseURL}, then rerun with --resume --out ${outDir}\n`,
    );
    process.exitCode = EXIT.runtime;
  } else if (result.stopReason === 'signal') {
    process.stderr.write(
      `stopped early: ${summary.records} of ${total} samples recorded; rerun with --resume to finish (--out ${outDir})\n`,
    );
    process.exitCode = EXIT_INTERRUPTED;
  }
  if (result.stopReason === null && result.infrastructureErrors > 0) {
    note(
      `${result.infrastructureErrors} sample(s) failed because the model endpoint failed (recorded as errors, not as predictions); see the "error" field in ${result.resultsFile}`,
    );
    process.exitCode = EXIT.runtime;
  }
}

/** The flags of `apiary eval <task>` (shared with nothing else; listed once here). */
function evalOptions(cmd: Command): Command {
  return cmd
    .option('--solver <name>', 'solver of the task (apiary tasks lists them; default: the task default)')
    .option('--option <key=value>', 'task or solver option, repeatable (apiary tasks lists them)', collect)
    .option('--epochs <k>', 'run every sample k times (mean ± 95% CI, pass^k)', '1')
    .option('--price-input <usd>', 'dollars per million input tokens (cost per sample and per run)')
    .option('--price-output <usd>', 'dollars per million output tokens')
    .option('--max-cost <usd>', 'stop starting samples once the recorded cost reaches this (exit 3)')
    .option(
      '--data <dir>',
      'data folder (appbench: test_*.json or dev_*.json; toolbench-retrieval: the data root; gta: dataset.json + image/)',
    )
    .option('--model <id>', 'model name (or APIARY_MODEL / apiary.config.json)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint ending in /v1 (or APIARY_BASE_URL)')
    .option('--api-key-env <name>', 'environment variable holding the API key')
    .option('--config <file>', 'model config file (default ./apiary.config.json when present)')
    .option('--temperature <t>', 'sampling temperature (default: the task default)')
    .option('--top-p <p>', 'top_p in [0, 1], or omit (default: the task default)')
    .option('--max-tokens <n>', 'max output tokens (default: the task default)')
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
    .option('--limit <n>', 'first N samples of each category (AppBench category, ToolBench query file)')
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
    .option('--cache [dir]', 'reuse identical model calls from a response cache (default dir: user cache)')
    .option('--prompting <mode>', 'appbench: flat | hierarchical (same as --solver when a model is set)')
    .option('--shots <k>', 'appbench: k demonstrations (same as --option shots=k)')
    .option('--demos <how>', 'appbench: same-app | random (same as --option demos=…)')
    .option('--categories <list>', 'appbench: comma-separated subset of ss,sm,ms,mm')
    .option(
      '--levels <list>',
      'shortcuts: comma-separated subset of the levels 1,2,3,4 (same as --option levels=…)',
    )
    .option(
      '--shortcuts <folder>',
      'shortcuts: your own .shortcut/.plist files, each with NAME.query.txt (--data then only needs the two API files)',
    )
    .option('--mode <mode>', 'gta: step (gold history, dummy tools) | e2e (the real tools; default)')
    .option('--json', 'machine-readable output (no progress display)');
}

export function registerEvalCommands(program: Command): void {
  const evalCmd = addToolFlags(
    evalOptions(
      program
        .command('eval')
        .description(
          'run a registered task end to end (resumable JSONL results); `apiary tasks` lists tasks, ' +
            'solvers and options. AppBench without a model runs the no-LLM baseline',
        )
        .argument('<task>', 'task name (appbench, toolbench-retrieval, …), or all: every task, one report'),
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
