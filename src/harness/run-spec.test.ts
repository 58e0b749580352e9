import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleSolver, type Task, type TaskSample } from '../tasks/index.js';
import { readResultsFile } from './results-file.js';
import { runEval } from './run-eval.js';
import { buildRunSpec, formatSpecConflicts, type RunSpec, runSpecConflicts } from './run-spec.js';

const deps = {
  now: () => new Date('2026-03-04T05:06:07.000Z'),
  gitRevision: () => 'abc',
  packageVersion: () => '0.1.0',
};

function spec(overrides: Partial<RunSpec> = {}): RunSpec {
  return {
    ...buildRunSpec(
      {
        task: { name: 'toy', version: '1', options: { split: 'dev' } },
        solver: { name: 'flat', options: { shots: 2, demos: 'random' } },
        model: { id: 'm-1', baseUrl: 'http://127.0.0.1:9/v1' },
        sampling: { temperature: 0, topP: 0, maxOutputTokens: 1024 },
        data: { path: '/data/toy', sha256: 'aaaa' },
        size: 2,
        seed: 1,
        concurrency: 2,
      },
      deps,
    ),
    ...overrides,
  };
}

describe('run spec v2', () => {
  it('fills version, defaults and the environment', () => {
    expect(spec()).toMatchObject({
      version: 2,
      epochs: 1,
      limit: null,
      price: null,
      gitRevision: 'abc',
      packageVersion: '0.1.0',
      startedAt: '2026-03-04T05:06:07.000Z',
    });
  });

  it('names each differing field down to the leaf, the data hash included', () => {
    const a = spec();
    const cases: Array<[Partial<RunSpec>, string]> = [
      [
        { solver: { name: 'flat', options: { shots: 3, demos: 'random' } } },
        'solver.options.shots: 2 there, 3 now',
      ],
      [
        { solver: { name: 'hierarchical', options: a.solver.options } },
        'solver.name: "flat" there, "hierarchical" now',
      ],
      [{ task: { ...a.task, options: { split: 'test' } } }, 'task.options.split: "dev" there, "test" now'],
      [{ task: { ...a.task, version: '2' } }, 'task.version: "1" there, "2" now'],
      [{ model: { id: 'm-2', baseUrl: a.model!.baseUrl } }, 'model.id: "m-1" there, "m-2" now'],
      [{ model: null }, 'model: {"id":"m-1","baseUrl":"http://127.0.0.1:9/v1"} there, null now'],
      [{ sampling: { ...a.sampling!, topP: null } }, 'sampling.topP: 0 there, null now'],
      [{ data: { path: '/data/toy', sha256: 'bbbb' } }, 'data.sha256: "aaaa" there, "bbbb" now'],
      [{ limit: 5 }, 'limit: null there, 5 now'],
      [{ seed: 2 }, 'seed: 1 there, 2 now'],
      [{ epochs: 3 }, 'epochs: 1 there, 3 now'],
      [
        { price: { inputPerMTok: 1, outputPerMTok: 2 } },
        'price: null there, {"inputPerMTok":1,"outputPerMTok":2} now',
      ],
    ];
    for (const [change, message] of cases)
      expect(formatSpecConflicts(runSpecConflicts(a, spec(change)))).toBe(message);
  });

  it('ignores where the data lies, concurrency, revision, version and start time', () => {
    const b = spec({
      data: { path: '/elsewhere', sha256: 'aaaa' },
      concurrency: 9,
      gitRevision: 'def',
      packageVersion: '0.2.0',
      startedAt: 'later',
    });
    expect(runSpecConflicts(spec(), b)).toEqual([]);
  });

  it('a resume with other data (same folder, new content) is refused naming the hash', async () => {
    const task: Task<TaskSample, number, number, number> = {
      name: 'toy',
      version: '1',
      dataset: [{ id: 'a' }, { id: 'b' }],
      solver: sampleSolver(async () => ({ output: 1 })),
      scorer: (_s, o) => o.output ?? 0,
      summarize: (xs) => xs.length,
    };
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-spec-')), 'results.jsonl');
    await runEval({ task, spec: spec(), outFile: out });
    await expect(
      runEval({
        task,
        spec: spec({ data: { path: '/data/toy', sha256: 'cccc' } }),
        outFile: out,
        resume: true,
      }),
    ).rejects.toThrow(
      `cannot resume ${out}: it was run with different settings (data.sha256: "aaaa" there, "cccc" now)`,
    );
  });
});

describe('run spec v1 files', () => {
  const V1 = join(import.meta.dirname, '__fixtures__', 'v1-results.jsonl');

  it('are read as v2 (agent → solver, dataset → task options, limit and data path)', () => {
    const contents = readResultsFile(V1);
    expect(contents.specVersion).toBe(1);
    expect(contents.header!.spec).toEqual({
      version: 2,
      task: { name: 'appbench', version: '1', options: { categories: ['ss', 'mm'] } },
      solver: { name: 'baseline', options: {} },
      model: null,
      sampling: null,
      data: { path: '/data/appbench-mini', sha256: null },
      limit: 1,
      size: 2,
      seed: 0,
      epochs: 1,
      concurrency: 4,
      price: null,
      gitRevision: 'a4548b054e5e83c65267be93363abfe2b42a63e1',
      packageVersion: '0.1.0',
      startedAt: '2026-11-24T06:05:04.259Z',
    });
    expect(contents.samples.map((s) => [s.id, s.epoch])).toEqual([
      ['mm-0', 1],
      ['ss-0', 1],
    ]);
  });

  it('cannot be resumed by a v2 run', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-v1-')), 'results.jsonl');
    writeFileSync(out, readFileSync(V1));
    const task: Task<TaskSample, number, number, number> = {
      name: 'appbench',
      version: '1',
      dataset: [{ id: 'ss-0' }],
      solver: sampleSolver(async () => ({ output: 1 })),
      scorer: () => 1,
      summarize: (xs) => xs.length,
    };
    await expect(runEval({ task, spec: spec(), outFile: out, resume: true })).rejects.toThrow(
      `cannot resume ${out}: it was written with run spec v1 (this is v2); \`apiary report\` can still read it`,
    );
  });
});
