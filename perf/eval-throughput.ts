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
 * 3. A 50 ms endpoint at concurrency 64 and 256 (issue 27 D), the model in process beside it (the
 *    same flat agent on perf/scale-model.ts answering after 50 ms): ideal = concurrency / 50 ms,
 *    capped by the sample count (n samples take at least ⌈n / concurrency⌉ × 50 ms). Targets over
 *    HTTP: ≥ 90 % of ideal at 64 and ≥ 60 % at 256. The server's own CPU per sample is printed
 *    apart (it shares the machine's cores: on 2 CPUs a costly test server is a measurement
 *    artefact, not the harness).
 *
 *   npx tsx perf/eval-throughput.ts --part 50ms   (only part 3; also `at-once`, `200ms`)
 *
 * The server runs in a child process (like a real endpoint). Each figure is the best of 3 runs and
 * comes with the CPU time of the harness process per sample, which (unlike samples/s) barely
 * depends on other load on the machine; the load average is printed with the figures.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { flatAgent } from '../src/agents/index.js';
import { APPBENCH_SAMPLING, type AppBenchSample, appBenchTask } from '../src/benchmarks/appbench/index.js';
import { createEndpointFetch } from '../src/models/endpoint-fetch.js';
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
import { createModel } from './scale-model.js';

const argN = process.argv.indexOf('--samples');
const N = argN > 0 ? Number(process.argv[argN + 1]) : 1000;
const argPart = process.argv.indexOf('--part');
const PART = argPart > 0 ? process.argv[argPart + 1] : undefined;
const CONCURRENCY = 16;
const REPS = 3;

const taskOf = (model: LanguageModel) => {
  const agent = flatAgent({ model, settings: APPBENCH_SAMPLING, maxRetries: 0 });
  return (samples: AppBenchSample[]) => appBenchTask({ samples, catalog, agent });
};

const noConfig = { env: {}, cwd: tmpdir(), exists: () => false };

async function serverTask(latencyMs: number) {
  const server = await scriptedServerProcess(latencyMs);
  // the model exactly as `apiary eval appbench --base-url … --model …` builds it
  const setup = resolveModelSetup({ baseURL: server.url, model: 'scripted' }, noConfig)!;
  return { close: server.close, make: taskOf(setup.model) };
}

const fmt = (x: number) => x.toFixed(1);
const loadAverage = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/** Samples/s if every sample took exactly `latencyMs` and `concurrency` ran at a time. */
const idealRate = (n: number, concurrency: number, latencyMs: number) =>
  (n * 1000) / (Math.ceil(n / concurrency) * latencyMs);

interface LatencyRow extends Measure {
  /** The server process's CPU per sample (ms), over HTTP. */
  serverCpuMsPerSample?: number;
}

interface Variant {
  what: string;
  make: (s: AppBenchSample[]) => ReturnType<typeof noopTask>;
  serverCpuMs?: () => Promise<number>;
  http: boolean;
}

/**
 * Each variant's best of REPS passes after one warm-up pass each; the passes alternate between
 * the variants (A B C A B C …) so that a burst of load from other processes hits them alike.
 */
async function bestPasses(variants: Variant[], n: number, concurrency: number): Promise<LatencyRow[]> {
  const samples = replicate(n);
  for (const v of variants) await timeRun(v.make(samples), samples, concurrency);
  const top: Array<LatencyRow | undefined> = variants.map(() => undefined);
  for (let i = 0; i < REPS; i++)
    for (const [k, v] of variants.entries()) {
      const s0 = v.serverCpuMs ? await v.serverCpuMs() : 0;
      const m: LatencyRow = await timeRun(v.make(samples), samples, concurrency);
      if (v.serverCpuMs) m.serverCpuMsPerSample = ((await v.serverCpuMs()) - s0) / n;
      if (!top[k] || m.rate > top[k]!.rate) top[k] = m;
    }
  return top as LatencyRow[];
}

/**
 * Part 3: the 50 ms endpoint at concurrency 64 and 256: the model in process; over HTTP as
 * `apiary eval` builds it (src/models/endpoint-chat-model.ts); the provider's own model over the
 * keep-alive pool fetch (src/models/endpoint-fetch.ts) alone; and the provider over the global
 * fetch, as models were built before both.
 */
async function latency50(): Promise<boolean> {
  const LATENCY = 50;
  const server = await scriptedServerProcess(LATENCY);
  const viaGlobalFetch = createOpenAICompatible({ name: 'apiary', baseURL: server.url, includeUsage: true });
  const variants: Variant[] = [
    { what: 'model in process', make: taskOf(createModel({ latencyMs: LATENCY })), http: false },
    {
      what: 'over HTTP (apiary eval)',
      make: taskOf(resolveModelSetup({ baseURL: server.url, model: 'scripted' }, noConfig)!.model),
      serverCpuMs: server.cpuMs,
      http: true,
    },
    {
      what: 'over HTTP, provider + pool fetch',
      make: taskOf(
        createOpenAICompatible({
          name: 'apiary',
          baseURL: server.url,
          includeUsage: true,
          fetch: createEndpointFetch(),
        }).chatModel('scripted'),
      ),
      serverCpuMs: server.cpuMs,
      http: true,
    },
    {
      what: 'over HTTP, global fetch (before)',
      make: taskOf(viaGlobalFetch.chatModel('scripted')),
      serverCpuMs: server.cpuMs,
      http: true,
    },
  ];
  const cases = [
    { concurrency: 64, n: 2560, target: 0.9 },
    { concurrency: 256, n: 5120, target: 0.6 },
  ];
  const rows: string[] = [];
  let ok = true;
  try {
    for (const { concurrency, n, target } of cases) {
      const ideal = idealRate(n, concurrency, LATENCY);
      const measured = await bestPasses(variants, n, concurrency);
      for (const [k, m] of measured.entries())
        rows.push(
          `  ${variants[k]!.what.padEnd(34)} c=${String(concurrency).padStart(3)} n=${String(n).padStart(5)} ${fmt(m.rate).padStart(7)} samples/s ${((m.rate / ideal) * 100).toFixed(1).padStart(5)}% of ideal ${ideal.toFixed(0)}/s  ${m.cpuMsPerSample.toFixed(3)} CPU ms/sample${m.serverCpuMsPerSample === undefined ? '' : ` (+ server ${m.serverCpuMsPerSample.toFixed(3)})`}`,
        );
      const met = measured[1]!.rate >= target * ideal;
      rows.push(
        `  target over HTTP ≥ ${target * 100}% of ideal at ${concurrency}: ${met ? 'met' : 'MISSED'}`,
      );
      ok &&= met;
    }
  } finally {
    server.close();
  }
  console.log(
    `50 ms endpoint, 1 thread, best of ${REPS} alternating passes after a warm-up (node ${process.version}, ${cpus().length} CPUs, load average ${loadAverage()})`,
  );
  for (const r of rows) console.log(r);
  return ok;
}

async function main() {
  if (PART === '50ms') {
    if (!(await latency50())) process.exitCode = 1;
    return;
  }
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

  const load = loadAverage();
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
  const ok50 = await latency50();
  if (!okFast || !okLat || !ok50) process.exitCode = 1;
}

await main();
