/**
 * Throughput of the eval harness (`runEval`) on AppBench, end to end through the flat agent and
 * real loopback HTTP to the scripted OpenAI-compatible server.
 *
 *   npx tsx perf/eval-throughput.ts [--samples N]
 *
 * 1. Server answering at once, concurrency 16: samples/s of the full path, against a baseline
 *    measured in the same run (the harness with a no-op solver, same AppBench scorer and JSONL
 *    writes). Target ≥ 500 samples/s.
 * 2. Server with a fixed 200 ms latency, concurrency 16: samples/s against the ideal 16 / 0.2 s =
 *    80 samples/s. Target ≥ 90 % of ideal.
 *
 * The server runs in a child process (like a real endpoint). Each figure is the best of 3 runs and
 * comes with the CPU time of the harness process per sample, which (unlike samples/s) barely
 * depends on other load on the machine; the load average is printed with the figures.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { flatAgent } from '../src/agents/index.js';
import { APPBENCH_SAMPLING, type AppBenchSample, appBenchTask } from '../src/benchmarks/appbench/index.js';
import { resolveModelSetup } from '../src/models/index.js';
import {
  best,
  catalog,
  type Measure,
  noopTask,
  replicate,
  scriptedServerProcess,
  timeRun,
} from './appbench-load.js';

const argN = process.argv.indexOf('--samples');
const N = argN > 0 ? Number(process.argv[argN + 1]) : 1000;
const CONCURRENCY = 16;
const REPS = 3;

async function serverTask(latencyMs: number) {
  const server = await scriptedServerProcess(latencyMs);
  const setup = resolveModelSetup(
    { baseURL: server.url, model: 'scripted' },
    { env: {}, cwd: tmpdir(), exists: () => false },
  )!;
  // the model exactly as `apiary eval appbench --base-url … --model …` builds it
  const agent = flatAgent({ model: setup.model, settings: APPBENCH_SAMPLING, maxRetries: 0 });
  return {
    close: server.close,
    make: (samples: AppBenchSample[]) => appBenchTask({ samples, catalog, agent }),
  };
}

const fmt = (x: number) => x.toFixed(1);

async function main() {
  const samples = replicate(N);
  const noop = noopTask(samples);
  const fast = await serverTask(0);
  // warm-up (JIT, module init, sockets)
  await timeRun(noop, replicate(400), CONCURRENCY);
  await timeRun(fast.make(replicate(400)), replicate(400), CONCURRENCY);

  const base = await best(REPS, () => timeRun(noop, samples, CONCURRENCY));
  const full = await best(REPS, () => timeRun(fast.make(samples), samples, CONCURRENCY));
  fast.close();
  if ((full.report as { official: { success: number } }).official.success !== 1)
    throw new Error('the scripted gold replies did not all score as successes');

  const slow = await serverTask(200);
  const nSlow = 320;
  const lat = await best(REPS, () => timeRun(slow.make(replicate(nSlow)), replicate(nSlow), CONCURRENCY));
  slow.close();
  const ideal = CONCURRENCY / 0.2;

  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  console.log(
    `eval throughput, concurrency ${CONCURRENCY}, best of ${REPS} (node ${process.version}, ${cpus().length} CPUs, load average ${load})`,
  );
  const row = (what: string, n: number, m: Measure, rel: string) =>
    console.log(
      `  ${what.padEnd(52)} n=${String(n).padStart(5)}  ${fmt(m.rate).padStart(7)} samples/s  ${m.cpuMsPerSample
        .toFixed(2)
        .padStart(5)} CPU ms/sample  ${rel}`,
    );
  row('baseline: harness + no-op solver (scorer, JSONL)', N, base, '');
  row(
    'flat agent over HTTP, server answers at once',
    N,
    full,
    `${(full.rate / base.rate).toFixed(3)} × baseline`,
  );
  row(
    'flat agent over HTTP, 200 ms latency',
    nSlow,
    lat,
    `${((lat.rate / ideal) * 100).toFixed(1)}% of ideal ${ideal}/s`,
  );
  console.log(
    `  CPU-bound capacity of the full path: ${fmt(1000 / full.cpuMsPerSample)} samples per CPU-second (harness process)`,
  );
  const okFast = full.rate >= 500;
  const okLat = lat.rate >= 0.9 * ideal;
  console.log(
    `targets: ≥ 500 samples/s at once: ${okFast ? 'met' : 'MISSED'}; ≥ 90% of ideal at 200 ms: ${okLat ? 'met' : 'MISSED'}`,
  );
  if (!okFast || !okLat) process.exitCode = 1;
}

await main();
