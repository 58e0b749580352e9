import type { ErrorCode } from '../shared/index.js';
import type { BlobLine } from './results-file.js';
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
/** Main thread → sample worker. */
export type ToWorker =
  | { type: 'run'; jobs: WorkerJob[] }
  /** Cut the samples in flight short (they come back as `run: null`). */
  | { type: 'abort' }
  | { type: 'close' };

/** Sample worker → main thread. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'load-failed'; code: ErrorCode | null; message: string }
  | { type: 'results'; results: WorkerResult[] }
  /** The sample could not even start (its id is not in the rebuilt task). */
  | { type: 'job-failed'; job: number; message: string }
  | { type: 'closed'; cacheStats?: { hits: number; misses: number; writes: number } };
