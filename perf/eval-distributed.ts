/**
 * Distributed evals on BullMQ and Redis against one local process, with a model that answers
 * after 50 ms (the scripted OpenAI-compatible server in a child process).
 *
 *   npx tsx perf/eval-distributed.ts [--samples N] [--concurrency C] [--latency MS]
 *
 * Rows: one local process (runEval in this process, C samples in flight) and 1, 2 and 4
 * `apiary worker` processes (each C in flight) fed by a coordinator in this process through a
 * throwaway `redis-server`; the ratio is each row's samples/s over the local one. Ideal per row =
 * in-flight samples / latency. Workers are started (≈ 1.5 s each, loading the sources through
 * tsx) and warmed up by a small run before the timed one; their start-up is left out.
 * Then the kill test: 2 workers, one SIGKILLed mid-run, a third started; the counts of samples,
 * results, duplicates, lost and retried (stalled jobs put back) are printed.
 * Needs Debian's redis-server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { APPBENCH_SAMPLING } from '../src/benchmarks/appbench/index.js';
import { redisServerMissing, startRedisServer } from '../src/harness/__fixtures__/redis-server.js';
import {
  buildRunSpec,
  createQueueAuth,
  type QueueRunStats,
  readResultsFile,
  rebuildTask,
  runEval,
  startQueueCoordinator,
  type TaskRecipe,
} from '../src/harness/index.js';
import { scriptedServerProcess } from './appbench-load.js';
import { SCALE_TASK } from './scale-task.js';

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = flag('--samples', 1600);
const C = flag('--concurrency', 16);
const LATENCY = flag('--latency', 50);
const CLI = resolve(import.meta.dirname, '../src/cli/main.ts');

if (redisServerMissing) {
  console.error(`skipped: ${redisServerMissing}`);
  process.exit(0);
}

/** The secret shared by the coordinator and the worker processes (APIARY_QUEUE_SECRET). */
const SECRET = 'perf-eval-distributed-secret';
const SCALE_MODULE = pathToFileURL(resolve(import.meta.dirname, 'scale-task.ts')).href;

const recipe = (n: number, baseURL: string): TaskRecipe => ({
  task: SCALE_TASK,
  taskOptions: { samples: n },
  solver: 'flat',
  solverOptions: {},
  model: { kind: 'endpoint', baseURL, modelId: 'scripted' },
  sampling: APPBENCH_SAMPLING,
  seed: 0,
  // a busy loopback server may drop a kept-alive socket: retried
  modelCalls: { maxRetries: 2, baseDelayMs: 20 },
  setupModules: [SCALE_MODULE],
});

interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  /** Resolves once the worker has joined a run (rebuilt its task). */
  joined: Promise<void>;
  stop: () => Promise<void>;
}
let workerBaseURL = '';
function startWorker(url: string): Worker {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CLI,
      'worker',
      '--queue',
      url,
      '--concurrency',
      String(C),
      '--lock-ms',
      '2000',
      '--stalled-ms',
      '500',
      '--allow-module',
      SCALE_MODULE,
      '--base-url',
      workerBaseURL,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, APIARY_QUEUE_SECRET: SECRET } },
  );
  let log = '';
  const seen = (text: string) =>
    new Promise<void>((res, rej) => {
      child.stderr!.on('data', () => {
        if (log.includes(text)) res();
      });
      child.once('exit', () => rej(new Error(`worker exited: ${log}`)));
    });
  child.stderr!.on('data', (d) => {
    log += String(d);
  });
  const ready = seen('waiting for runs');
  const joined = seen('joined run');
  ready.catch(() => {});
  joined.catch(() => {});
  return {
    child,
    ready,
    joined,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface Timed {
  ms: number;
  rate: number;
  stats?: QueueRunStats;
  records: number;
  pairsOnce: boolean;
}

/** One run into a temporary folder; every sample must succeed. `queue`: through the workers. */
async function timed(
  r: TaskRecipe,
  queue: { url: string; onStart?: () => void } | null,
  concurrency = C,
): Promise<Timed> {
  const { task } = await rebuildTask(r);
  const dir = mkdtempSync(join(tmpdir(), 'apiary-eval-distributed-'));
  const outFile = join(dir, 'results.jsonl');
  const spec = buildRunSpec(
    {
      task: { name: task.name, version: task.version, options: r.taskOptions },
      solver: { name: r.solver, options: {} },
      model: null,
      sampling: null,
      data: { path: 'bench', sha256: 'bench' },
      size: task.dataset.length,
      seed: 0,
      concurrency,
    },
    { now: () => new Date(), gitRevision: () => null, packageVersion: () => 'bench' },
  );
  const coordinator = queue
    ? await startQueueCoordinator({
        url: queue.url,
        auth: createQueueAuth(SECRET),
        recipe: r,
        data: { path: 'bench', sha256: 'bench' },
      })
    : null;
  const t0 = performance.now();
  try {
    const result = await runEval({
      task,
      spec,
      outFile,
      concurrency: coordinator ? Number.POSITIVE_INFINITY : concurrency,
      ...(coordinator ? { pool: coordinator } : {}),
      onProgress: (p) => {
        if (p.done === 1) queue?.onStart?.();
      },
    });
    const ms = performance.now() - t0;
    if (result.summary.errors !== 0 || result.summary.samples !== task.dataset.length)
      throw new Error(`${result.summary.samples} samples, ${result.summary.errors} errors`);
    const lines = readResultsFile(outFile).samples;
    const pairs = new Set(lines.map((l) => `${l.id}/${l.epoch}`));
    return {
      ms,
      rate: (task.dataset.length * 1000) / ms,
      ...(coordinator ? { stats: coordinator.stats() } : {}),
      records: lines.length,
      pairsOnce: pairs.size === lines.length,
    };
  } finally {
    await coordinator?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const redis = await startRedisServer();
const server = await scriptedServerProcess(LATENCY);
workerBaseURL = server.url;
const workers: Worker[] = [];
const rows: Array<{ what: string; inFlight: number; t: Timed }> = [];
try {
  await timed(recipe(200, server.url), null); // warm-up (JIT) of this process
  rows.push({ what: 'one local process', inFlight: C, t: await timed(recipe(N, server.url), null) });
  for (const n of [1, 2, 4]) {
    while (workers.length < n) workers.push(startWorker(redis.url));
    await Promise.all(workers.map((w) => w.ready));
    await timed(recipe(50 * n, server.url), { url: redis.url }); // warm-up of new workers
    rows.push({
      what: `${n} worker${n > 1 ? 's' : ''} over the queue`,
      inFlight: n * C,
      t: await timed(recipe(N, server.url), { url: redis.url }),
    });
  }
  await Promise.all(workers.splice(0).map((w) => w.stop()));

  // The kill test: 2 workers, one SIGKILLed once samples flow, a fresh one started in its place.
  const pair = [startWorker(redis.url), startWorker(redis.url)];
  workers.push(...pair);
  await Promise.all(pair.map((w) => w.ready));
  const killN = 400;
  let replacement: Worker | null = null;
  const kill = await timed(recipe(killN, server.url), {
    url: redis.url,
    // once results flow and the victim holds samples (it joined and took its first C jobs)
    onStart: () =>
      void pair[0]!.joined.then(() =>
        setTimeout(() => {
          pair[0]!.child.kill('SIGKILL');
          replacement = startWorker(redis.url);
          workers.push(replacement);
        }, 100),
      ),
  });

  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  console.log(
    `distributed eval: ${N} samples, flat agent, model over HTTP answering after ${LATENCY} ms, ${C} in flight per process (node ${process.version}, ${cpus().length} CPUs, load ${load})`,
  );
  const local = rows[0]!.t.rate;
  for (const { what, inFlight, t } of rows) {
    const ideal = (inFlight * 1000) / LATENCY;
    console.log(
      `  ${what.padEnd(26)} ${t.rate.toFixed(0).padStart(6)} samples/s  ×${(t.rate / local).toFixed(2)} of local  ${((t.rate / ideal) * 100).toFixed(0).padStart(3)}% of ideal (${inFlight} in flight)${t.stats ? `  queued ${t.stats.queued}, duplicates ${t.stats.duplicates}, lost ${t.stats.lost}` : ''}`,
    );
  }
  const s = kill.stats!;
  console.log(
    `kill test (2 workers, one SIGKILLed while it holds samples, another started): samples ${killN}, results ${s.results}, records ${kill.records}${kill.pairsOnce ? ' (each once)' : ' (SOME TWICE)'}, duplicates ${s.duplicates}, lost ${s.lost}, retried ${s.retried} (the killed worker's samples in flight)`,
  );
  if (s.duplicates !== 0 || s.lost !== 0 || kill.records !== killN || !kill.pairsOnce) process.exitCode = 1;
} finally {
  await Promise.all(workers.map((w) => w.stop()));
  server.close();
  await redis.close();
}
