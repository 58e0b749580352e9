import type { ErrorCode } from '../shared/index.js';
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
  /** `run: null`: the abort cut the sample short. */
  | { type: 'result'; job: number; run: SampleRun | null }
  /** The sample could not even start (its id is not in the rebuilt task). */
  | { type: 'job-failed'; job: number; message: string }
  | { type: 'closed'; cacheStats?: { hits: number; misses: number; writes: number } };
