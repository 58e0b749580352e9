import { randomUUID } from 'node:crypto';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { ApiaryError } from '../shared/index.js';
import type { QueueAuth } from './queue-auth.js';
import {
  type Envelope,
  jobIdFor,
  notesKey,
  openEnvelope,
  printable,
  type QueueJobData,
  QueueNoteSchema,
  QueueResultSchema,
  queueNameFor,
  RUNS_KEY,
  type RunAnnouncement,
  seal,
} from './queue-protocol.js';
import { connectRedis, createBullConnection } from './redis-connection.js';
import type { SampleRun, TaskRecipe } from './sample-runner.js';
import type { SampleWorkerPool } from './worker-pool.js';

export interface QueueCoordinatorOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** Signs the announcement and jobs, checks results and notes (`resolveQueueAuth`). */
  auth: QueueAuth;
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
  /** How often the coordinator checks that Redis still holds its run (default 1000 ms). */
  watchMs?: number;
  /**
   * How long Redis may stay unreachable before the run stops with NETWORK (default 30 000 ms):
   * longer than a restart of a persistent Redis, short enough that nobody waits on a dead one.
   */
  redisLostMs?: number;
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
  /**
   * Results refused: not signed with the queue secret, for another run, sample or epoch, or not a
   * result (never recorded; a forged one does not stop the genuine result from being recorded).
   */
  refused: number;
}

/** A `SampleWorkerPool` whose workers are `apiary worker` processes reading a BullMQ queue. */
export interface QueueCoordinator extends SampleWorkerPool {
  readonly runId: string;
  readonly queueName: string;
  stats(): QueueRunStats;
}

interface Pending {
  id: string;
  epoch: number;
  resolve: (r: SampleRun | null) => void;
  reject: (e: unknown) => void;
}

/** How long `close` waits for Redis to withdraw the run before it disconnects anyway. */
const CLOSE_TIMEOUT_MS = 5000;
/** Refusals named one by one in notes; after these only the count (in the stats) goes on. */
const MAX_REFUSAL_NOTES = 10;
/** Longest worker-supplied text (a failed job's reason) shown in an error, in characters. */
const MAX_REASON_CHARS = 2000;
/** Worker-supplied text, cut and with its control characters escaped (it is printed). */
const clip = (text: string) => printable(text, MAX_REASON_CHARS);

/** A tool endpoint without its key. */
const keyless = <T extends { apiKey?: string }>(e: T | undefined) => {
  if (!e) return undefined;
  const { apiKey: _key, ...rest } = e;
  return rest;
};

/** The recipe as workers see it: no key in Redis (the model's, the tools' endpoints'). */
function withoutKeys(recipe: TaskRecipe): TaskRecipe {
  const model = recipe.model?.kind === 'endpoint' ? { ...recipe.model, apiKey: undefined } : recipe.model;
  const tools = recipe.tools;
  if (!tools) return { ...recipe, model };
  const config = tools.config && {
    ...tools.config,
    ...(tools.config.vision ? { vision: keyless(tools.config.vision) } : {}),
    ...(tools.config.image ? { image: keyless(tools.config.image) } : {}),
  };
  return {
    ...recipe,
    model,
    tools: {
      ...tools,
      ...(config ? { config } : {}),
      ...(tools.embeddings ? { embeddings: keyless(tools.embeddings) } : {}),
    },
  };
}

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
  const queue = new Queue<Envelope>(queueName, { connection: connection() });
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
  /** The (sample, epoch) of each job whose result was recorded: a later result for it is a duplicate. */
  const received = new Map<string, { id: string; epoch: number }>();
  const counts = { queued: 0, results: 0, duplicates: 0, failed: 0, retried: 0, refused: 0 };
  const refuse = (jobId: string, why: string) => {
    counts.refused++;
    if (counts.refused <= MAX_REFUSAL_NOTES)
      opts.onNote?.(
        `refused a result for job ${clip(jobId)} of run ${runId}: ${why}${counts.refused === MAX_REFUSAL_NOTES ? ' (further refusals are only counted)' : ''}`,
      );
  };
  let aborted = false;
  let failure: ApiaryError | null = null;

  let lastEventAt = Date.now();
  /** Results read by the sweep: their stream event, if it still comes, is the same completion. */
  const swept = new Set<string>();
  /**
   * A result as it came from Redis: kept only when it is signed with the secret and is a result
   * of this run, for the very sample and epoch of the job. Returns why it was refused, else null.
   */
  const completed = (jobId: string, returnvalue: unknown, fromSweep = false): string | null => {
    lastEventAt = Date.now();
    const p = pending.get(jobId);
    const job = p ?? received.get(jobId);
    // a job of no sample of this run (or cut by an abort): nothing to record or count
    if (!job) return null;
    if (!p && swept.delete(jobId)) return null;
    const opened = openEnvelope(opts.auth, 'result', returnvalue, QueueResultSchema);
    let why: string | null = opened.ok ? null : opened.why;
    if (opened.ok) {
      const r = opened.value;
      if (r.runId !== runId) why = `it is bound to run ${r.runId}`;
      else if (r.id !== job.id || r.epoch !== job.epoch)
        why = `it is bound to sample ${JSON.stringify(r.id)} epoch ${r.epoch}, the job is ${JSON.stringify(job.id)} epoch ${job.epoch}`;
    }
    if (why !== null || !opened.ok) {
      refuse(jobId, why ?? 'invalid');
      return why;
    }
    if (!p) {
      counts.duplicates++;
      return null;
    }
    if (fromSweep) swept.add(jobId);
    pending.delete(jobId);
    received.set(jobId, { id: p.id, epoch: p.epoch });
    counts.results++;
    p.resolve(opened.value.run as SampleRun | null);
    return null;
  };
  const failed = (jobId: string, failedReason: unknown) => {
    lastEventAt = Date.now();
    const p = pending.get(jobId);
    if (!p) return;
    pending.delete(jobId);
    counts.failed++;
    const error = new ApiaryError(
      'WORKER_FAILED',
      `a queue worker could not run a sample: ${clip(String(failedReason))}`,
    );
    failure ??= error;
    p.reject(error);
  };
  events.on('completed', ({ jobId, returnvalue }) => completed(jobId, returnvalue));
  events.on('failed', ({ jobId, failedReason }) => failed(jobId, failedReason));
  /**
   * BullMQ parses each `completed` event's value as JSON while it reads the stream, and stops
   * reading for good at one that is not (anyone who can write to Redis can add one). Then every
   * result is read from its job by the sweep, which no longer waits for the stream to go quiet.
   */
  let streamDead = false;
  events.on('error', (error) => {
    if (!(error instanceof SyntaxError) || streamDead) return;
    streamDead = true;
    opts.onNote?.(
      `the event stream of ${queueName} holds an entry that is not JSON (not written by BullMQ): results are read from their jobs from now on`,
    );
  });
  // a Redis that went away is the watch's to report (below), not BullMQ's to print
  queue.on('error', () => {});
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
    if (pending.size === 0 || (!streamDead && Date.now() - lastEventAt < sweepMs)) return;
    for (const jobId of [...pending.keys()].slice(0, 500)) {
      let job: Job | undefined;
      try {
        job = await Job.fromId(queue, jobId);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error; // Redis away: the next sweep tries again
        // BullMQ could not parse the job's record (written by someone else): nothing to record
        failed(jobId, `its job record in Redis cannot be read: ${String(error)}`);
        continue;
      }
      if (!job?.finishedOn) continue;
      if (job.failedReason) failed(jobId, job.failedReason);
      else {
        // finished with a result that is refused: no genuine one will come for this job
        const why = completed(jobId, job.returnvalue, true);
        if (why !== null) failed(jobId, `its result was refused: ${why}`);
      }
    }
  };
  const sweepTimer = setInterval(() => void sweep().catch(() => {}), sweepMs);
  sweepTimer.unref();

  let batch: Array<{ name: string; data: Envelope; opts: { jobId: string } }> = [];
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

  const recipe = withoutKeys(opts.recipe);
  const announcement: RunAnnouncement = {
    runId,
    queue: queueName,
    recipe: JSON.parse(JSON.stringify(recipe)),
    dataSha256: opts.data.sha256,
    dataPath: opts.data.path,
    createdAt: new Date().toISOString(),
  };
  await redis.hset(RUNS_KEY, runId, JSON.stringify(seal(opts.auth, 'announcement', announcement)));

  let notesRead = 0;
  const readNotes = async () => {
    const notes = await redis.lrange(notesKey(runId), notesRead, -1);
    notesRead += notes.length;
    for (const n of notes) {
      // a note not signed with the secret is anyone's: not shown
      const opened = openEnvelope(opts.auth, 'note', n, QueueNoteSchema);
      if (opened.ok && opened.value.runId === runId) opts.onNote?.(opened.value.text);
    }
  };
  const notesTimer = setInterval(() => void readNotes().catch(() => {}), opts.notePollMs ?? 500);
  notesTimer.unref();

  /**
   * Redis restarted empty (or was flushed) or stays away: the jobs and the announcement are gone,
   * no result can come. Every pending sample fails with NETWORK, so the run ends at once with the
   * results written so far (a resume queues the rest).
   */
  let closing = false;
  let lostToRedis = 0;
  const lose = (why: string) => {
    if (failure?.code === 'NETWORK' || closing) return;
    const error = new ApiaryError(
      'NETWORK',
      `the Redis server at ${opts.url} ${why}; the results recorded so far are kept: rerun with --resume to queue the rest`,
    );
    failure = error;
    lostToRedis += pending.size;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  let unreachableSince: number | null = null;
  const redisLostMs = opts.redisLostMs ?? 30_000;
  const watch = async () => {
    let announced: number;
    try {
      announced = await redis.hexists(RUNS_KEY, runId);
    } catch (error) {
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince >= redisLostMs)
        lose(
          `has not answered for ${redisLostMs} ms (${error instanceof Error ? error.message : String(error)})`,
        );
      return;
    }
    unreachableSince = null;
    if (announced === 0 && !closing)
      lose(
        `no longer holds this run's announcement (${RUNS_KEY} ${runId}): it restarted empty or was flushed`,
      );
  };
  const watchTimer = setInterval(() => void watch().catch(() => {}), opts.watchMs ?? 1000);
  watchTimer.unref();

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
        if (failure?.code === 'NETWORK') return reject(failure);
        pending.set(jobId, { id, epoch, resolve, reject });
        counts.queued++;
        if (batch.length === 0) setImmediate(flush);
        const job: QueueJobData = { runId, id, epoch, seed };
        batch.push({ name: 'sample', data: seal(opts.auth, 'job', job), opts: { jobId } });
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
      return { ...counts, lost: pending.size + lostToRedis };
    },
    async close() {
      closing = true;
      clearInterval(watchTimer);
      clearInterval(notesTimer);
      clearInterval(sweepTimer);
      const cleanUp = async () => {
        await readNotes().catch(() => {});
        await redis.hdel(RUNS_KEY, runId).catch(() => {});
        await redis.del(notesKey(runId)).catch(() => {});
        await queue.obliterate({ force: true }).catch(() => {});
      };
      // BullMQ's connections wait for a Redis that is away: the clean-up gets a bounded time
      let timer: NodeJS.Timeout | undefined;
      const timeUp = new Promise<void>((res) => {
        timer = setTimeout(res, CLOSE_TIMEOUT_MS);
      });
      // a Redis that stopped answering gets no clean-up (it would only wait): the connections are cut
      if (unreachableSince !== null) {
        clearTimeout(timer);
        for (const c of [...connections, redis]) c.disconnect();
        void closeAll().catch(() => {});
        return { hits: 0, misses: 0, writes: 0 };
      }
      await Promise.race([cleanUp(), timeUp]);
      clearTimeout(timer);
      await Promise.race([closeAll(), new Promise((res) => setTimeout(res, CLOSE_TIMEOUT_MS).unref())]);
      for (const c of connections) c.disconnect();
      redis.disconnect();
      return { hits: 0, misses: 0, writes: 0 };
    },
  };
}
