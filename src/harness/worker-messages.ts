import type { ErrorCode } from '../shared/index.js';
import type { BlobLine } from './results-file.js';
import type { SampleRun } from './sample-runner.js';

/** Main thread → sample worker. */
export type ToWorker =
  | { type: 'run'; job: number; id: string; epoch: number; seed: number }
  /** Cut the samples in flight short (they come back as `run: null`). */
  | { type: 'abort' }
  | { type: 'close' };

/** Sample worker → main thread. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'load-failed'; code: ErrorCode | null; message: string }
  /**
   * `run: null`: the abort cut the sample short. Long strings of the output travel once per worker
   * (`blobs`, as in the results file) and as `{"$blob": sha256}` references after that.
   */
  | { type: 'result'; job: number; run: SampleRun | null; blobs: BlobLine[] }
  /** The sample could not even start (its id is not in the rebuilt task). */
  | { type: 'job-failed'; job: number; message: string }
  | { type: 'closed'; cacheStats?: { hits: number; misses: number; writes: number } };
