import type { ModelPrice } from '../models/index.js';
import type { ErrorCode } from '../shared/index.js';
import type { BlobLine, SampleLine, SerializedSampleLine } from './results-file.js';
import type { SampleRun } from './sample-runner.js';

/** One sample to solve and score. */
export interface WorkerJob {
  job: number;
  id: string;
  epoch: number;
  seed: number;
}

/** One finished job. */
export interface WorkerResult {
  job: number;
  /** null: the abort cut the sample short. */
  run: SampleRun | null;
  /**
   * Long strings of the output travel once per worker (as in the results file) and as
   * `{"$blob": sha256}` references after that.
   */
  blobs: BlobLine[];
}

/**
 * Messages are batched per turn of the event loop both ways: at hundreds of samples per second a
 * message per sample costs more in thread wake-ups than in copying.
 */
/** A sample of a streamed run (`SampleWorkerPool.stream`): the worker writes its whole line. */
export interface StreamJob {
  id: string;
  epoch: number;
}

/** What the worker needs to turn a sample into its results line, for one streamed run. */
export interface StreamSettings {
  /** Tells this run's messages from a previous run's on a shared pool. */
  run: number;
  seed: number;
  /** Samples this worker solves at once (its share of `--concurrency`). */
  concurrency: number;
  /** The run's price: each line then has its `cost`. */
  price?: ModelPrice;
}

/** One finished sample of a streamed run: its line as the results file holds it, and its record for the summary. */
export interface StreamedLine extends SerializedSampleLine {
  /** The line's record without its output (what the summary, the budget and the progress read). */
  record: SampleLine;
  infrastructureFailure: boolean;
  connectionFailure: boolean;
}

/** Main thread → sample worker. */
export type ToWorker =
  | { type: 'run'; jobs: WorkerJob[] }
  /** A streamed run starts: later `jobs` fill the worker's local queue, solved `concurrency` at a time. */
  | { type: 'stream'; settings: StreamSettings }
  /** `answers`: the `lines` batch this replies to (a worker held after an endpoint failure waits for it). */
  | { type: 'jobs'; run: number; jobs: StreamJob[]; answers?: number }
  /** Start nothing more of this run: the queued jobs are dropped, those in flight finish. */
  | { type: 'stop'; run: number }
  /** Cut the samples in flight short (they come back as `run: null`). */
  | { type: 'abort' }
  | { type: 'close' };

/** Sample worker → main thread. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'load-failed'; code: ErrorCode | null; message: string }
  | { type: 'results'; results: WorkerResult[] }
  /**
   * Lines of a streamed run finished in one turn of the worker's event loop (`batch`: 1, 2, … per
   * run and worker). `ended` counts the
   * jobs that left the worker's hands: these lines, samples cut short by an abort, jobs dropped.
   * `blobs`: texts this worker had not sent yet, which the lines refer to.
   */
  | { type: 'lines'; run: number; batch: number; lines: StreamedLine[]; blobs: BlobLine[]; ended: number }
  /** The sample could not even start (its id is not in the rebuilt task). */
  | { type: 'job-failed'; job: number; message: string }
  | { type: 'closed'; cacheStats?: { hits: number; misses: number; writes: number } };
