import { randomUUID } from 'node:crypto';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { ApiaryError } from '../shared/index.js';
import {
  jobIdFor,
  notesKey,
  type QueueJobData,
  queueNameFor,
  RUNS_KEY,
  type RunAnnouncement,
} from './queue-protocol.js';
import { connectRedis, createBullConnection } from './redis-connection.js';
import type { SampleRun, TaskRecipe } from './sample-runner.js';
import type { SampleWorkerPool } from './worker-pool.js';

export interface QueueCoordinatorOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** How workers rebuild the task; an API key in it is dropped (workers use their own). */
  recipe: TaskRecipe;
  /** The run spec's data hash, which every worker checks against the data it reads. */
  data: { path: string; sha256: string | null };
  /**
   * At most `max` samples start per `durationMs` over all workers: BullMQ's global rate limiter
   * on the run's queue (kept in Redis, so every worker on every machine shares it).
   */
  rateLimit?: { max: number; durationMs: number };
  /** Notes workers leave for this run (a data hash that differs, a task that does not load). */
  onNote?: (note: string) => void;
  /** How often the notes list is read (default 500 ms). */
  notePollMs?: number;
  /** After this long without an event while samples are pending, their jobs are read directly (default 5000 ms). */
  sweepMs?: number;
  runId?: string;
}

/** Counts of a distributed run, for the report and the kill test. */
export interface QueueRunStats {
  /** Jobs put on the queue (one per missing (sample, epoch)). */
  queued: number;
  /** Results received and handed to the harness. */
  results: number;
  /** Results of an (id, epoch) already received (not recorded again). */
  duplicates: number;
  /** Jobs that failed in a worker (the sample is not recorded; a resume reruns it). */
  failed: number;
  /** Jobs found stalled (their worker died or hung) and put back on the queue for another worker. */
  retried: number;
  /** Jobs queued that neither gave a result nor failed, and were not cut by an abort. */
  lost: number;
}

/** A `SampleWorkerPool` whose workers are `apiary worker` processes reading a BullMQ queue. */
export interface QueueCoordinator extends SampleWorkerPool {
  readonly runId: string;
  readonly queueName: string;
  stats(): QueueRunStats;
}

interface Pending {
  resolve: (r: SampleRun | null) => void;
  reject: (e: unknown) => void;
}

const parseReturn = (v: unknown): SampleRun | null =>
  (typeof v === 'string' ? JSON.parse(v) : v) as SampleRun | null;

/**
 * Opens a run's queue on Redis and announces the run to workers. Each `run(id, epoch)` adds one
 * job (adds are batched per turn of the event loop) and resolves with the worker's result, read
 * from the queue's event stream. The caller (runEval) stays the only writer of the run folder;
 * `close()` withdraws the announcement and deletes the queue.
 */
export async function startQueueCoordinator(opts: QueueCoordinatorOptions): Promise<QueueCoordinator> {
  const runId = opts.runId ?? randomUUID();
  const queueName = queueNameFor(runId);
  const redis = await connectRedis(opts.url);
  // BullMQ does not close a connection it was handed (it may be shared): these are closed here
  const connections: Redis[] = [];
  const connection = () => {
    const c = createBullConnection(opts.url);
    connections.push(c);
    return c;
  };
  const queue = new Queue<QueueJobData>(queueName, { connection: connection() });
  // the queue is new: its event stream is read from the start, so no event before the first read is missed
  const events = new QueueEvents(queueName, { connection: connection(), lastEventId: '0-0' });
  const closeAll = async () => {
    await Promise.allSettled([events.close(), queue.close()]);
    for (const c of connections) c.disconnect();
    redis.disconnect();
  };
  try {
    await events.waitUntilReady();
    await queue.waitUntilReady();
    if (opts.rateLimit) await queue.setGlobalRateLimit(opts.rateLimit.max, opts.rateLimit.durationMs);
  } catch (error) {
    await closeAll();
    throw new ApiaryError('NETWORK', `cannot use the Redis server at ${opts.url}: ${String(error)}`, {
      cause: error,
    });
  }

  const pending = new Map<string, Pending>();
  const received = new Set<string>();
  const counts = { queued: 0, results: 0, duplicates: 0, failed: 0, retried: 0 };
  let aborted = false;
  let failure: ApiaryError | null = null;

  let lastEventAt = Date.now();
  /** Results read by the sweep: their stream event, if it still comes, is the same completion. */
  const swept = new Set<string>();
  const completed = (jobId: string, returnvalue: unknown, fromSweep = false) => {
    lastEventAt = Date.now();
    const p = pending.get(jobId);
    if (!p) {
      if (swept.has(jobId)) swept.delete(jobId);
      else if (received.has(jobId)) counts.duplicates++;
      return;
    }
    if (fromSweep) swept.add(jobId);
    pending.delete(jobId);
    received.add(jobId);
    counts.results++;
    p.resolve(parseReturn(returnvalue));
  };
  const failed = (jobId: string, failedReason: string) => {
    lastEventAt = Date.now();
    const p = pending.get(jobId);
    if (!p) return;
    pending.delete(jobId);
    counts.failed++;
    const error = new ApiaryError('WORKER_FAILED', `a queue worker could not run a sample: ${failedReason}`);
    failure ??= error;
    p.reject(error);
  };
  events.on('completed', ({ jobId, returnvalue }) => completed(jobId, returnvalue));
  events.on('failed', ({ jobId, failedReason }) => failed(jobId, failedReason));
  events.on('stalled', () => {
    counts.retried++;
  });

  /**
   * The event stream is capped (BullMQ trims it to about 10,000 events): a coordinator that fell
   * that far behind would miss results. When no event came for a while but samples are pending,
   * their jobs are read directly (the results stay in Redis until the run ends).
   */
  const sweepMs = opts.sweepMs ?? 5000;
  const sweep = async () => {
    if (pending.size === 0 || Date.now() - lastEventAt < sweepMs) return;
    for (const jobId of [...pending.keys()].slice(0, 500)) {
      const job = await Job.fromId(queue, jobId);
      if (!job?.finishedOn) continue;
      if (job.failedReason) failed(jobId, job.failedReason);
      else completed(jobId, job.returnvalue, true);
    }
  };
  const sweepTimer = setInterval(() => void sweep().catch(() => {}), sweepMs);
  sweepTimer.unref();

  let batch: Array<{ name: string; data: QueueJobData; opts: { jobId: string } }> = [];
  const flush = () => {
    const jobs = batch;
    batch = [];
    queue.addBulk(jobs).catch((error) => {
      const e = new ApiaryError('NETWORK', `cannot add jobs to ${queueName}: ${String(error)}`, {
        cause: error,
      });
      for (const j of jobs) {
        pending.get(j.opts.jobId)?.reject(e);
        pending.delete(j.opts.jobId);
      }
    });
  };

  // the recipe as workers see it: no key in Redis
  const recipe: TaskRecipe =
    opts.recipe.model?.kind === 'endpoint'
      ? { ...opts.recipe, model: { ...opts.recipe.model, apiKey: undefined } }
      : opts.recipe;
  const announcement: RunAnnouncement = {
    runId,
    queue: queueName,
    recipe: JSON.parse(JSON.stringify(recipe)),
    dataSha256: opts.data.sha256,
    dataPath: opts.data.path,
    createdAt: new Date().toISOString(),
  };
  await redis.hset(RUNS_KEY, runId, JSON.stringify(announcement));

  let notesRead = 0;
  const readNotes = async () => {
    const notes = await redis.lrange(notesKey(runId), notesRead, -1);
    notesRead += notes.length;
    for (const n of notes) opts.onNote?.(n);
  };
  const notesTimer = setInterval(() => void readNotes().catch(() => {}), opts.notePollMs ?? 500);
  notesTimer.unref();

  return {
    runId,
    queueName,
    size: 1,
    get failure() {
      return failure;
    },
    run(id, epoch, seed) {
      if (aborted) return Promise.resolve(null);
      const jobId = jobIdFor(id, epoch);
      return new Promise<SampleRun | null>((resolve, reject) => {
        pending.set(jobId, { resolve, reject });
        counts.queued++;
        if (batch.length === 0) setImmediate(flush);
        batch.push({ name: 'sample', data: { id, epoch, seed }, opts: { jobId } });
      });
    },
    abort() {
      aborted = true;
      // waiting jobs are dropped; those in a worker finish there, unrecorded (a resume reruns them)
      void queue.drain().catch(() => {});
      for (const p of pending.values()) p.resolve(null);
      pending.clear();
    },
    stats() {
      return { ...counts, lost: pending.size };
    },
    async close() {
      clearInterval(notesTimer);
      clearInterval(sweepTimer);
      await readNotes().catch(() => {});
      await redis.hdel(RUNS_KEY, runId).catch(() => {});
      await redis.del(notesKey(runId)).catch(() => {});
      await queue.obliterate({ force: true }).catch(() => {});
      await closeAll();
      return { hits: 0, misses: 0, writes: 0 };
    },
  };
}
