import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { ApiaryError } from '../shared/index.js';
import type { Outcome, Solved, Task, TaskSample } from '../tasks/index.js';
import { headerLine, ResultsWriter, readResultsFile, type SampleLine } from './results-file.js';
import { type RunSpec, runSpecConflicts } from './run-spec.js';
import { seededShuffle } from './seeded-random.js';
import { type RunSummary, summarizeResults } from './summary.js';

export interface EvalProgress {
  /** Samples finished so far, counting those already in the file when resuming. */
  done: number;
  total: number;
  /** Samples found finished in the file at start (resume). */
  skipped: number;
  /** Samples recorded with an error, this invocation. */
  errors: number;
  elapsedMs: number;
  /** Samples per second finished by this invocation. */
  rate: number;
  /** Estimated time left, null until a rate is known. */
  etaMs: number | null;
  /** The sample just finished (absent on the initial event). */
  last?: { id: string; error: string | null };
}

export interface RunEvalDeps {
  now: () => Date;
  /** Monotonic milliseconds, for durations. */
  monotonic: () => number;
}

export interface RunEvalOptions<S extends TaskSample, O, Sc, R> {
  task: Task<S, O, Sc, R>;
  /** Samples to run (default: the whole task dataset), in dataset order. */
  samples?: readonly S[];
  /** The run's spec, written as the header of a new results file and checked on resume. */
  spec: RunSpec;
  /** Samples solved at once (default 4). */
  concurrency?: number;
  /** Results JSONL path; `summary.json` is written beside it. */
  outFile: string;
  /** Continue an existing results file: skip the ids it holds, run the rest. */
  resume?: boolean;
  /** Replace an existing results file instead of refusing. */
  overwrite?: boolean;
  /** Run samples in a seeded shuffled order (spec.seed); default true. */
  shuffle?: boolean;
  onProgress?: (p: EvalProgress) => void;
  /** Stops starting new samples; samples cut short by the abort are not recorded (a resume reruns them). */
  signal?: AbortSignal;
  deps?: Partial<RunEvalDeps>;
}

export interface RunEvalResult<R> {
  summary: RunSummary & { report: R };
  resultsFile: string;
  summaryFile: string;
  /** Samples run and recorded by this invocation. */
  ran: number;
  /** Samples found already finished (resume). */
  skipped: number;
  /** The run was aborted before every sample finished. */
  aborted: boolean;
  /** A torn last line from a killed run was dropped. */
  repairedTail: boolean;
  elapsedMs: number;
}

const defaultDeps: RunEvalDeps = { now: () => new Date(), monotonic: () => performance.now() };

function errorMessage(error: unknown): string {
  if (error instanceof ApiaryError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * Runs a task over its samples with bounded concurrency. Each finished sample is appended to the
 * results file at once (one JSON line, written before the next progress event), so a killed run
 * loses at most the samples in flight; `resume` continues such a file. A sample whose solver throws
 * is recorded with its error and scored as such; the run goes on. The summary is recomputed from
 * every record of the file and written to `summary.json` beside it.
 */
export async function runEval<S extends TaskSample, O, Sc, R>(
  opts: RunEvalOptions<S, O, Sc, R>,
): Promise<RunEvalResult<R>> {
  const deps = { ...defaultDeps, ...opts.deps };
  const { task, spec, outFile } = opts;
  const samples = opts.samples ?? task.dataset;
  const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 4));
  mkdirSync(dirname(outFile), { recursive: true });

  // 1. Open the results file: new, overwritten, or resumed.
  const existing = opts.overwrite ? null : readResultsFile(outFile);
  const hasContent = existing !== null && (existing.header !== null || existing.truncatedTail);
  if (hasContent && !opts.resume)
    throw new ApiaryError(
      'USAGE',
      `${outFile} already holds results; pass --resume to continue it or --overwrite to start again`,
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
        `cannot resume ${outFile}: it was run with different settings (${conflicts
          .map((c) => `${c.field}: ${JSON.stringify(c.recorded)} there, ${JSON.stringify(c.requested)} now`)
          .join('; ')})`,
      );
    for (const s of existing.samples) finished.add(s.id);
    repairedTail = existing.truncatedTail;
    writer = ResultsWriter.open(outFile, existing.validBytes);
  } else {
    // Nothing usable (missing, empty, torn header, or --overwrite): start a fresh file.
    if (existsSync(outFile)) repairedTail = existing?.truncatedTail ?? false;
    writer = ResultsWriter.open(outFile, 0);
    writer.append(header);
  }

  // 2. Run what is left.
  const todo = samples.filter((s) => !finished.has(s.id));
  const skipped = samples.length - todo.length;
  const order = opts.shuffle === false ? todo : seededShuffle(todo, spec.seed);
  const t0 = deps.monotonic();
  let ran = 0;
  let errors = 0;
  const progress = (last?: EvalProgress['last']): void => {
    if (!opts.onProgress) return;
    const elapsedMs = deps.monotonic() - t0;
    const rate = elapsedMs > 0 ? (ran * 1000) / elapsedMs : 0;
    const left = todo.length - ran;
    opts.onProgress({
      done: skipped + ran,
      total: samples.length,
      skipped,
      errors,
      elapsedMs,
      rate,
      etaMs: ran > 0 && rate > 0 ? (left / rate) * 1000 : null,
      ...(last ? { last } : {}),
    });
  };
  progress();

  const limit = pLimit(concurrency);
  const signal = opts.signal;
  const runOne = async (sample: S): Promise<void> => {
    if (signal?.aborted) return; // queued samples drain at once after an abort
    const startedAt = deps.now().toISOString();
    const start = deps.monotonic();
    let solved: Solved<O> | null = null;
    let error: string | null = null;
    try {
      solved = await task.solve(sample, { seed: spec.seed, ...(signal ? { signal } : {}) });
    } catch (e) {
      if (signal?.aborted) return; // cut short by the abort: leave it for a resume
      error = errorMessage(e);
    }
    const durationMs = deps.monotonic() - start;
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
    const line: SampleLine = {
      type: 'sample',
      id: sample.id,
      category: sample.category ?? null,
      output: solved ? solved.output : null,
      error,
      usage: solved?.usage ?? null,
      modelCalls: solved?.modelCalls ?? 0,
      startedAt,
      durationMs: Math.round(durationMs * 1000) / 1000,
      score,
    };
    await writer.appendBatched(line);
    recorded.push(line);
    ran++;
    if (error !== null) errors++;
    progress({ id: sample.id, error });
  };
  // allSettled: a failing write must not close the file under the samples still in flight.
  const settled = await Promise.allSettled(order.map((s) => limit(() => runOne(s))));
  writer.close();
  const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  const elapsedMs = deps.monotonic() - t0;

  // 3. Summary from every record of the file (those read at start and those appended since).
  const summary = summarizeResults(
    task,
    { header, samples: recorded, validBytes: 0, truncatedTail: false },
    outFile,
  ) as RunSummary & { report: R };
  const summaryFile = join(dirname(outFile), 'summary.json');
  writeFileSync(summaryFile, `${JSON.stringify(summary, null, 2)}\n`);
  return {
    summary,
    resultsFile: outFile,
    summaryFile,
    ran,
    skipped,
    aborted: signal?.aborted === true && skipped + ran < samples.length,
    repairedTail,
    elapsedMs,
  };
}
