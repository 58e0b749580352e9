import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { costOf } from '../models/index.js';
import { sampleSolver, type Task, type TaskSample } from '../tasks/index.js';
import { readResultsFile } from './results-file.js';
import { runEval } from './run-eval.js';
import { buildRunSpec, type RunSpec } from './run-spec.js';
import { formatRunSummary, summarizeResultsFile } from './summary.js';

type Score = { pass: boolean };
type Report = { passed: number; n: number };

/** Which (sample, epoch) passes: s0 always, s1 not in epoch 2, s2 never, s3 not in epoch 3. */
const PATTERN: Record<string, [boolean, boolean, boolean]> = {
  s0: [true, true, true],
  s1: [true, false, true],
  s2: [false, false, false],
  s3: [true, true, false],
};
const SAMPLES: TaskSample[] = Object.keys(PATTERN).map((id) => ({ id }));

function scriptedTask(opts: { samples?: TaskSample[]; onSolve?: (id: string, epoch: number) => void } = {}) {
  const task: Task<TaskSample, { pass: boolean }, Score, Report> = {
    name: 'scripted',
    version: '1',
    dataset: opts.samples ?? SAMPLES,
    solver: sampleSolver(async (sample, ctx) => {
      const epoch = ctx.epoch ?? 1;
      opts.onSolve?.(sample.id, epoch);
      return {
        output: { pass: PATTERN[sample.id]?.[epoch - 1] ?? true },
        usage: { inputTokens: 1000, outputTokens: 200 },
        modelCalls: 1,
      };
    }),
    // an async scorer: the harness awaits it
    scorer: async (_sample, outcome) => {
      await new Promise((r) => setTimeout(r, 1));
      return { pass: outcome.output?.pass === true };
    },
    summarize: (scores) => ({ passed: scores.filter((s) => s.pass).length, n: scores.length }),
  };
  return task;
}

const metrics = (r: Report) => ({ accuracy: r.passed / r.n });
const passed = (s: Score) => s.pass;

function spec(overrides: Partial<RunSpec> = {}): RunSpec {
  return {
    ...buildRunSpec(
      {
        task: { name: 'scripted', version: '1', options: {} },
        solver: { name: 'scripted', options: {} },
        model: { id: 'm', baseUrl: null },
        sampling: { temperature: 0.7, topP: 1, maxOutputTokens: 100 },
        data: { path: 'memory', sha256: 'x' },
        size: SAMPLES.length,
        seed: 3,
        concurrency: 2,
      },
      { now: () => new Date('2026-01-01T00:00:00Z'), gitRevision: () => null, packageVersion: () => 'test' },
    ),
    ...overrides,
  };
}

const tmp = () => join(mkdtempSync(join(tmpdir(), 'apiary-epochs-')), 'results.jsonl');
/** 95% half-width of 3 values with s/√3 = 1/12: t(0.975, 2) / 12, t(0.975, 2) = 0.95·√(2 / 0.0975). */
const HALF_WIDTH = (0.95 * Math.sqrt(2 / (4 * 0.975 * 0.025))) / 12;

describe('epochs', () => {
  it('runs every sample k times and reports mean ± CI, pass^k and pass@k (hand-computed)', async () => {
    const out = tmp();
    const r = await runEval({
      task: scriptedTask(),
      spec: spec({ epochs: 3 }),
      outFile: out,
      metrics,
      passed,
    });
    const lines = readResultsFile(out).samples;
    expect(lines.map((l) => `${l.id}@${l.epoch}`).sort()).toEqual(
      ['s0', 's1', 's2', 's3'].flatMap((id) => [1, 2, 3].map((e) => `${id}@${e}`)).sort(),
    );
    expect(lines.find((l) => l.id === 's1' && l.epoch === 2)!.score).toEqual({ pass: false });
    const s = r.summary;
    expect([s.samples, s.records, s.duplicates, s.epochsUsed]).toEqual([4, 12, 0, [1, 2, 3]]);
    // epochs pass 3/4, 2/4, 2/4: mean 7/12
    expect(s.headline.accuracy!.perEpoch).toEqual([0.75, 0.5, 0.5]);
    expect(s.headline.accuracy!.mean).toBeCloseTo(7 / 12, 15);
    expect(s.headline.accuracy!.ci95!).toBeCloseTo(HALF_WIDTH, 10);
    expect(HALF_WIDTH).toBeCloseTo(0.358554, 6);
    // s0 passes every epoch; s0, s1, s3 at least once
    expect(s.pass).toEqual({ k: 3, samples: 4, passHatK: 0.25, passAtK: 0.75 });
    expect(s.report).toEqual({ passed: 7, n: 12 }); // pooled over epochs
    const text = formatRunSummary(s);
    expect(text).toMatch(/│ samples\s+│ 4 × 3 epochs: 12 records\s+│/);
    expect(text).toContain('accuracy  0.5833 ± 0.3586   (per epoch: 0.7500, 0.5000, 0.5000)');
    expect(text).toContain('pass^3 0.2500, pass@3 0.7500 (over 4 samples run in all 3 epochs)');
  });

  it('one epoch has no interval', async () => {
    const r = await runEval({ task: scriptedTask(), spec: spec(), outFile: tmp(), metrics, passed });
    expect(r.summary.headline.accuracy).toEqual({ mean: 0.75, ci95: null, perEpoch: [0.75] });
    expect(r.summary.pass).toEqual({ k: 1, samples: 4, passHatK: 0.75, passAtK: 0.75 });
  });

  it('resume skips the (id, epoch) pairs already recorded; repeated pairs count as duplicates', async () => {
    const out = tmp();
    await runEval({ task: scriptedTask(), spec: spec({ epochs: 3 }), outFile: out, shuffle: false });
    const all = readFileSync(out, 'utf8').split('\n');
    writeFileSync(out, `${all.slice(0, 6).join('\n')}\n`); // header + 5 records
    const kept = readResultsFile(out).samples.map((l) => `${l.id}@${l.epoch}`);
    expect(kept).toEqual(['s0@1', 's1@1', 's2@1', 's3@1', 's0@2']);
    const solved: string[] = [];
    const r = await runEval({
      task: scriptedTask({ onSolve: (id, e) => solved.push(`${id}@${e}`) }),
      spec: spec({ epochs: 3 }),
      outFile: out,
      resume: true,
      shuffle: false,
      metrics,
      passed,
    });
    expect(solved).toEqual(['s1@2', 's2@2', 's3@2', 's0@3', 's1@3', 's2@3', 's3@3']);
    expect([r.skipped, r.ran, r.summary.records]).toEqual([5, 7, 12]);
    appendFileSync(out, `${all[2]}\n`); // s1@1 a second time
    const again = summarizeResultsFile(scriptedTask(), out, { metrics, passed });
    expect([again.duplicates, again.records]).toEqual([1, 12]);
    expect(again.headline.accuracy!.perEpoch).toEqual([0.75, 0.5, 0.5]);
  });

  it('a partial last epoch is left out of the mean (only complete epochs count)', async () => {
    const out = tmp();
    await runEval({ task: scriptedTask(), spec: spec({ epochs: 3 }), outFile: out, shuffle: false });
    const all = readFileSync(out, 'utf8').split('\n');
    writeFileSync(out, `${all.slice(0, 11).join('\n')}\n`); // epochs 1 and 2, then s0@3 and s1@3
    const s = summarizeResultsFile(scriptedTask(), out, { metrics, passed });
    expect(s.epochsUsed).toEqual([1, 2]);
    expect(s.headline.accuracy!.perEpoch).toEqual([0.75, 0.5]);
    // only s0 (pass, pass, pass) and s1 (pass, fail, pass) have all 3 epochs
    expect(s.pass).toEqual({ k: 3, samples: 2, passHatK: 0.5, passAtK: 1 });
  });
});

describe('cost', () => {
  const price = { inputPerMTok: 2.5, outputPerMTok: 10 };

  it('is exact dollars per sample and per run', async () => {
    expect(costOf({ inputTokens: 1000, outputTokens: 200 }, price)).toBe(0.0045);
    const out = tmp();
    const r = await runEval({ task: scriptedTask(), spec: spec({ price }), outFile: out });
    for (const l of readResultsFile(out).samples) expect(l.cost).toBe(0.0045);
    // 4 × (1000 · 2.5 + 200 · 10) / 1e6
    expect(r.summary.cost).toEqual({ total: 0.018, perSample: 0.0045 });
    expect(r.summary.usage).toEqual({ inputTokens: 4000, outputTokens: 800 });
    expect(formatRunSummary(r.summary)).toMatch(/│ cost\s+│ \$0\.018 \(\$0\.0045 per sample\)\s+│/);
    const unpriced = await runEval({ task: scriptedTask(), spec: spec(), outFile: tmp() });
    expect(unpriced.summary.cost).toBeNull();
  });

  it('--max-cost stops starting samples once reached; a resume with a larger budget goes on', async () => {
    const samples = Array.from({ length: 8 }, (_, i) => ({ id: `q${i}` }));
    const task = scriptedTask({ samples });
    const out = tmp();
    const s = spec({ price, size: 8 });
    // $0.0045 each: 2 samples $0.009 < $0.01, the 3rd reaches $0.0135
    const r = await runEval({ task, spec: s, outFile: out, concurrency: 1, maxCost: 0.01 });
    expect([r.ran, r.stopReason, r.aborted]).toEqual([3, 'budget', false]);
    expect(readResultsFile(out).samples).toHaveLength(3);
    expect(r.summary.cost!.total).toBe(0.0135);
    const same = await runEval({ task, spec: s, outFile: out, resume: true, concurrency: 1, maxCost: 0.01 });
    expect([same.ran, same.stopReason]).toEqual([0, 'budget']);
    const more = await runEval({ task, spec: s, outFile: out, resume: true, concurrency: 1, maxCost: 0.02 });
    expect([more.ran, more.summary.records, more.stopReason]).toEqual([2, 5, 'budget']); // $0.018, then $0.0225
    const rest = await runEval({ task, spec: s, outFile: out, resume: true, concurrency: 1 });
    expect([rest.ran, rest.summary.records, rest.stopReason]).toEqual([3, 8, null]);
    expect(rest.summary.cost!.total).toBe(0.036);
  });

  it('a budget without a price is a usage error', async () => {
    await expect(runEval({ task: scriptedTask(), spec: spec(), outFile: tmp(), maxCost: 1 })).rejects.toThrow(
      'a cost budget (--max-cost) needs a price (--price-input, --price-output)',
    );
  });
});
