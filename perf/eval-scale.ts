/**
 * The harness at high concurrency: AppBench through the flat agent on the agent runtime, with a
 * model that answers after a fixed 50 ms, 256 samples in flight.
 *
 *   npx tsx perf/eval-scale.ts [--samples N] [--concurrency C] [--latency MS] [--workers W]
 *
 * Ideal throughput = concurrency / latency (5,120 samples/s at 256 × 50 ms). The default 40,960
 * samples are 8 s of ideal time: a run's fixed costs (the summary over every record, the final
 * fsync, the ramp up and down of the first and last 256 samples: about 80 ms at 10,240 samples,
 * 2–4 % of a 2 s run) weigh little against the steady rate. Rows, in one run:
 * 1. baseline: the harness with a no-op solver (same scorer, same JSONL writes);
 * 2. model in process, 1 thread: what the harness, the agent loop, the AI SDK call and the AppBench
 *    scorer sustain on the main thread;
 * 3. model in process, W worker threads (default 2): samples solved, scored and serialised in
 *    workers streaming from local queues, the main thread writing the lines (perf/eval-threads.ts
 *    compares with the one-by-one hand-out); the workers' start-up is printed and left out. The model is a closure, so workers build it from a module recipe
 *    (perf/scale-model.ts: a bare AI SDK v3 model answering gold replies after the latency) and the
 *    task from perf/scale-task.ts (registered on import); rows 1–2 use the very same model and task;
 * 4. over loopback HTTP to the scripted OpenAI-compatible server in a child process, W workers —
 *    adds the HTTP client and JSON on both sides.
 * Each row is the second of two passes over its samples (the first warms up the JIT and the heap).
 * CPU ms/sample is this process's CPU (all its threads; not the HTTP server's) per sample: it barely
 * depends on other load, unlike samples/s on a shared machine. Target: ≥ 95 % of ideal in process.
 */
import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import {
  APPBENCH_SAMPLING,
  type AppBenchSample,
  type AppBenchTask,
} from '../src/benchmarks/appbench/index.js';
import { rebuildTask, startSampleWorkers, type TaskRecipe } from '../src/harness/index.js';
import { type Measure, scriptedServerProcess, timeRun } from './appbench-load.js';
import { SCALE_TASK } from './scale-task.js';

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const CONCURRENCY = flag('--concurrency', 256);
const LATENCY = flag('--latency', 50);
const N = flag('--samples', 40_960);
const WORKERS = flag('--workers', 2);
const ideal = (CONCURRENCY * 1000) / LATENCY;
const here = (file: string) => pathToFileURL(new URL(file, import.meta.url).pathname).href;

const recipe = (solver: 'flat' | 'noop', n: number, model: TaskRecipe['model']): TaskRecipe => ({
  // over HTTP a busy server may drop a kept-alive socket: retried (in process nothing fails)
  ...(model?.kind === 'endpoint' ? { modelCalls: { maxRetries: 2, baseDelayMs: 20 } } : {}),
  task: SCALE_TASK,
  taskOptions: { samples: n },
  solver,
  solverOptions: {},
  model,
  sampling: APPBENCH_SAMPLING,
  seed: 0,
  setupModules: [here('./scale-task.ts')],
});
const inProcessModel: TaskRecipe['model'] = {
  kind: 'module',
  module: here('./scale-model.ts'),
  options: { latencyMs: LATENCY },
};

/**
 * One row: a warm-up pass over the same samples, then the measured pass. Worker threads are new V8
 * isolates: their JIT and heap settle over the first thousands of samples (measured CPU/sample after
 * 1,000 samples per worker: ≈ 0.42 ms; after 5,000: ≈ 0.31 ms, as in the main thread), so each
 * configuration gets a full warm-up pass, and the workers' start-up is printed apart.
 */
async function measure(r: TaskRecipe, workers: number): Promise<Measure> {
  const { task } = await rebuildTask(r);
  const samples = task.dataset as AppBenchSample[];
  if (workers <= 1) {
    await timeRun(task as AppBenchTask, samples, CONCURRENCY);
    return timeRun(task as AppBenchTask, samples, CONCURRENCY);
  }
  const t0 = performance.now();
  const pool = await startSampleWorkers(r, workers);
  startups.push(performance.now() - t0);
  try {
    await timeRun(task as AppBenchTask, samples, CONCURRENCY, { pool });
    return await timeRun(task as AppBenchTask, samples, CONCURRENCY, { pool });
  } finally {
    await pool.close();
  }
}
const startups: number[] = [];

const base = await measure(recipe('noop', N, null), 1);
const inproc = await measure(recipe('flat', N, inProcessModel), 1);
const inprocWorkers = await measure(recipe('flat', N, inProcessModel), WORKERS);
const server = await scriptedServerProcess(LATENCY);
const nHttp = Math.min(N, 4096);
const http: TaskRecipe['model'] = { kind: 'endpoint', baseURL: server.url, modelId: 'scripted' };
let overHttp: Measure;
let overHttpWorkers: Measure;
try {
  overHttp = await measure(recipe('flat', nHttp, http), 1);
  overHttpWorkers = await measure(recipe('flat', nHttp, http), WORKERS);
} finally {
  server.close();
}

const load = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
console.log(
  `eval at concurrency ${CONCURRENCY} × ${LATENCY} ms (ideal ${ideal.toFixed(0)} samples/s; node ${process.version}, ${cpus().length} CPUs, load ${load})`,
);
const row = (what: string, n: number, m: Measure, withIdeal = true) =>
  console.log(
    `  ${what.padEnd(40)} n=${String(n).padStart(6)} ${m.rate.toFixed(0).padStart(6)} samples/s ${withIdeal ? `${((m.rate / ideal) * 100).toFixed(1).padStart(5)}% of ideal` : ' '.repeat(15)}  ${m.cpuMsPerSample.toFixed(3)} CPU ms/sample`,
  );
console.log(
  `  (${WORKERS} workers start in ${startups.map((ms) => `${Math.round(ms)} ms`).join(', ')}; excluded below)`,
);
row('baseline: harness + no-op solver', N, base, false);
row('flat agent, model in process, 1 thread', N, inproc);
row(`flat agent, model in process, ${WORKERS} workers`, N, inprocWorkers);
row('flat agent, model over HTTP, 1 thread', nHttp, overHttp);
row(`flat agent, model over HTTP, ${WORKERS} workers`, nHttp, overHttpWorkers);
const best = Math.max(inproc.rate, inprocWorkers.rate);
const ok = best >= 0.95 * ideal;
console.log(
  `target ≥ 95% of ideal (model in process, best of 1 thread and ${WORKERS} workers): ${ok ? 'met' : 'MISSED'}`,
);
if (!ok) process.exitCode = 1;
