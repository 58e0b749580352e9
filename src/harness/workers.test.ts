import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APPBENCH_SAMPLING } from '../benchmarks/appbench/index.js';
import { costOf, type ModelPrice } from '../models/index.js';
import { expectScenarioReport } from './__fixtures__/appbench-mini-scenario.js';
import { withoutTimings } from './__fixtures__/without-timings.js';
import { readResultsFile, type SampleLine } from './results-file.js';
import { runEval } from './run-eval.js';
import { buildRunSpec } from './run-spec.js';
import { rebuildTask, type TaskRecipe } from './sample-runner.js';

/*
 * Worker threads (`runEval({ workers })`) against the in-thread run, on the AppBench mini records
 * with the flat solver and the scripted scenario model, which workers build from a module recipe.
 * Each pool start loads the sources through tsx in every worker (about a second): kept to a few.
 */
const fixture = (name: string) => pathToFileURL(resolve(import.meta.dirname, '__fixtures__', name)).href;
const MINI = resolve(import.meta.dirname, '../../examples/appbench-mini');
/** The built-in plugins as a plugin module: what a worker thread imports to know the appbench task. */
const BUILTIN = pathToFileURL(resolve(import.meta.dirname, '../benchmarks/builtin.ts')).href;

const recipe = (modelOptions: Record<string, unknown> = {}, extra: Partial<TaskRecipe> = {}): TaskRecipe => ({
  task: 'appbench',
  taskOptions: { categories: null },
  solver: 'flat',
  solverOptions: { shots: 0, demos: 'same-app' },
  model: { kind: 'module', module: fixture('scenario-model.ts'), options: modelOptions },
  sampling: APPBENCH_SAMPLING,
  dataDir: MINI,
  seed: 0,
  modelCalls: { maxRetries: 0 },
  plugins: [BUILTIN],
  ...extra,
});

// Fixed clocks: records are then equal field for field, timings included.
const deps = { now: () => new Date('2026-01-01T00:00:00Z'), monotonic: () => 0 };

async function run(
  workers: number,
  opts: {
    out?: string;
    resume?: boolean;
    stopAfter?: number;
    recipe?: TaskRecipe;
    maxConsecutiveConnectionFailures?: number;
    price?: ModelPrice;
    maxCost?: number;
  } = {},
) {
  const r = opts.recipe ?? recipe();
  const { task } = await rebuildTask(recipe());
  const spec = buildRunSpec(
    {
      task: { name: 'appbench', version: task.version, options: r.taskOptions },
      solver: { name: r.solver, options: r.solverOptions },
      model: null,
      sampling: null,
      data: { path: MINI, sha256: 'x' },
      size: task.dataset.length,
      seed: 0,
      concurrency: 3,
      ...(opts.price ? { price: opts.price } : {}),
    },
    { now: deps.now, gitRevision: () => null, packageVersion: () => 'test' },
  );
  const outFile = join(opts.out ?? mkdtempSync(join(tmpdir(), 'apiary-workers-')), 'results.jsonl');
  const ac = new AbortController();
  const result = await runEval({
    task,
    spec,
    outFile,
    concurrency: 3,
    workers,
    recipe: r,
    resume: opts.resume ?? false,
    signal: ac.signal,
    ...(opts.maxConsecutiveConnectionFailures
      ? { maxConsecutiveConnectionFailures: opts.maxConsecutiveConnectionFailures }
      : {}),
    ...(opts.maxCost !== undefined ? { maxCost: opts.maxCost } : {}),
    onProgress: (p) => {
      if (opts.stopAfter !== undefined && p.done - p.skipped >= opts.stopAfter) ac.abort();
    },
    deps,
  });
  return { result, outFile };
}

/**
 * Worker threads time their samples with their own clocks (the injected `deps` clocks time the
 * in-thread run): a line's start and duration are checked for form, then left out.
 */
const byId = (lines: SampleLine[]) =>
  [...lines]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map(({ startedAt, durationMs, ...l }) => {
      expect(new Date(startedAt).toISOString()).toBe(startedAt);
      expect(durationMs).toBeGreaterThanOrEqual(0);
      return { ...l, output: withoutTimings(l.output), events: withoutTimings(l.events) };
    });

describe('runEval with worker threads', { timeout: 60_000 }, () => {
  let reference: ReturnType<typeof byId> = [];
  it('records exactly what the in-thread run records, and the same summary', async () => {
    const one = await run(1);
    reference = byId(readResultsFile(one.outFile).samples);
    const two = await run(2);
    expectScenarioReport(two.result.summary.report as never);
    const lines1 = readResultsFile(one.outFile).samples;
    const lines2 = readResultsFile(two.outFile).samples;
    expect(lines2).toHaveLength(8);
    expect(byId(lines2)).toEqual(byId(lines1));
    expect(lines2.find((l) => l.id === 'mm-0')!.error).toMatch(/^MODEL_CALL_FAILED: /);
    expect(two.result.infrastructureErrors).toBe(1);
    // latencies come from the lines' durations, timed by the workers' clocks
    const { resultsFile: _a, latencyMs: _c, ...summary2 } = two.result.summary;
    const { resultsFile: _b, latencyMs: _d, ...summary1 } = one.result.summary;
    expect(summary2).toEqual(summary1);
  });

  it('resumes across worker counts: 1 → 2 and 2 → 1 end with the records of an uninterrupted run', async () => {
    expect(reference).toHaveLength(8);
    for (const [first, second] of [
      [1, 2],
      [2, 1],
    ] as const) {
      const out = mkdtempSync(join(tmpdir(), 'apiary-workers-resume-'));
      // workers start queued samples on their own: a model slow enough for the abort to find some in flight
      const partial = await run(first, { out, stopAfter: 3, recipe: recipe({ latencyMs: 100 }) });
      expect(partial.result.stopReason).toBe('signal');
      // Ctrl-C: every line written whole, as many as the run counted
      expect(readResultsFile(partial.outFile).truncatedTail).toBe(false);
      expect(readResultsFile(partial.outFile).samples).toHaveLength(partial.result.ran);
      const written = readResultsFile(partial.outFile).samples.length;
      expect(written).toBeGreaterThanOrEqual(3);
      expect(written).toBeLessThan(8);
      const resumed = await run(second, { out, resume: true });
      expect(resumed.result.skipped).toBe(written);
      expect(resumed.result.ran).toBe(8 - written);
      expect(byId(readResultsFile(resumed.outFile).samples)).toEqual(reference);
    }
  });

  it('connection failures seen in workers count toward the stop decided in the main thread', async () => {
    const down = recipe({ down: true }, { modelCalls: { maxRetries: 0, timeoutMs: 30 } });
    const { result, outFile } = await run(2, { recipe: down, maxConsecutiveConnectionFailures: 2 });
    expect(result.stopReason).toBe('connection');
    // 3 in flight at once: the two failures in a row that stop the run, plus the (at most 2) still
    // in flight then, which finish and are recorded; nothing new starts
    expect(result.ran).toBeGreaterThanOrEqual(2);
    expect(result.ran).toBeLessThanOrEqual(4);
    const lines = readResultsFile(outFile).samples;
    expect(lines.map((l) => l.error)).toEqual(
      lines.map(() => expect.stringMatching(/^MODEL_CALL_FAILED: .*\[timeout\]/)),
    );
  });

  it('--max-cost with workers: nothing starts once the budget is seen, every line whole and priced, a resume finishes', async () => {
    const out = mkdtempSync(join(tmpdir(), 'apiary-workers-budget-'));
    // about 4,200 input tokens a sample at $1/M: the second priced sample reaches $0.008
    const price = { inputPerMTok: 1, outputPerMTok: 0 };
    const slow = recipe({ latencyMs: 100 });
    const partial = await run(2, { out, recipe: slow, price, maxCost: 0.008 });
    expect(partial.result.stopReason).toBe('budget');
    const kept = readResultsFile(partial.outFile);
    expect(kept.truncatedTail).toBe(false);
    expect(kept.samples).toHaveLength(partial.result.ran);
    // 3 in flight: the lines that reach the budget, and the (at most 3) samples the workers had
    // started from their queues before the stop reached them
    expect(partial.result.ran).toBeGreaterThanOrEqual(2);
    expect(partial.result.ran).toBeLessThanOrEqual(6);
    for (const l of kept.samples)
      expect(l.cost).toBe(costOf(l.usage ?? { inputTokens: 0, outputTokens: 0 }, price));
    expect(partial.result.summary.cost!.total).toBeGreaterThanOrEqual(0.008);
    const resumed = await run(2, { out, resume: true, recipe: slow, price, maxCost: 1 });
    expect(resumed.result.stopReason).toBeNull();
    expect(resumed.result.skipped).toBe(partial.result.ran);
    expect(readResultsFile(resumed.outFile).samples).toHaveLength(8);
    expectScenarioReport(resumed.result.summary.report as never);
  });

  it('a worker that exits mid-run ends the run with WORKER_FAILED and keeps what was written', async () => {
    const out = mkdtempSync(join(tmpdir(), 'apiary-workers-crash-'));
    // each worker exits on its 3rd model call: 2 workers × 2 samples can be recorded at most
    await expect(run(2, { out, recipe: recipe({ exitOnCall: 3 }) })).rejects.toMatchObject({
      code: 'WORKER_FAILED',
      message: expect.stringMatching(/worker thread \d of 2 stopped \(exit code 7\)/),
    });
    const kept = readResultsFile(join(out, 'results.jsonl'));
    expect(kept.truncatedTail).toBe(false);
    expect(kept.samples.length).toBeLessThanOrEqual(4);
    // a resume in this thread finishes the run
    const resumed = await run(1, { out, resume: true });
    expect(resumed.result.skipped).toBe(kept.samples.length);
    expectScenarioReport(resumed.result.summary.report as never);
    expect(readResultsFile(join(out, 'results.jsonl')).samples).toHaveLength(8);
  });

  it('a module that throws on import fails the start with a clear error and writes no sample', async () => {
    const out = mkdtempSync(join(tmpdir(), 'apiary-workers-import-'));
    await expect(
      run(2, { out, recipe: recipe({}, { setupModules: [fixture('throwing-module.ts')] }) }),
    ).rejects.toMatchObject({
      code: 'WORKER_FAILED',
      message: expect.stringContaining('fixture module failed on import'),
    });
    expect(readResultsFile(join(out, 'results.jsonl')).samples).toEqual([]);
  });

  it('refuses workers for a task without a recipe (built in memory)', async () => {
    const { task } = await rebuildTask(recipe());
    const spec = buildRunSpec(
      {
        task: { name: 'appbench', version: task.version, options: {} },
        solver: { name: 'flat', options: {} },
        model: null,
        sampling: null,
        data: { path: MINI, sha256: 'x' },
        size: task.dataset.length,
        seed: 0,
        concurrency: 3,
      },
      { now: deps.now, gitRevision: () => null, packageVersion: () => 'test' },
    );
    const outFile = join(mkdtempSync(join(tmpdir(), 'apiary-workers-')), 'results.jsonl');
    await expect(runEval({ task, spec, outFile, workers: 2 })).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining('cannot be rebuilt in worker threads'),
    });
  });
});
