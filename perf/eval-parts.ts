/**
 * CPU per sample of each part of the eval hot path (issue 10's 256 × 50 ms target), measured
 * apart with `process.cpuUsage()` (CPU time barely depends on other load; wall time does):
 *
 *   npx tsx perf/eval-parts.ts [--samples N]
 *
 * - generate: one `generate()` call (a turn without tools: the provider model called with the AI
 *   SDK's request pieces, docs/models.md) on the perf model answering at once
 *   (perf/scale-model.ts), 64 in flight;
 * - agent loop: the flat agent's `plan` (prompt, runtime, plan-lines protocol, trace) minus generate;
 * - scoring: `scoreAppBenchSample` on the AppBench dev set when ../shared/data has it (200 records,
 *   each scored once, half with their gold reply, half with another sample's), else the mini set;
 * - harness: `runEval` at concurrency 256 with a solver and a scorer that return one real flat-agent
 *   output (reply and trace) and its score for every sample: results JSONL, summary (AppBench report).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { flatAgent, planPrompt, renderAppApiList } from '../src/agents/index.js';
import {
  APPBENCH_SAMPLING,
  type AppBenchSample,
  appBenchGoldReply,
  appBenchTask,
  loadAppBenchDataset,
  summarizeAppBench,
} from '../src/benchmarks/appbench/index.js';
import { scoreAppBenchSample } from '../src/benchmarks/appbench/score-appbench.js';
import { registerBuiltinPlugins } from '../src/benchmarks/builtin.js';
import { loadCatalog } from '../src/catalog/index.js';
import { buildRunSpec, runEval } from '../src/harness/index.js';
import { generate } from '../src/models/index.js';
import { sampleSolver, solveSample } from '../src/tasks/index.js';
import { createModel } from './scale-model.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const at = process.argv.indexOf('--samples');
const N = at > 0 ? Number(process.argv[at + 1]) : 16_000;
const catalog = loadCatalog('appbench');
const mini = loadAppBenchDataset(resolve(import.meta.dirname, '../examples/appbench-mini')).samples;
const model = createModel({ latencyMs: 0 });

async function cpuPerOp(n: number, op: (i: number) => unknown, inFlight = 64): Promise<number> {
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i += inFlight)
    await Promise.all(Array.from({ length: Math.min(inFlight, n - i) }, (_, j) => op(i + j)));
  const u = process.cpuUsage(c0);
  return (u.user + u.system) / 1000 / n;
}
/** Best of 3 (the least disturbed by the other processes of a shared machine). */
async function best(n: number, op: (i: number) => unknown): Promise<number> {
  await cpuPerOp(Math.min(n, 2000), op); // JIT warm-up
  let top = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 3; r++) top = Math.min(top, await cpuPerOp(n, op));
  return top;
}

const instruction = (i: number) => mini[i % mini.length]!.record.input;
const system = planPrompt(renderAppApiList(catalog), '2019-03-01'); // the flat agent's own prompt
const generateMs = await best(N, (i) =>
  generate({
    model,
    system,
    messages: [{ role: 'user', content: instruction(i) }],
    settings: APPBENCH_SAMPLING,
    retry: { maxRetries: 0 },
  }),
);
const agent = flatAgent({ model, settings: APPBENCH_SAMPLING, maxRetries: 0 });
const planMs = await best(N, (i) =>
  agent.plan({ instruction: instruction(i), currentDate: '2019-03-01' }, { catalog }),
);

const DEV = resolve(import.meta.dirname, '../../shared/data/appbench');
const pool = existsSync(join(DEV, 'dev_ss.json')) ? loadAppBenchDataset(DEV).samples : mini;
const replies = pool.map((s) => appBenchGoldReply(s.record));
// fresh records each round (a run scores each record once per epoch): deep copies made beforehand
const rounds = Math.max(1, Math.round(N / 4 / pool.length));
const scoreRound = async () => {
  const copies = Array.from({ length: rounds }, () =>
    pool.map((s): AppBenchSample => ({ ...s, record: structuredClone(s.record) })),
  );
  const c0 = process.cpuUsage();
  for (const round of copies)
    round.forEach((s, i) => {
      scoreAppBenchSample(s, { id: s.id, reply: replies[i % 2 ? (i + 1) % replies.length : i]! }, catalog);
    });
  const u = process.cpuUsage(c0);
  return (u.user + u.system) / 1000 / (rounds * pool.length);
};
await scoreRound();
const scoreMs = Math.min(await scoreRound(), await scoreRound(), await scoreRound());

// A real sample's output (flat agent: reply, trace with the prompt) and score, returned as they are.
const solved = await solveSample(appBenchTask({ samples: mini, catalog, agent }), mini[7]!, { seed: 0 });
const score = scoreAppBenchSample(mini[7]!, { id: 'x', reply: solved.output.reply }, catalog);
const harnessRun = async () => {
  const samples = Array.from({ length: N }, (_, i) => ({ id: `s-${i}`, category: 'ss' }));
  const task = {
    name: 'const',
    version: '1',
    dataset: samples,
    solver: sampleSolver(async () => solved),
    scorer: () => score,
    summarize: summarizeAppBench,
  };
  const spec = buildRunSpec(
    {
      task: { name: 'const', version: '1', options: {} },
      solver: { name: 'const', options: {} },
      model: null,
      sampling: null,
      data: { path: 'x', sha256: 'x' },
      size: N,
      seed: 0,
      concurrency: 256,
    },
    { now: () => new Date(), gitRevision: () => null, packageVersion: () => 'perf' },
  );
  const dir = mkdtempSync(join(tmpdir(), 'apiary-parts-'));
  const c0 = process.cpuUsage();
  await runEval({ task, spec, concurrency: 256, outFile: join(dir, 'results.jsonl') });
  const u = process.cpuUsage(c0);
  rmSync(dir, { recursive: true, force: true });
  return (u.user + u.system) / 1000 / N;
};
await harnessRun();
const harnessMs = Math.min(await harnessRun(), await harnessRun(), await harnessRun());

const f = (x: number) => x.toFixed(3);
console.log(
  `CPU ms/sample (best of 3, N=${N}; scoring on ${pool.length} ${pool === mini ? 'mini' : 'dev'} records)`,
);
console.log(`  generate (AI SDK call + wrapper)  ${f(generateMs)}`);
console.log(`  flat plan (generate + agent loop) ${f(planMs)}`);
console.log(`  AppBench scoring                  ${f(scoreMs)}`);
console.log(`  harness (JSONL, summary)          ${f(harnessMs)}`);
console.log(`  sum                               ${f(planMs + scoreMs + harnessMs)}`);
