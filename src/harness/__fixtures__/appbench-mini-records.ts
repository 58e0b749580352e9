import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sha256Hex } from '../../shared/index.js';
import { APPBENCH_SAMPLING } from '../../benchmarks/appbench/index.js';
import { readResultsFile, type SampleLine } from '../results-file.js';
import { runEval } from '../run-eval.js';
import { buildRunSpec } from '../run-spec.js';
import { rebuildTask, type TaskRecipe } from '../sample-runner.js';
import { withoutTimings } from './without-timings.js';

/** Long texts (the catalog-long system prompts) as their SHA-256: the expectation stays small. */
function digestLongTexts(value: unknown): unknown {
  if (typeof value === 'string') return value.length < 2048 ? value : { sha256: sha256Hex(value) };
  if (Array.isArray(value)) return value.map(digestLongTexts);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, digestLongTexts(v)]));
}

/*
 * The AppBench mini run's records as the comparison of issue 25 sees them: every field but the
 * timings and the sample events (texts of 2,048 characters or more as their SHA-256). Written by ./appbench-mini-records.json's generator
 * (`npx tsx src/harness/__fixtures__/appbench-mini-records.ts > …json`), which was run on the code
 * before sample events existed; src/harness/mini-records.test.ts compares today's run with it.
 */
const MINI = resolve(import.meta.dirname, '../../../examples/appbench-mini');
const scenarioModel = pathToFileURL(resolve(import.meta.dirname, 'scenario-model.ts')).href;

/** Solvers compared: the flat LLM solver on the scripted scenario model, the no-model baseline. */
export const MINI_SOLVERS = ['flat', 'hierarchical', 'baseline'] as const;

/** The records as compared with the expectation: no timings, no events, long texts digested. */
export async function miniRecords(solver: (typeof MINI_SOLVERS)[number]): Promise<unknown[]> {
  return (await miniRunLines(solver)).map(({ startedAt: _s, durationMs: _d, events: _e, ...line }) =>
    digestLongTexts(withoutTimings(line)),
  );
}

/** The mini run's sample lines as read back, by id. */
export async function miniRunLines(solver: (typeof MINI_SOLVERS)[number]): Promise<SampleLine[]> {
  const recipe: TaskRecipe = {
    task: 'appbench',
    taskOptions: { categories: null },
    solver,
    solverOptions: solver === 'baseline' ? {} : { shots: 0, demos: 'same-app' },
    model: solver === 'baseline' ? null : { kind: 'module', module: scenarioModel },
    sampling: APPBENCH_SAMPLING,
    dataDir: MINI,
    seed: 0,
    modelCalls: { maxRetries: 0 },
  };
  const { task } = await rebuildTask(recipe);
  const now = () => new Date('2026-01-01T00:00:00Z');
  const spec = buildRunSpec(
    {
      task: { name: 'appbench', version: task.version, options: recipe.taskOptions },
      solver: { name: solver, options: recipe.solverOptions },
      model: null,
      sampling: null,
      data: { path: MINI, sha256: 'x' },
      size: task.dataset.length,
      seed: 0,
      concurrency: 1,
    },
    { now, gitRevision: () => null, packageVersion: () => 'test' },
  );
  const outFile = join(mkdtempSync(join(tmpdir(), 'apiary-mini-records-')), 'results.jsonl');
  await runEval({ task, spec, outFile, concurrency: 1, lock: false, deps: { now, monotonic: () => 0 } });
  return readResultsFile(outFile).samples.sort((a, b) => a.id.localeCompare(b.id));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out: Record<string, unknown[]> = {};
  for (const s of MINI_SOLVERS) out[s] = await miniRecords(s);
  process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
}
