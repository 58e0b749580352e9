import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { ApiaryError } from '../shared/index.js';
import type { QueueAuth } from './queue-auth.js';
import {
  type Envelope,
  notesKey,
  openEnvelope,
  printable,
  type QueueJobData,
  QueueJobDataSchema,
  type QueueResult,
  queueNameFor,
  RUNS_KEY,
  type RunAnnouncement,
  RunAnnouncementSchema,
  seal,
} from './queue-protocol.js';
import { connectRedis, createBullConnection } from './redis-connection.js';
import { errorMessage, loadTaskFromRecipe, runSampleById, type TaskRecipe } from './sample-runner.js';

export interface QueueWorkerOptions {
  /** `redis://host:port[/db]`. */
  url: string;
  /** Checks announcements and jobs, signs results and notes (`resolveQueueAuth`). */
  auth: QueueAuth;
  /**
   * The modules (paths or file: URLs, as this worker's own command line names them) an announced
   * recipe may import as its model or setup modules. Anything else is refused, never imported.
   */
  allowModules?: readonly string[];
  /**
   * The model endpoint of this worker (its own `--base-url`): a run announcing another endpoint is
   * refused, so the key goes nowhere else. Without one, runs with an endpoint model are refused.
   */
  baseURL?: string;
  /**
   * Where the tools' own endpoints are read (`APIARY_VISION_BASE_URL`, `APIARY_IMAGE_BASE_URL`,
   * `APIARY_EMBEDDINGS_BASE_URL`; default `process.env`): a run announcing another is refused.
   */
  env?: Record<string, string | undefined>;
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
 * A module specifier as a file URL, or null when it is not a local file (data:, http:, node:,
 * bare package names, relative paths): those are never imported on Redis' word.
 */
function localModuleUrl(spec: string, base = process.cwd()): string | null {
  if (spec.startsWith('file:')) {
    try {
      return new URL(spec).href;
    } catch {
      return null;
    }
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(spec) && !/^[a-z]:[\\/]/i.test(spec)) return null;
  return isAbsolute(spec) ? pathToFileURL(spec).href : pathToFileURL(resolve(base, spec)).href;
}

/** The allowlist of `--allow-module` as file URLs (relative paths from this process' folder). */
export function moduleAllowlist(specs: readonly string[]): Set<string> {
  const urls = new Set<string>();
  for (const spec of specs) {
    const url = localModuleUrl(spec);
    if (url === null)
      throw new ApiaryError('USAGE', `--allow-module ${spec}: not a local file (a path or a file: URL)`);
    if (!existsSync(fileURLToPath(url)))
      throw new ApiaryError('USAGE', `--allow-module ${spec}: no such file (${fileURLToPath(url)})`);
    urls.add(url);
  }
  return urls;
}

/** An endpoint URL compared as the model client uses it: parsed, without a trailing slash. */
const sameEndpoint = (a: string, b: string) => {
  const norm = (u: string) => {
    try {
      return new URL(u).href.replace(/\/+$/, '');
    } catch {
      return null;
    }
  };
  const na = norm(a);
  return na !== null && na === norm(b);
};

/**
 * Why this worker will not run an announced recipe as it stands (a module not on its allowlist,
 * another model endpoint), or the recipe it runs instead: its own modules and endpoint.
 */
function checkRecipe(
  recipe: TaskRecipe,
  own: {
    allowModules: Set<string>;
    baseURL?: string | undefined;
    env?: Record<string, string | undefined>;
  },
): { ok: true; recipe: TaskRecipe } | { ok: false; why: string } {
  // the tools' endpoints (GTA): the worker's keys for them go only to the worker's own endpoints
  const env = own.env ?? process.env;
  const toolEndpoints = [
    ['vision', recipe.tools?.config?.vision?.baseURL],
    ['image', recipe.tools?.config?.image?.baseURL],
    ['embeddings', recipe.tools?.embeddings?.baseURL],
  ] as const;
  for (const [kind, announced] of toolEndpoints) {
    if (announced === undefined) continue;
    const variable = `APIARY_${kind.toUpperCase()}_BASE_URL`;
    const mine = env[variable];
    if (mine === undefined || !sameEndpoint(announced, mine))
      return {
        ok: false,
        why: `the run's ${kind} endpoint ${announced} is not this worker's ${variable} (${mine ?? 'unset'}): its key goes only there`,
      };
  }
  const allowed = (spec: string) => {
    // only absolute paths and file: URLs can name the same file here as on the coordinator
    const url = spec.startsWith('file:') || isAbsolute(spec) ? localModuleUrl(spec) : null;
    return url !== null && own.allowModules.has(url) ? url : null;
  };
  const refusedModule = (spec: string, role: string) => ({
    ok: false as const,
    why: `${role} "${printable(spec)}" is not on this worker's allowlist (start it with --allow-module PATH to allow a local module); not imported`,
  });
  const setupModules: string[] = [];
  for (const m of recipe.setupModules ?? []) {
    const url = allowed(m);
    if (url === null) return refusedModule(m, 'setup module');
    setupModules.push(url);
  }
  // plugin modules: the allowed ones are imported; any other is left out (never imported), and the
  // task must then come from this worker's own plugins (the built-ins, registered by its entry point)
  const plugins = (recipe.plugins ?? []).flatMap((m) => allowed(m) ?? []);
  let model = recipe.model;
  if (model?.kind === 'module') {
    const url = allowed(model.module);
    if (url === null) return refusedModule(model.module, 'model module');
    model = { ...model, module: url };
  } else if (model?.kind === 'endpoint') {
    if (own.baseURL === undefined)
      return {
        ok: false,
        why: `the run's model endpoint is ${model.baseURL}; this worker has no --base-url, and sends its key only to an endpoint it was started with`,
      };
    if (!sameEndpoint(model.baseURL, own.baseURL))
      return {
        ok: false,
        why: `the run's model endpoint ${model.baseURL} is not this worker's --base-url ${own.baseURL}: its key goes only there`,
      };
    model = { ...model, baseURL: own.baseURL, apiKey: undefined };
  }
  return {
    ok: true,
    recipe: {
      ...recipe,
      model,
      ...(recipe.setupModules !== undefined ? { setupModules } : {}),
      ...(recipe.plugins !== undefined ? { plugins } : {}),
    },
  };
}

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
  const allowModules = moduleAllowlist(opts.allowModules ?? []);
  const runs = new Map<string, Joined>();
  const me = `${hostname()}:${process.pid}`;
  let done = 0;
  let closing = false;

  const refuse = async (a: RunAnnouncement, why: string) => {
    log(`refused run ${a.runId} (${describe(a.recipe)}): ${why}`);
    const note = seal(opts.auth, 'note', { runId: a.runId, text: `worker ${me}: ${why}`.slice(0, 4000) });
    await redis.rpush(notesKey(a.runId), JSON.stringify(note));
  };

  const join = async (a: RunAnnouncement, entry: Joined) => {
    const checked = checkRecipe(a.recipe, {
      allowModules,
      baseURL: opts.baseURL,
      ...(opts.env ? { env: opts.env } : {}),
    });
    if (!checked.ok) return refuse(a, checked.why);
    const own = checked.recipe;
    const recipe: TaskRecipe = {
      ...own,
      ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}),
      ...(own.model?.kind === 'endpoint' && opts.apiKey
        ? { model: { ...own.model, apiKey: opts.apiKey } }
        : {}),
    };
    let rebuilt: Awaited<ReturnType<typeof loadTaskFromRecipe>>;
    try {
      rebuilt = await loadTaskFromRecipe(recipe);
    } catch (error) {
      const left = (a.recipe.plugins ?? []).filter((m) => !recipe.plugins?.includes(localModuleUrl(m) ?? ''));
      const hint = left.length
        ? ` (plugin modules not on this worker's allowlist, not imported: ${left.map((m) => printable(m)).join(', ')})`
        : '';
      return refuse(a, `cannot load the task: ${errorMessage(error)}${hint}`);
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
      async (job): Promise<Envelope> => {
        // a job not signed for this run is anyone's: its sample is not run (the job fails)
        const opened = openEnvelope(opts.auth, 'job', job.data, QueueJobDataSchema);
        if (!opened.ok) throw new Error(`job ${job.id} refused: ${opened.why}`);
        const data: QueueJobData = opened.value;
        if (data.runId !== a.runId)
          throw new Error(`job ${job.id} refused: it is bound to run ${data.runId}`);
        const { id, epoch, seed } = data;
        const run = await runSampleById(rebuilt, id, { seed, epoch });
        done++;
        entry.done++;
        const result: QueueResult = { runId: a.runId, id, epoch, run: run as QueueResult['run'] };
        return seal(opts.auth, 'result', result);
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
      // looked at once per announcement: a refused one stays refused while it is announced
      const entry: Joined = { done: 0, worker: null, connection: null };
      runs.set(runId, entry);
      const opened = openEnvelope(opts.auth, 'announcement', text, RunAnnouncementSchema);
      const shown = `"${printable(runId, 80)}"`;
      if (!opened.ok) {
        // not signed with our secret (or another version's): never parsed further, no note
        log(`ignored run ${shown}: ${opened.why}`);
        continue;
      }
      const a = opened.value;
      if (a.runId !== runId || a.queue !== queueNameFor(a.runId)) {
        log(`ignored run ${shown}: its announcement names run ${a.runId}, queue ${a.queue}`);
        continue;
      }
      await join(a, entry);
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
