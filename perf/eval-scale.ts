/**
 * The harness at high concurrency: AppBench through the flat agent on the agent runtime, with a
 * model that answers after a fixed 50 ms, 256 samples in flight.
 *
 *   npx tsx perf/eval-scale.ts [--samples N] [--concurrency C] [--latency MS]
 *
 * Ideal throughput = concurrency / latency (5,120 samples/s at 256 × 50 ms). Two model transports:
 * 1. in process: a scripted AI SDK model (no HTTP) — what the harness, the agent loop, the AI SDK
 *    call and the AppBench scorer sustain; target ≥ 95 % of ideal;
 * 2. over loopback HTTP to the scripted OpenAI-compatible server in a child process — adds the
 *    HTTP client and JSON on both sides.
 * Baseline in the same run: the harness with a no-op solver (same scorer, same JSONL writes).
 */
import { cpus, loadavg } from 'node:os';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { flatAgent } from '../src/agents/index.js';
import { APPBENCH_SAMPLING, appBenchTask } from '../src/tasks/index.js';
import { scriptedLanguageModel } from '../src/test/index.js';
import {
  catalog,
  goldAnswer,
  type Measure,
  noopTask,
  replicate,
  scriptedServerProcess,
  timeRun,
} from './appbench-load.js';

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const CONCURRENCY = flag('--concurrency', 256);
const LATENCY = flag('--latency', 50);
const N = flag('--samples', 10_240);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const samples = replicate(N);
const ideal = (CONCURRENCY * 1000) / LATENCY;
const flat = (model: LanguageModel, n = N) =>
  appBenchTask({
    samples: samples.slice(0, n),
    catalog,
    agent: flatAgent({ model, settings: APPBENCH_SAMPLING, maxRetries: 0 }),
  });
const inProcess = scriptedLanguageModel(async (req) => {
  await sleep(LATENCY);
  return goldAnswer(req.messages.at(-1)?.content);
});

await timeRun(noopTask(samples.slice(0, 2000)), samples.slice(0, 2000), CONCURRENCY); // warm-up
await timeRun(flat(inProcess, 2000), samples.slice(0, 2000), CONCURRENCY);
const base = await timeRun(noopTask(samples), samples, CONCURRENCY);
const inproc = await timeRun(flat(inProcess), samples, CONCURRENCY);
const server = await scriptedServerProcess(LATENCY);
const http = createOpenAICompatible({ name: 'scripted', baseURL: server.url })('scripted');
const nHttp = Math.min(N, 4096);
await timeRun(flat(http, 512), samples.slice(0, 512), CONCURRENCY);
const overHttp = await timeRun(flat(http, nHttp), samples.slice(0, nHttp), CONCURRENCY);
server.close();

const load = loadavg()
  .map((x) => x.toFixed(1))
  .join(' ');
console.log(
  `eval at concurrency ${CONCURRENCY} × ${LATENCY} ms (ideal ${ideal.toFixed(0)} samples/s; node ${process.version}, ${cpus().length} CPUs, load ${load})`,
);
const row = (what: string, n: number, m: Measure, rel: string) =>
  console.log(
    `  ${what.padEnd(46)} n=${String(n).padStart(6)} ${m.rate.toFixed(0).padStart(6)} samples/s ${m.cpuMsPerSample.toFixed(3)} CPU ms/sample  ${rel}`,
  );
row('baseline: harness + no-op solver', N, base, '');
row(
  'flat agent on the runtime, model in process',
  N,
  inproc,
  `${((inproc.rate / ideal) * 100).toFixed(1)}% of ideal`,
);
row(
  'flat agent on the runtime, model over HTTP',
  nHttp,
  overHttp,
  `${((overHttp.rate / ideal) * 100).toFixed(1)}% of ideal`,
);
const ok = inproc.rate >= 0.95 * ideal;
console.log(`target ≥ 95% of ideal (model in process): ${ok ? 'met' : 'MISSED'}`);
if (!ok) process.exitCode = 1;
