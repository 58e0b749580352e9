/**
 * GTA end to end: wall time per query of the `gta` task (ReAct loop over the real tools, scored),
 * on the 13 authored queries of src/benchmarks/gta/__fixtures__/e2e with the scripted model on a local
 * OpenAI-compatible server (so the model costs ~nothing and the numbers are the loop + tools).
 *
 *   npx tsx perf/gta-e2e.ts [--runs N]
 *
 * Three passes over the queries: live tools recording every call (the first pass includes starting
 * the OCR worker, loading mathjs and the first sandbox runs), live tools again (warm), and a replay
 * of the recording (no tool runs). Baseline in the same run: the scripted model alone (one chat
 * completion round trip). Reported: median and p95 in ms per query, and the run's AnsAcc.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { respond } from '../src/benchmarks/gta/__fixtures__/e2e-script.js';
import { type GtaSample, gtaDefinition } from '../src/benchmarks/gta/index.js';
import { summarizeGtaTask } from '../src/benchmarks/gta/task-report.js';
import { resolveModelSetup } from '../src/models/index.js';
import { type LoadedTask, solveSample, type TaskToolSettings } from '../src/tasks/index.js';
import { startScriptedOpenAiServer } from '../src/test/index.js';

const RUNS = process.argv.includes('--runs') ? Number(process.argv[process.argv.indexOf('--runs') + 1]) : 3;
const DATA = resolve(import.meta.dirname, '../src/benchmarks/gta/__fixtures__/e2e');
const dir = mkdtempSync(join(tmpdir(), 'apiary-perf-gta-e2e-'));
const server = await startScriptedOpenAiServer({ respond });
const model = resolveModelSetup({ baseURL: server.url, model: 'scripted' }, { env: {}, cwd: dir })!;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
const rows: string[] = [];

async function load(tools: TaskToolSettings, runDir: string): Promise<LoadedTask> {
  return gtaDefinition.load({
    options: { mode: 'e2e' },
    solver: 'react',
    solverOptions: {},
    model: model.model,
    sampling: {},
    dataDir: DATA,
    seed: 0,
    runDir,
    tools: { ...tools, embeddings: { baseURL: server.url, model: 'scripted-embeddings' } },
  });
}

async function pass(name: string, loaded: LoadedTask, runs: number): Promise<void> {
  const times: number[] = [];
  let ansAcc = 0;
  for (let r = 0; r < runs; r++) {
    const scores = [];
    for (const sample of loaded.task.dataset as GtaSample[]) {
      const t0 = performance.now();
      const { output } = await solveSample(loaded.task, sample, { seed: 0 });
      scores.push(await loaded.task.scorer(sample, { output }));
      times.push(performance.now() - t0);
    }
    ansAcc = summarizeGtaTask(scores, []).e2e!.ansAcc;
  }
  times.sort((a, b) => a - b);
  rows.push(
    `| ${name} | ${quantile(times, 0.5).toFixed(1)} ms | ${quantile(times, 0.95).toFixed(1)} ms | ${times.length} | ${ansAcc.toFixed(2)} |`,
  );
}

const recording = join(dir, 'recording');
const live = await load({ recording: { dir: recording, mode: 'record' } }, join(dir, 'live'));
await pass('live tools, first pass (cold: OCR worker, mathjs, sandbox)', live, 1);
await pass('live tools, warm', live, RUNS);
await live.dispose?.();
const replay = await load({ recording: { dir: recording, mode: 'replay' } }, join(dir, 'replay'));
await pass('replayed tool calls', replay, RUNS);
console.error(replay.finalNotes?.().join('\n'));
await replay.dispose?.();

const chat: number[] = [];
for (let i = 0; i < 20; i++) {
  const t0 = performance.now();
  await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'scripted',
      messages: [{ role: 'user', content: 'What is 17 times 23?' }],
    }),
  }).then((r) => r.text());
  chat.push(performance.now() - t0);
}
chat.sort((a, b) => a - b);
rows.push(
  `| baseline: one scripted chat round trip | ${quantile(chat, 0.5).toFixed(1)} ms | ${quantile(chat, 0.95).toFixed(1)} ms | 20 | |`,
);

await server.close();
rmSync(dir, { recursive: true, force: true });
console.log('| per query (solve + score) | median | p95 | n | AnsAcc |\n|---|---|---|---|---|');
console.log(rows.join('\n'));
