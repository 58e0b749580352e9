import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiaryError } from '../shared/index.js';
import { sampleSolver, type Task, type TaskSample } from '../tasks/index.js';
import { readResultsFile } from './results-file.js';
import { type EvalProgress, runEval } from './run-eval.js';
import { buildRunSpec, type RunSpec } from './run-spec.js';
import { seededShuffle } from './seeded-random.js';
import { summarizeResultsFile } from './summary.js';

interface Toy extends TaskSample {
  n: number;
}
type ToyScore = { correct: 0 | 1; failed: 0 | 1 };
type ToyReport = { correct: number; failed: number; n: number };

const SAMPLES: Toy[] = Array.from({ length: 10 }, (_, i) => ({
  id: `t-${i}`,
  category: i < 6 ? 'a' : 'b',
  n: i,
}));

/** Doubles n; answers wrong for n = 3, throws for n = 5. */
function toyTask(
  opts: { delayMs?: number; onSolve?: (s: Toy) => void; inFlight?: { now: number; max: number } } = {},
) {
  const task: Task<Toy, { value: number }, ToyScore, ToyReport> = {
    name: 'toy',
    version: '1',
    dataset: SAMPLES,
    solver: sampleSolver(async (sample) => {
      opts.onSolve?.(sample);
      const f = opts.inFlight;
      if (f) f.max = Math.max(f.max, ++f.now);
      try {
        if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
        if (sample.n === 5)
          throw new ApiaryError('MODEL_CALL_FAILED', 'endpoint returned 500 after 5 attempts');
        return {
          output: { value: sample.n === 3 ? 7 : sample.n * 2 },
          usage: { inputTokens: 10, outputTokens: 2 },
          modelCalls: 1,
        };
      } finally {
        if (f) f.now--;
      }
    }),
    scorer(sample, outcome) {
      if (outcome.output === null) return { correct: 0, failed: 1 };
      return { correct: outcome.output.value === sample.n * 2 ? 1 : 0, failed: 0 };
    },
    summarize(scores) {
      return {
        correct: scores.reduce((a, s) => a + s.correct, 0),
        failed: scores.reduce((a, s) => a + s.failed, 0),
        n: scores.length,
      };
    },
  };
  return task;
}

const fixedClock = () => new Date('2026-01-02T03:04:05.000Z');

function spec(overrides: Partial<RunSpec> = {}): RunSpec {
  return {
    ...buildRunSpec(
      {
        task: { name: 'toy', version: '1', options: {} },
        solver: { name: 'toy', options: { shots: 0 } },
        model: null,
        sampling: null,
        data: { path: 'memory', sha256: 'feed' },
        size: SAMPLES.length,
        seed: 7,
        concurrency: 3,
      },
      { now: fixedClock, gitRevision: () => 'abc123', packageVersion: () => '0.1.0' },
    ),
    ...overrides,
  };
}

const tmp = () => join(mkdtempSync(join(tmpdir(), 'apiary-harness-')), 'run', 'results.jsonl');
const EXPECTED_REPORT: ToyReport = { correct: 8, failed: 1, n: 10 };

describe('runEval', () => {
  it('records one line per sample, the failure on its own line, and a summary from the file', async () => {
    const out = tmp();
    const inFlight = { now: 0, max: 0 };
    const events: EvalProgress[] = [];
    const r = await runEval({
      task: toyTask({ delayMs: 5, inFlight }),
      spec: spec(),
      concurrency: 3,
      outFile: out,
      onProgress: (p) => events.push(p),
      deps: { now: fixedClock },
    });
    expect(inFlight.max).toBe(3);
    const lines = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(11);
    expect(lines[0]).toMatchObject({
      type: 'header',
      spec: { startedAt: '2026-01-02T03:04:05.000Z', gitRevision: 'abc123', seed: 7 },
    });
    const byId = new Map(lines.slice(1).map((l) => [l.id, l]));
    expect([...byId.keys()].sort()).toEqual(SAMPLES.map((s) => s.id).sort());
    expect(byId.get('t-5')).toMatchObject({
      output: null,
      error: 'MODEL_CALL_FAILED: endpoint returned 500 after 5 attempts',
      usage: null,
      modelCalls: 0,
      score: { correct: 0, failed: 1 },
    });
    expect(byId.get('t-3')).toMatchObject({
      output: { value: 7 },
      error: null,
      score: { correct: 0, failed: 0 },
    });
    expect(byId.get('t-7')).toMatchObject({
      category: 'b',
      output: { value: 14 },
      usage: { inputTokens: 10, outputTokens: 2 },
      modelCalls: 1,
      startedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(r.summary.report).toEqual(EXPECTED_REPORT);
    expect(r.summary).toMatchObject({
      samples: 10,
      errors: 1,
      duplicates: 0,
      modelCalls: 9,
      usage: { inputTokens: 90, outputTokens: 18 },
    });
    expect(r.summary.byCategory).toEqual({ a: { samples: 6, errors: 1 }, b: { samples: 4, errors: 0 } });
    expect(JSON.parse(readFileSync(r.summaryFile, 'utf8'))).toEqual(JSON.parse(JSON.stringify(r.summary)));
    expect(r.summaryFile).toBe(join(out, '..', 'summary.json'));
    // progress: initial event then one per sample, ending at 10/10 with 1 error
    expect(events).toHaveLength(11);
    expect(events.at(-1)).toMatchObject({ done: 10, total: 10, errors: 1, skipped: 0 });
  });

  it('resumes a killed run: drops the torn last line, skips finished ids, same summary', async () => {
    const out = tmp();
    const first = toyTask();
    await runEval({ task: first, spec: spec(), outFile: out, shuffle: false, deps: { now: fixedClock } });
    // Keep the header and 3 samples, then a torn line as a SIGKILL mid-write leaves it.
    const full = readFileSync(out, 'utf8').split('\n');
    writeFileSync(out, `${full.slice(0, 4).join('\n')}\n`);
    appendFileSync(out, full[4]!.slice(0, 25));
    const solved: string[] = [];
    const r = await runEval({
      task: toyTask({ onSolve: (s) => solved.push(s.id) }),
      spec: spec({ startedAt: 'later' }),
      outFile: out,
      resume: true,
      deps: { now: fixedClock },
    });
    expect(r.repairedTail).toBe(true);
    expect(r.skipped).toBe(3);
    expect(r.ran).toBe(7);
    expect(solved.sort()).toEqual(['t-3', 't-4', 't-5', 't-6', 't-7', 't-8', 't-9']);
    const contents = readResultsFile(out);
    expect(contents.truncatedTail).toBe(false);
    expect(contents.header?.spec.startedAt).toBe('2026-01-02T03:04:05.000Z'); // original header kept
    expect(contents.samples.map((s) => s.id).sort()).toEqual(SAMPLES.map((s) => s.id).sort());
    expect(r.summary.report).toEqual(EXPECTED_REPORT);
    expect(r.summary.duplicates).toBe(0);
    // the summary kept in memory is the one the file gives when read back
    expect(summarizeResultsFile(toyTask(), out)).toEqual(r.summary);
  });

  it('resuming a complete file runs nothing and gives the same summary', async () => {
    const out = tmp();
    await runEval({ task: toyTask(), spec: spec(), outFile: out, deps: { now: fixedClock } });
    const before = readFileSync(out, 'utf8');
    let calls = 0;
    const r = await runEval({
      task: toyTask({ onSolve: () => calls++ }),
      spec: spec(),
      outFile: out,
      resume: true,
    });
    expect(calls).toBe(0);
    expect(r.ran).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(before);
    expect(r.summary.report).toEqual(EXPECTED_REPORT);
  });

  it('refuses to overwrite without --resume, and to resume with different settings', async () => {
    const out = tmp();
    await runEval({ task: toyTask(), spec: spec(), outFile: out });
    await expect(runEval({ task: toyTask(), spec: spec(), outFile: out })).rejects.toThrow(/--resume/);
    const other = spec({ seed: 8, solver: { name: 'toy', options: { shots: 2 } } });
    await expect(runEval({ task: toyTask(), spec: other, outFile: out, resume: true })).rejects.toThrow(
      /solver\.options\.shots: 0 there, 2 now; seed: 7 there, 8 now/,
    );
    const r = await runEval({ task: toyTask(), spec: other, outFile: out, overwrite: true });
    expect(r.ran).toBe(10);
    expect(readResultsFile(out).header?.spec.seed).toBe(8);
  });

  it('names the line of a corrupt record in the middle of the file', async () => {
    const out = tmp();
    await runEval({ task: toyTask(), spec: spec(), outFile: out });
    const lines = readFileSync(out, 'utf8').split('\n');
    lines[2] = '{"type":"sample",';
    writeFileSync(out, lines.join('\n'));
    await expect(runEval({ task: toyTask(), spec: spec(), outFile: out, resume: true })).rejects.toThrow(
      /results\.jsonl: record line 3: not valid JSON/,
    );
  });

  it('an abort stops new samples, records only finished ones, and a resume completes the run', async () => {
    const out = tmp();
    const ac = new AbortController();
    let finished = 0;
    const r = await runEval({
      task: toyTask({ delayMs: 10 }),
      spec: spec(),
      concurrency: 2,
      outFile: out,
      signal: ac.signal,
      onProgress: (p) => {
        if (p.last && ++finished === 4) ac.abort();
      },
    });
    expect(r.aborted).toBe(true);
    // 4 finished when aborting; the 2 then in flight still finish (the toy solver ignores the signal).
    expect(r.ran).toBeGreaterThanOrEqual(4);
    expect(r.ran).toBeLessThanOrEqual(6);
    expect(readResultsFile(out).samples).toHaveLength(r.ran);
    const r2 = await runEval({ task: toyTask(), spec: spec(), outFile: out, resume: true });
    expect(r2.ran + r.ran).toBe(10);
    expect(r2.summary.report).toEqual(EXPECTED_REPORT);
  });

  it('a scorer bug fails the run but keeps every other sample on disk', async () => {
    const out = tmp();
    const task = toyTask();
    const buggy = {
      ...task,
      scorer: (s: Toy, o: Parameters<typeof task.scorer>[1]) => {
        if (s.id === 't-2') throw new TypeError('scorer bug');
        return task.scorer(s, o);
      },
    };
    await expect(runEval({ task: buggy, spec: spec(), concurrency: 3, outFile: out })).rejects.toThrow(
      'scorer bug',
    );
    const ids = readResultsFile(out)
      .samples.map((l) => l.id)
      .sort();
    expect(ids).toEqual(
      SAMPLES.filter((s) => s.id !== 't-2')
        .map((s) => s.id)
        .sort(),
    );
  });

  it('runs samples in a seeded order', async () => {
    const order = (seed: number) => {
      const seen: string[] = [];
      return runEval({
        task: toyTask({ onSolve: (s) => seen.push(s.id) }),
        spec: spec({ seed }),
        concurrency: 1,
        outFile: tmp(),
      }).then(() => seen);
    };
    const a = await order(1);
    expect(await order(1)).toEqual(a);
    expect(a).toEqual(seededShuffle(SAMPLES, 1).map((s) => s.id));
    expect(await order(2)).not.toEqual(a);
  });
});

describe('runEval stops on a failing endpoint', () => {
  /** Sample i fails with an endpoint failure of `faults[i]` (after its retries), or is solved when none. */
  function failingTask(faults: ReadonlyArray<string | undefined>) {
    const task = toyTask();
    task.solver = sampleSolver(async (sample) => {
      const fault = faults[sample.n];
      if (fault)
        throw Object.assign(
          new ApiaryError('MODEL_CALL_FAILED', `model call failed after 1 attempt(s) [${fault}]`),
          {
            faults: [fault],
          },
        );
      return { output: { value: sample.n * 2 }, usage: { inputTokens: 1, outputTokens: 1 }, modelCalls: 1 };
    });
    return task;
  }
  const run = (faults: ReadonlyArray<string | undefined>) =>
    runEval({
      task: failingTask(faults),
      spec: spec(),
      concurrency: 1,
      shuffle: false,
      outFile: tmp(),
      maxConsecutiveConnectionFailures: 10,
      maxConsecutiveEndpointFailures: 3,
    });

  it('after N samples in a row failed on HTTP 5xx or garbage: stopReason endpoint, what ran is kept', async () => {
    const r = await run([undefined, 'http5xx', 'invalid-json', 'http5xx', 'http5xx']);
    expect(r.stopReason).toBe('endpoint');
    expect(r.endpointError).toBe('MODEL_CALL_FAILED: model call failed after 1 attempt(s) [http5xx]');
    expect(r.ran).toBe(4);
    expect(readResultsFile(r.resultsFile).samples.map((l) => l.error?.slice(0, 17) ?? null)).toEqual([
      null,
      'MODEL_CALL_FAILED',
      'MODEL_CALL_FAILED',
      'MODEL_CALL_FAILED',
    ]);
    expect(r.infrastructureErrors).toBe(3);
  });

  it('a solved sample resets the streak; connection failures alone are left to the connection limit', async () => {
    const solvedBetween = await run(['http5xx', 'http5xx', undefined, 'http5xx', 'http5xx']);
    expect(solvedBetween.stopReason).toBeNull();
    expect(solvedBetween.ran).toBe(10);
    const connectionOnly = await run(['network', 'timeout', 'network', 'network', 'timeout']);
    expect(connectionOnly.stopReason).toBeNull();
    expect(connectionOnly.ran).toBe(10);
    // a streak that mixes them is an endpoint failing either way
    const mixed = await run(['network', 'network', 'network', 'http5xx']);
    expect(mixed.stopReason).toBe('endpoint');
    expect(mixed.ran).toBe(4);
  });
});

describe('seededShuffle', () => {
  it('is a permutation and leaves the input alone', () => {
    const xs = Array.from({ length: 50 }, (_, i) => i);
    const ys = seededShuffle(xs, 42);
    expect([...ys].sort((a, b) => a - b)).toEqual(xs);
    expect(xs[0]).toBe(0);
    expect(ys).not.toEqual(xs);
  });
});
