import { hostname } from 'node:os';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  notesKey,
  QueueJobDataSchema,
  RUNS_KEY,
  type RunAnnouncement,
  RunAnnouncementSchema,
} from './queue-protocol.js';
import { connectRedis, createBullConnection } from './redis-connection.js';
import { errorMessage, rebuildTask, runSampleById, type TaskRecipe } from './sample-runner.js';

export interface QueueWorkerOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** Samples solved at once by this process, per run (default 4). */
  concurrency?: number;
  /** The data folder on this machine, instead of the coordinator's path. */
  dataDir?: string;
  /** API key for an endpoint model (the coordinator never puts keys on Redis). */
  apiKey?: string;
  /** How often the announced runs are read (default 500 ms). */
  pollMs?: number;
  /**
   * BullMQ's job lock (default 30 000 ms): a job whose worker died is retried elsewhere once its
   * lock expires and a stalled-job check (every `stalledIntervalMs`, default 30 000) finds it.
   */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Progress lines (joined a run, left a run, refused a run). */
  log?: (line: string) => void;
}

export interface QueueWorkerHandle {
  /** Samples finished by this process so far. */
  readonly done: number;
  /** Stops taking jobs, lets those in flight finish, disconnects. */
  close(): Promise<void>;
}

interface Joined {
  /** Samples of this run finished here. */
  done: number;
  worker: Worker | null;
  connection: Redis | null;
}

/** Describes the run for log lines: task, solver, model. */
const describe = (r: TaskRecipe) =>
  `${r.task}/${r.solver}${r.model?.kind === 'endpoint' ? ` with ${r.model.modelId}` : ''}`;

/**
 * A process that serves every run announced on the Redis server: for each, it rebuilds the task
 * from the announced recipe (its own data folder and key when given), checks the data hash, and
 * solves and scores the run's jobs, returning each sample's result as the job's return value.
 * A run whose task does not load, or whose data differs, is refused with a note to its coordinator.
 */
export async function startQueueWorker(opts: QueueWorkerOptions): Promise<QueueWorkerHandle> {
  const log = opts.log ?? (() => {});
  // reconnects by itself after Redis went away, as BullMQ's connections do
  const redis = await connectRedis(opts.url);
  const runs = new Map<string, Joined>();
  const me = `${hostname()}:${process.pid}`;
  let done = 0;
  let closing = false;

  const refuse = async (a: RunAnnouncement, why: string) => {
    log(`refused run ${a.runId} (${describe(a.recipe)}): ${why}`);
    await redis.rpush(notesKey(a.runId), `worker ${me}: ${why}`);
  };

  const join = async (a: RunAnnouncement, entry: Joined) => {
    const recipe: TaskRecipe = {
      ...a.recipe,
      ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
      ...(a.recipe.model?.kind === 'endpoint' && opts.apiKey
        ? { model: { ...a.recipe.model, apiKey: opts.apiKey } }
        : {}),
    };
    let rebuilt: Awaited<ReturnType<typeof rebuildTask>>;
    try {
      rebuilt = await rebuildTask(recipe);
    } catch (error) {
      return refuse(a, `cannot load the task: ${errorMessage(error)}`);
    }
    const sha = rebuilt.dataSource?.sha256 ?? null;
    if (a.dataSha256 !== null && sha !== a.dataSha256)
      return refuse(
        a,
        `data differs: ${rebuilt.dataSource?.path ?? '(no data)'} has SHA-256 ${sha}, the run read ${a.dataPath} with ${a.dataSha256} (pass --data with a copy of the same files)`,
      );
    if (closing || !runs.has(a.runId)) return;
    entry.connection = createBullConnection(opts.url);
    entry.worker = new Worker(
      a.queue,
      async (job) => {
        const { id, epoch, seed } = QueueJobDataSchema.parse(job.data);
        const run = await runSampleById(rebuilt, id, { seed, epoch });
        done++;
        entry.done++;
        return run;
      },
      {
        connection: entry.connection,
        concurrency: opts.concurrency ?? 4,
        lockDuration: opts.lockDurationMs ?? 30_000,
        stalledInterval: opts.stalledIntervalMs ?? 30_000,
        // a job stalls once per killed worker: several kills in a row still leave it retried
        maxStalledCount: 10,
      },
    );
    entry.worker.on('error', (e) => log(`run ${a.runId}: ${errorMessage(e)}`));
    log(`joined run ${a.runId} (${describe(a.recipe)})`);
  };

  const leave = async (runId: string, entry: Joined) => {
    runs.delete(runId);
    if (entry.worker) {
      await entry.worker.close();
      log(`left run ${runId} after ${entry.done} samples`);
    }
    entry.connection?.disconnect();
  };

  const poll = async () => {
    const announced = await redis.hgetall(RUNS_KEY);
    for (const [runId, text] of Object.entries(announced)) {
      if (runs.has(runId)) continue;
      const parsed = RunAnnouncementSchema.safeParse(JSON.parse(text));
      if (!parsed.success) continue; // written by another version: not ours to serve
      const entry: Joined = { done: 0, worker: null, connection: null };
      runs.set(runId, entry);
      await join(parsed.data, entry);
    }
    for (const [runId, entry] of runs) if (!(runId in announced)) await leave(runId, entry);
  };

  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();
  const tick = () => {
    polling = poll()
      .catch((e) => log(`cannot read the runs: ${errorMessage(e)}`))
      .finally(() => {
        if (!closing) timer = setTimeout(tick, opts.pollMs ?? 500);
      });
  };
  tick();

  return {
    get done() {
      return done;
    },
    async close() {
      closing = true;
      clearTimeout(timer);
      await polling;
      await Promise.all([...runs].map(([id, e]) => leave(id, e)));
      redis.disconnect();
    },
  };
}
