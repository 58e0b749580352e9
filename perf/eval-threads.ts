/**
 * Where the CPU of a worker-thread eval goes, and what streaming buys: the in-process row of
 * perf/eval-scale.ts (AppBench-mini through the flat agent, a 50 ms model, 2 workers) run in
 * alternating passes through the same pool —
 * - `stream`: `SampleWorkerPool.stream` (what runEval uses): each worker keeps a local queue and
 *   writes its lines' text; the main thread only writes;
 * - `one-by-one`: the same pool seen without `stream` (as `--queue` pools are): one hand-out and one
 *   structured-cloned result per sample through the main thread.
 *
 *   npx tsx perf/eval-threads.ts [--samples N] [--concurrency C] [--workers W] [--passes P]
 *
 * Each pass prints samples/s, % of ideal (concurrency / 50 ms), CPU ms/sample of the process and of
 * each thread with at least 0.005 ms/sample (Linux /proc/self/task: `main`, the two busiest are the
 * workers, the ≈ 0.02 ones are V8's GC helper threads). Passes alternate, so load on a shared
 * machine hits both ways alike; the first pass of each warms the workers' JIT and heap.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import {
  APPBENCH_SAMPLING,
  type AppBenchSample,
  type AppBenchTask,
} from '../src/benchmarks/appbench/index.js';
import {
  rebuildTask,
  type SampleWorkerPool,
  startSampleWorkers,
  type TaskRecipe,
} from '../src/harness/index.js';
import { timeRun } from './appbench-load.js';
import { SCALE_TASK } from './scale-task.js';

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const C = flag('--concurrency', 256);
const N = flag('--samples', 10_240);
const W = Math.max(2, flag('--workers', 2));
const PASSES = flag('--passes', 6);
const LATENCY = 50;
const ideal = (C * 1000) / LATENCY;
const here = (f: string) => pathToFileURL(new URL(f, import.meta.url).pathname).href;
const recipe: TaskRecipe = {
  task: SCALE_TASK,
  taskOptions: { samples: N },
  solver: 'flat',
  solverOptions: {},
  model: { kind: 'module', module: here('./scale-model.ts'), options: { latencyMs: LATENCY } },
  sampling: APPBENCH_SAMPLING,
  seed: 0,
  setupModules: [here('./scale-task.ts')],
};

/** CPU clock ticks (1/100 s) of each thread of this process, by thread id. */
function threadTicks(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, Number(fields[11]) + Number(fields[12])); // utime + stime
  }
  return out;
}

const { task } = await rebuildTask(recipe);
const samples = task.dataset as AppBenchSample[];
const pool = await startSampleWorkers(recipe, W);
const oneByOne: SampleWorkerPool = {
  size: pool.size,
  run: pool.run.bind(pool),
  abort: pool.abort.bind(pool),
  close: pool.close.bind(pool),
  get failure() {
    return pool.failure;
  },
};
console.log(`${N} samples, concurrency ${C} × ${LATENCY} ms (ideal ${ideal} samples/s), ${W} workers`);
try {
  for (let pass = 0; pass < PASSES; pass++) {
    const how = pass % 2 === 0 ? 'stream' : 'one-by-one';
    const t0 = threadTicks();
    const m = await timeRun(task as AppBenchTask, samples, C, { pool: how === 'stream' ? pool : oneByOne });
    const threads: string[] = [];
    for (const [tid, ticks] of threadTicks()) {
      const ms = ((ticks - (t0.get(tid) ?? 0)) * 10) / N;
      if (ms >= 0.005) threads.push(`${tid === String(process.pid) ? 'main' : tid} ${ms.toFixed(3)}`);
    }
    console.log(
      `  ${how.padEnd(10)} ${m.rate.toFixed(0).padStart(5)} samples/s ${((m.rate / ideal) * 100).toFixed(1).padStart(5)}%  ${m.cpuMsPerSample.toFixed(3)} CPU ms/sample (threads: ${threads.join(', ')}; load ${loadavg()[0]!.toFixed(1)})`,
    );
  }
} finally {
  await pool.close();
}
