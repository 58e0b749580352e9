import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { costOf, ZERO_USAGE } from '../models/index.js';
import { ApiaryError, redactSecrets } from '../shared/index.js';
import type { Task, TaskSample } from '../tasks/index.js';
import { headerLine, ResultsWriter, readResultsFile, type SampleLine } from './results-file.js';
import { acquireRunLock, type RunLock, type RunLockDeps, type RunLockHolder } from './run-lock.js';
import { formatSpecConflicts, type RunSpec, runSpecConflicts } from './run-spec.js';
import { type SampleRun, solveAndScore, type TaskRecipe } from './sample-runner.js';
import { seededShuffle } from './seeded-random.js';
import { type RunSummary, type SummaryMetrics, summarizeResults } from './summary.js';
import { type SampleWorkerPool, startSampleWorkers } from './worker-pool.js';

export interface EvalProgress {
  /** Records (sample × epoch) finished so far, counting those already in the file when resuming. */
  done: number;
  /** Samples × epochs. */
  total: number;
  /** Records found finished in the file at start (resume). */
  skipped: number;
  /** Samples recorded with an error, this invocation. */
  errors: number;
  elapsedMs: number;
  /** Samples per second finished by this invocation. */
  rate: number;
  /** Estimated time left, null until a rate is known. */
  etaMs: number | null;
  /** The sample just finished (absent on the initial event). */
  last?: { id: string; epoch: number; error: string | null };
  /** Dollars recorded in the whole file so far, when the run has a price. */
  cost?: number;
}

export interface RunEvalDeps {
  now: () => Date;
  /** Monotonic milliseconds, for durations. */
  monotonic: () => number;
}

export interface RunEvalOptions<S extends TaskSample, O, Sc, R> extends SummaryMetrics {
  task: Task<S, O, Sc, R>;
  /** Samples to run (default: the whole task dataset), in dataset order. */
  samples?: readonly S[];
  /** The run's spec, written as the header of a new results file and checked on resume. */
  spec: RunSpec;
  /** Samples solved at once (default 4). */
  concurrency?: number;
  /** Results JSONL path; `summary.json` is written beside it. */
  outFile: string;
  /** Continue an existing results file: skip the (id, epoch) pairs it holds, run the rest. */
  resume?: boolean;
  /** Replace an existing results file instead of refusing. */
  overwrite?: boolean;
  /** Run samples in a seeded shuffled order (spec.seed); default true. */
  shuffle?: boolean;
  onProgress?: (p: EvalProgress) => void;
  /** Stops starting new samples; samples cut short by the abort are not recorded (a resume reruns them). */
  signal?: AbortSignal;
  /**
   * Dollar budget (needs `spec.price`): once the cost recorded in the file reaches it, no new
   * sample starts; those in flight finish and are recorded.
   */
  maxCost?: number;
  /**
   * Stop starting samples after this many samples in a row failed to reach the model endpoint
   * (connection errors or timeouts on every attempt); default: never stop.
   */
  maxConsecutiveConnectionFailures?: number;
  /**
   * Stop starting samples after this many samples in a row failed because the model endpoint failed
   * after every retry (HTTP 5xx, a reply that is not a completion, an error status, or no answer) and
   * at least one of them got an answer (a streak of connection failures alone is
   * `maxConsecutiveConnectionFailures`'s to judge); default: never stop.
   */
  maxConsecutiveEndpointFailures?: number;
  /**
   * Worker threads solving and scoring samples (default 1: in this thread). With more, each
   * worker rebuilds the task from `recipe`; this thread stays the only writer of the run folder.
   */
  workers?: number;
  /** How a worker rebuilds the task (registry name, options, solver, model); needed with `workers` > 1. */
  recipe?: TaskRecipe;
  /**
   * Workers already started (`startSampleWorkers`) for this task, used instead of `workers`: several
   * runs share one pool (its start-up paid once); the caller closes it.
   */
  pool?: SampleWorkerPool;
  /** Lock the run folder while writing (default on; deps for tests). */
  lock?: boolean | Partial<RunLockDeps>;
  /** Clocks of the records' `startedAt`/`durationMs` (worker threads time their samples with their own). */
  deps?: Partial<RunEvalDeps>;
}

export interface RunEvalResult<R> {
  summary: RunSummary & { report: R };
  resultsFile: string;
  summaryFile: string;
  /** Records (sample × epoch) run and recorded by this invocation. */
  ran: number;
  /** Records found already finished (resume). */
  skipped: number;
  /** The run was aborted before every record finished. */
  aborted: boolean;
  /**
   * Why the run ended before every record finished: Ctrl-C (`signal`), `--max-cost` (`budget`),
   * too many consecutive connection failures (`connection`) or endpoint failures (`endpoint`).
   */
  stopReason: 'signal' | 'budget' | 'connection' | 'endpoint' | null;
  /** With stopReason `endpoint`: the error recorded for the last sample of the streak. */
  endpointError?: string;
  /** Samples of this invocation recorded with an infrastructure error (the model endpoint failed). */
  infrastructureErrors: number;
  /** A torn last line from a killed run was dropped. */
  repairedTail: boolean;
  /** The holder of a stale lock (its process was gone) that this run took over. */
  lockTakenOver: RunLockHolder | null;
  elapsedMs: number;
  /** Response-cache counts of the worker threads (with `workers` > 1 and a cached model). */
  workerCacheStats?: { hits: number; misses: number; writes: number };
}

const defaultDeps: RunEvalDeps = { now: () => new Date(), monotonic: () => performance.now() };

const pairKey = (id: string, epoch: number) => `${epoch}\u0000${id}`;

/**
 * Runs a task over its samples, `spec.epochs` times each, with bounded concurrency. Each finished
 * sample is appended to the results file at once (one JSON line, written before the next progress
 * event), so a killed run loses at most the samples in flight; `resume` continues such a file. A
 * sample whose solver throws is recorded with its error and scored as such; the run goes on. The
 * run folder is locked while this runs. The summary is recomputed from every record of the file
 * and written to `summary.json` beside it.
 */
export async function runEval<S extends TaskSample, O, Sc, R>(
  opts: RunEvalOptions<S, O, Sc, R>,
): Promise<RunEvalResult<R>> {
  const deps = { ...defaultDeps, ...opts.deps };
  const { spec, outFile } = opts;
  if (opts.maxCost !== undefined && !spec.price)
    throw new ApiaryError(
      'USAGE',
      'a cost budget (--max-cost) needs a price (--price-input, --price-output)',
    );
  const workers = Math.max(1, Math.floor(opts.workers ?? 1));
  if (workers > 1 && !opts.recipe && !opts.pool)
    throw new ApiaryError(
      'USAGE',
      `--workers ${workers}: task "${opts.task.name}" cannot be rebuilt in worker threads (it was built in memory, not loaded from the task registry); run with --workers 1`,
    );
  mkdirSync(dirname(outFile), { recursive: true });
  const lock: RunLock | null =
    opts.lock === false
      ? null
      : acquireRunLock(dirname(outFile), typeof opts.lock === 'object' ? opts.lock : {});
  try {
    return await runLocked(opts, deps, lock?.tookOver ?? null);
  } finally {
    lock?.release();
  }
}

async function runLocked<S extends TaskSample, O, Sc, R>(
  opts: RunEvalOptions<S, O, Sc, R>,
  deps: RunEvalDeps,
  lockTakenOver: RunLockHolder | null,
): Promise<RunEvalResult<R>> {
  const { task, spec, outFile } = opts;
  const samples = opts.samples ?? task.dataset;
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 4));

  // 1. Open the results file: new, overwritten, or resumed.
  const existing = opts.overwrite ? null : readResultsFile(outFile);
  const hasContent = existing !== null && (existing.header !== null || existing.truncatedTail);
  if (hasContent && !opts.resume)
    throw new ApiaryError(
      'USAGE',
      `${outFile} already holds results; pass --resume to continue it or --overwrite to start again`,
    );
  if (existing?.header && existing.specVersion !== spec.version)
    throw new ApiaryError(
      'USAGE',
      `cannot resume ${outFile}: it was written with run spec v${existing.specVersion} (this is v${spec.version}); ` +
        '`apiary report` can still read it; start again with --overwrite or another --out',
    );
  let writer: ResultsWriter;
  const finished = new Set<string>();
  /** Every record of the file, kept in memory so the summary needs no re-read. */
  const recorded: SampleLine[] = existing?.header ? [...existing.samples] : [];
  const header = existing?.header ?? headerLine(spec);
  let repairedTail = false;
  if (existing?.header) {
    const conflicts = runSpecConflicts(existing.header.spec, spec);
    if (conflicts.length)
      throw new ApiaryError(
        'USAGE',
        `cannot resume ${outFile}: it was run with different settings (${formatSpecConflicts(conflicts)})`,
      );
    for (const s of existing.samples) finished.add(pairKey(s.id, s.epoch));
    repairedTail = existing.truncatedTail;
    writer = ResultsWriter.open(outFile, existing.validBytes, existing.blobs);
  } else {
    // Nothing usable (missing, empty, torn header, or --overwrite): start a fresh file.
    if (existsSync(outFile)) repairedTail = existing?.truncatedTail ?? false;
    writer = ResultsWriter.open(outFile, 0);
    writer.append(header);
  }

  // 2. Run what is left: epoch by epoch, samples in a seeded order.
  const epochs = spec.epochs;
  const order = opts.shuffle === false ? [...samples] : seededShuffle(samples, spec.seed);
  const todo: Array<{ sample: S; epoch: number }> = [];
  for (let epoch = 1; epoch <= epochs; epoch++)
    for (const sample of order) if (!finished.has(pairKey(sample.id, epoch))) todo.push({ sample, epoch });
  const total = samples.length * epochs;
  const skipped = total - todo.length;
  const price = spec.price;
  const tokens = { inputTokens: 0, outputTokens: 0 };
  for (const l of recorded) {
    tokens.inputTokens += l.usage?.inputTokens ?? 0;
    tokens.outputTokens += l.usage?.outputTokens ?? 0;
  }
  const costSoFar = () => (price ? costOf(tokens, price) : 0);
  const overBudget = () => opts.maxCost !== undefined && costSoFar() >= opts.maxCost;
  let budgetReached = overBudget();
  const t0 = deps.monotonic();
  let ran = 0;
  let errors = 0;
  let infrastructureErrors = 0;
  let consecutiveConnectionFailures = 0;
  let consecutiveEndpointFailures = 0;
  let endpointDown: 'connection' | 'endpoint' | null = null;
  let endpointError: string | undefined;
  const progress = (last?: EvalProgress['last']): void => {
    if (!opts.onProgress) return;
    const elapsedMs = deps.monotonic() - t0;
    const rate = elapsedMs > 0 ? (ran * 1000) / elapsedMs : 0;
    const left = todo.length - ran;
    opts.onProgress({
      done: skipped + ran,
      total,
      skipped,
      errors,
      elapsedMs,
      rate,
      etaMs: ran > 0 && rate > 0 ? (left / rate) * 1000 : null,
      ...(last ? { last } : {}),
      ...(price ? { cost: costSoFar() } : {}),
    });
  };
  progress();

  // Worker threads, when asked for: started once the results file is open (a resume check that
  // refuses must not pay for them), stopped before the summary.
  let pool: SampleWorkerPool | null = opts.pool ?? null;
  const ownPool = !opts.pool;
  if (!pool && opts.workers !== undefined && opts.workers > 1 && todo.length > 0) {
    try {
      pool = await startSampleWorkers(opts.recipe!, Math.min(Math.floor(opts.workers), todo.length));
    } catch (error) {
      writer.close();
      throw error;
    }
  }
  const signal = opts.signal;
  let workerFailure: unknown = null;
  /** After a finished sample's line is in the file: the counts, the budget and the progress. */
  const recordedLine = (line: SampleLine): void => {
    // the summary reads no outputs nor events: dropping them here lets traces die young (less GC)
    recorded.push({ ...line, output: null, ...(line.events ? { events: [] } : {}) });
    tokens.inputTokens += line.usage?.inputTokens ?? 0;
    tokens.outputTokens += line.usage?.outputTokens ?? 0;
    if (overBudget()) budgetReached = true;
    ran++;
    if (line.error !== null) errors++;
    progress({ id: line.id, epoch: line.epoch, error: line.error });
  };
  const countFailures = (
    run: { infrastructureFailure: boolean; connectionFailure: boolean },
    error: string | null,
  ): void => {
    if (run.infrastructureFailure) infrastructureErrors++;
    consecutiveConnectionFailures = run.connectionFailure ? consecutiveConnectionFailures + 1 : 0;
    consecutiveEndpointFailures = run.infrastructureFailure ? consecutiveEndpointFailures + 1 : 0;
    if (endpointDown) return;
    if (
      opts.maxConsecutiveConnectionFailures !== undefined &&
      consecutiveConnectionFailures >= opts.maxConsecutiveConnectionFailures
    )
      endpointDown = 'connection';
    // connection failures are a subset: a streak of them alone is the connection limit's to judge
    else if (
      opts.maxConsecutiveEndpointFailures !== undefined &&
      consecutiveEndpointFailures >= opts.maxConsecutiveEndpointFailures &&
      consecutiveEndpointFailures > consecutiveConnectionFailures
    ) {
      endpointDown = 'endpoint';
      endpointError = error ?? undefined;
    }
  };
  let workerCacheStats: RunEvalResult<R>['workerCacheStats'];
  let failure: { reason: unknown } | undefined;
  try {
    if (pool?.stream) failure = await streamThroughPool(pool.stream.bind(pool));
    else failure = (await runOneByOne()).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  } finally {
    writer.close();
    if (pool && ownPool) workerCacheStats = await pool.close();
  }
  if (failure) throw failure.reason;
  if (workerFailure) throw workerFailure;

  /**
   * Worker threads with a local queue each: they serialise the lines, this thread writes each
   * batch as it comes (a sample is done once its line is written) and decides when to stop.
   */
  async function streamThroughPool(
    stream: NonNullable<SampleWorkerPool['stream']>,
  ): Promise<{ reason: unknown } | undefined> {
    if (signal?.aborted || budgetReached || endpointDown) return undefined;
    const run = stream({
      jobs: todo.map((t) => ({ id: t.sample.id, epoch: t.epoch })),
      seed: spec.seed,
      concurrency,
      ...(price ? { price } : {}),
      onLines(lines, blobText) {
        writer.appendSerialized(lines, blobText);
        for (const l of lines) {
          countFailures(l, l.record.error);
          recordedLine(l.record);
        }
        if (budgetReached || endpointDown) run.stop();
      },
    });
    const onAbort = () => {
      run.stop();
      pool?.abort();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await run.done;
      return undefined;
    } catch (error) {
      // a dead worker: what it held is not recorded (a resume reruns it), the others' lines are
      if (error instanceof ApiaryError && error.code === 'WORKER_FAILED') {
        workerFailure = error;
        return undefined;
      }
      return { reason: error };
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** In this thread, or through a pool that takes one sample at a time (`--queue`). */
  async function runOneByOne(): Promise<Array<PromiseSettledResult<void>>> {
    const limit = pLimit(concurrency);
    const onAbort = () => pool?.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const solve = (sample: S, epoch: number): Promise<SampleRun<O, Sc> | null> =>
      pool
        ? (pool.run(sample.id, epoch, spec.seed) as Promise<SampleRun<O, Sc> | null>)
        : solveAndScore<S, O, Sc>(task, sample, { seed: spec.seed, epoch, ...(signal ? { signal } : {}) });
    const runOne = async (sample: S, epoch: number): Promise<void> => {
      // queued samples drain at once after an abort, once the budget is spent or a worker died
      if (signal?.aborted || budgetReached || endpointDown || workerFailure) return;
      const startedAt = deps.now().toISOString();
      const start = deps.monotonic();
      let run: SampleRun<O, Sc> | null;
      try {
        run = await solve(sample, epoch);
      } catch (error) {
        // a dead worker: its samples are not recorded (a resume reruns them), the others finish
        if (pool && error instanceof ApiaryError && error.code === 'WORKER_FAILED') {
          workerFailure ??= error;
          return;
        }
        throw error;
      }
      if (run === null) return; // cut short by the abort: leave it for a resume
      countFailures(run, run.error);
      const durationMs = deps.monotonic() - start;
      const { error, usage } = run;
      const line: SampleLine = {
        type: 'sample',
        id: sample.id,
        epoch,
        category: sample.category ?? null,
        output: run.output,
        error,
        usage,
        ...(price ? { cost: costOf(usage ?? ZERO_USAGE, price) } : {}),
        modelCalls: run.modelCalls,
        startedAt,
        durationMs: Math.round(durationMs * 1000) / 1000,
        score: run.score,
        // a queue worker of a version before events sends none
        ...(run.events ? { events: run.events } : {}),
      };
      await writer.appendBatched(line);
      recordedLine(line);
    };
    // allSettled: a failing write must not close the file under the samples still in flight.
    try {
      return await Promise.allSettled(todo.map((t) => limit(() => runOne(t.sample, t.epoch))));
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
  const elapsedMs = deps.monotonic() - t0;

  // 3. Summary from every record of the file (those read at start and those appended since).
  const summary = summarizeResults(
    task,
    {
      header,
      specVersion: spec.version,
      samples: recorded,
      validBytes: 0,
      truncatedTail: false,
      blobs: new Set(),
      recordedBeforeEvents: 0,
    },
    outFile,
    { ...(opts.metrics ? { metrics: opts.metrics } : {}), ...(opts.passed ? { passed: opts.passed } : {}) },
  ) as RunSummary & { report: R };
  const summaryFile = join(dirname(outFile), 'summary.json');
  // error texts in the summary came from endpoints and tools: no key lands in the file
  writeFileSync(summaryFile, `${redactSecrets(JSON.stringify(summary, null, 2))}\n`);
  const incomplete = skipped + ran < total;
  const aborted = signal?.aborted === true && incomplete;
  return {
    summary,
    resultsFile: outFile,
    summaryFile,
    ran,
    skipped,
    aborted,
    stopReason: !incomplete
      ? null
      : budgetReached
        ? 'budget'
        : endpointDown
          ? endpointDown
          : aborted
            ? 'signal'
            : null,
    infrastructureErrors,
    ...(endpointDown === 'endpoint' && endpointError ? { endpointError } : {}),
    repairedTail,
    lockTakenOver,
    elapsedMs,
    ...(workerCacheStats ? { workerCacheStats } : {}),
  };
}
