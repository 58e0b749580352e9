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
 *    HTTP client and JSON on both sides; on a 2-core machine this is CPU-bound well below the
 *    ideal, and the CPU ms per sample shows why.
 * Baseline in the same run: the harness with a no-op solver (same scorer, same JSONL writes).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { flatAgent } from '../src/agents/index.js';
import { loadCatalog } from '../src/catalog/index.js';
import { buildRunSpec, runEval } from '../src/harness/index.js';
import {
  APPBENCH_SAMPLING,
  type AppBenchSample,
  type AppBenchTask,
  appBenchGoldReply,
  appBenchTask,
  loadAppBenchDataset,
} from '../src/tasks/index.js';
import { scriptedLanguageModel, startScriptedOpenAiServer } from '../src/test/index.js';

const flag = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const CONCURRENCY = flag('--concurrency', 256);
const LATENCY = flag('--latency', 50);
const N = flag('--samples', 10_240);

const catalog = loadCatalog('appbench');
const mini = loadAppBenchDataset(resolve(import.meta.dirname, '../examples/appbench-mini')).samples;
const replicate = (n: number): AppBenchSample[] =>
  Array.from({ length: n }, (_, i) => {
    const base = mini[i % mini.length]!;
    return { ...base, id: `${base.category}-${i}`, index: i };
  });
const goldByInput = new Map(mini.map((s) => [s.record.input, appBenchGoldReply(s.record)]));
const answer = (last: string | undefined) => ({
  text: goldByInput.get(last ?? '') ?? '',
  usage: { prompt_tokens: 1, completion_tokens: 1 },
});

async function timeRun(task: AppBenchTask, samples: AppBenchSample[]) {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-eval-scale-'));
  const spec = buildRunSpec(
    {
      task: { name: task.name, version: task.version, options: {} },
      solver: { name: 'bench', options: {} },
      model: null,
      sampling: null,
      data: { path: 'bench', sha256: 'bench' },
      size: samples.length,
      seed: 0,
      concurrency: CONCURRENCY,
    },
    { now: () => new Date(), gitRevision: () => null, packageVersion: () => 'bench' },
  );
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runEval({
    task,
    samples,
    spec,
    concurrency: CONCURRENCY,
    outFile: join(dir, 'results.jsonl'),
  });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  rmSync(dir, { recursive: true, force: true });
  if (r.summary.samples !== samples.length || r.summary.errors !== 0)
    throw new Error(`${r.summary.samples} samples, ${r.summary.errors} errors`);
  return { rate: (samples.length * 1000) / ms, cpuMs: (cpu.user + cpu.system) / 1000 / samples.length };
}

function serve(latencyMs: number): void {
  startScriptedOpenAiServer({ latencyMs, respond: (req) => answer(req.messages.at(-1)?.content) }).then((s) =>
    process.send!(s.url),
  );
}

async function httpModel(latencyMs: number) {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', String(latencyMs)], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((res, rej) => {
    child.once('message', (m) => res(String(m)));
    child.once('exit', (code) => rej(new Error(`server exited (${code})`)));
  });
  return {
    model: createOpenAICompatible({ name: 'scripted', baseURL: url })('scripted'),
    close: () => child.kill(),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const samples = replicate(N);
  const ideal = (CONCURRENCY * 1000) / LATENCY;
  const noop = appBenchTask({
    samples,
    catalog,
    agent: {
      name: 'noop',
      plan: async () => ({ reply: '', usage: { inputTokens: 0, outputTokens: 0 }, modelCalls: 0 }),
    },
  });
  const inProcess = scriptedLanguageModel(async (req) => {
    await sleep(LATENCY);
    return answer(req.messages.at(-1)?.content);
  });
  const flat = (model: LanguageModel) =>
    appBenchTask({
      samples,
      catalog,
      agent: flatAgent({ model, settings: APPBENCH_SAMPLING, maxRetries: 0 }),
    });

  await timeRun(noop, samples.slice(0, 2000)); // warm-up
  await timeRun(flat(inProcess), samples.slice(0, 2000));
  const base = await timeRun(noop, samples);
  const inproc = await timeRun(flat(inProcess), samples);
  const http = await httpModel(LATENCY);
  const nHttp = Math.min(N, 4096);
  await timeRun(flat(http.model), samples.slice(0, 512));
  const overHttp = await timeRun(flat(http.model), samples.slice(0, nHttp));
  http.close();

  const load = loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  console.log(
    `eval at concurrency ${CONCURRENCY} × ${LATENCY} ms (ideal ${ideal.toFixed(0)} samples/s; node ${process.version}, ${cpus().length} CPUs, load ${load})`,
  );
  const row = (what: string, n: number, m: { rate: number; cpuMs: number }, rel: string) =>
    console.log(
      `  ${what.padEnd(46)} n=${String(n).padStart(6)} ${m.rate.toFixed(0).padStart(6)} samples/s ${m.cpuMs.toFixed(3)} CPU ms/sample  ${rel}`,
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
}

const at = process.argv.indexOf('--serve');
if (at > 0) serve(Number(process.argv[at + 1]));
else await main();
