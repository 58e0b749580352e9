/**
 * Shared by the eval perf scripts: AppBench samples replicated from the bundled mini set, a timed
 * `runEval`, and the scripted OpenAI-compatible server in a child process (as a real endpoint would
 * be: the figures measure the harness and its HTTP client, not the test server).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AppBenchSample,
  type AppBenchTask,
  appBenchGoldReply,
  appBenchTask,
  loadAppBenchDataset,
} from '../src/benchmarks/appbench/index.js';
import { registerBuiltinPlugins } from '../src/benchmarks/builtin.js';
import { loadCatalog } from '../src/catalog/index.js';
import {
  buildRunSpec,
  readResultsFile,
  runEval,
  type SampleWorkerPool,
  type TaskRecipe,
} from '../src/harness/index.js';
import { startScriptedOpenAiServer } from '../src/test/index.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

export const catalog = loadCatalog('appbench');
const mini = loadAppBenchDataset(resolve(import.meta.dirname, '../examples/appbench-mini')).samples;
const goldByInput = new Map(mini.map((s) => [s.record.input, appBenchGoldReply(s.record)]));

/** The 8 hand-written records repeated to n samples with distinct ids. */
export function replicate(n: number): AppBenchSample[] {
  return Array.from({ length: n }, (_, i) => {
    const base = mini[i % mini.length]!;
    return { ...base, id: `${base.category}-${i}`, index: i };
  });
}

/** The scripted model's answer to an instruction: its gold reply (explicit usage: no word counting). */
export function goldAnswer(instruction: string | undefined) {
  return {
    text: goldByInput.get(instruction ?? '') ?? '',
    usage: { prompt_tokens: 1, completion_tokens: 1 },
  };
}

/** The harness with a solver that answers nothing (same scorer, same JSONL writes): the baseline. */
export function noopTask(samples: AppBenchSample[]): AppBenchTask {
  const agent = {
    name: 'noop',
    plan: async () => ({ reply: '', usage: { inputTokens: 0, outputTokens: 0 }, modelCalls: 0 }),
  };
  return appBenchTask({ samples, catalog, agent });
}

export interface Measure {
  ms: number;
  rate: number;
  /** CPU time of this process per sample (barely depends on other load, unlike samples/s). */
  cpuMsPerSample: number;
  report: unknown;
}

/**
 * Runs `task` over `samples` into a temporary results file; every sample must succeed. With
 * `workers` > 1, worker threads rebuild the task from `recipe` (or `pool`'s workers solve).
 */
export async function timeRun(
  task: AppBenchTask,
  samples: AppBenchSample[],
  concurrency: number,
  threads: { workers?: number; recipe?: TaskRecipe; pool?: SampleWorkerPool } = {},
): Promise<Measure> {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-eval-bench-'));
  const spec = buildRunSpec(
    {
      task: { name: task.name, version: task.version, options: {} },
      solver: { name: 'bench', options: {} },
      model: null,
      sampling: null,
      data: { path: 'bench', sha256: 'bench' },
      size: samples.length,
      seed: 0,
      concurrency,
    },
    { now: () => new Date(), gitRevision: () => null, packageVersion: () => 'bench' },
  );
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runEval({
    task,
    samples,
    spec,
    concurrency,
    outFile: join(dir, 'results.jsonl'),
    ...threads,
  });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const firstError = r.summary.errors
    ? readResultsFile(join(dir, 'results.jsonl')).samples.find((l) => l.error !== null)?.error
    : undefined;
  rmSync(dir, { recursive: true, force: true });
  if (r.summary.samples !== samples.length || r.summary.errors !== 0)
    throw new Error(`${r.summary.samples} samples, ${r.summary.errors} errors (first: ${firstError})`);
  return {
    ms,
    rate: (samples.length * 1000) / ms,
    cpuMsPerSample: (cpu.user + cpu.system) / 1000 / samples.length,
    report: r.summary.report,
  };
}

/** Best of `reps` runs (the machine may be shared: the fastest run is the least disturbed). */
export async function best(reps: number, run: () => Promise<Measure>): Promise<Measure> {
  let top: Measure | undefined;
  for (let i = 0; i < reps; i++) {
    const m = await run();
    if (!top || m.rate > top.rate) top = m;
  }
  return top!;
}

export interface ServerProcess {
  url: string;
  /** CPU time the server process has used so far (ms, all its threads): its share of the machine. */
  cpuMs: () => Promise<number>;
  close: () => void;
}

/** Starts the scripted server answering gold replies after `latencyMs`, in a child process. */
export async function scriptedServerProcess(latencyMs: number): Promise<ServerProcess> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve-scripted', String(latencyMs)], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((res, rej) => {
    child.once('message', (m) => res(String(m)));
    child.once('exit', (code) => rej(new Error(`scripted server exited (${code})`)));
  });
  const cpuMs = () =>
    new Promise<number>((res) => {
      child.once('message', (m) => res(Number(m)));
      child.send('cpu');
    });
  return { url, cpuMs, close: () => child.kill() };
}

const at = process.argv.indexOf('--serve-scripted');
if (at > 0 && process.argv[1] === fileURLToPath(import.meta.url))
  startScriptedOpenAiServer({
    latencyMs: Number(process.argv[at + 1]),
    // a load test: retained requests would be the server's own GC load (a measurement artefact)
    recordRequests: false,
    respond: (req) => goldAnswer(req.messages.at(-1)?.content),
  }).then((server) => {
    process.on('message', () => {
      const u = process.cpuUsage();
      process.send!((u.user + u.system) / 1000);
    });
    process.send!(server.url);
  });
