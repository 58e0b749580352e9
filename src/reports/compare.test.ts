import { describe, expect, it } from 'vitest';
import type { RunSpec, SampleLine } from '../harness/index.js';
import { compareSamples, formatSpecDifferences, specDifferences } from './compare.js';

const base: RunSpec = {
  version: 2,
  task: { name: 'appbench', version: '3', options: { categories: null } },
  solver: { name: 'tool-loop', options: { record: 'calls', maxSteps: 10 } },
  model: { id: 'a', baseUrl: 'http://127.0.0.1:1/v1' },
  sampling: { temperature: 0, topP: null, maxOutputTokens: 512 },
  data: { path: '/x', sha256: 'h1' },
  limit: null,
  size: 10,
  seed: 0,
  epochs: 1,
  concurrency: 4,
  price: null,
  gitRevision: 'abc',
  packageVersion: '0.1.0',
  startedAt: '2026-01-01T00:00:00.000Z',
};

const line = (id: string, value: number, epoch = 1): SampleLine => ({
  type: 'sample',
  id,
  epoch,
  category: 'ss',
  output: null,
  error: null,
  usage: null,
  modelCalls: 0,
  startedAt: '',
  durationMs: 0,
  score: { value },
});
const value = (l: SampleLine) => (l.score as { value: number }).value;

describe('specDifferences', () => {
  it('names the differing leaves (solver options such as tool recording too), not the model or run facts', () => {
    const other: RunSpec = {
      ...base,
      model: { id: 'b', baseUrl: null },
      solver: { name: 'tool-loop', options: { record: 'none', maxSteps: 10 } },
      data: { path: '/elsewhere', sha256: 'h1' },
      concurrency: 16,
      gitRevision: 'def',
      startedAt: '2026-02-02T00:00:00.000Z',
      epochs: 3,
    };
    const diffs = specDifferences([base, other]);
    expect(diffs).toEqual([
      { field: 'epochs', values: [1, 3] },
      { field: 'solver.options.record', values: ['calls', 'none'] },
    ]);
    expect(formatSpecDifferences(diffs)).toBe('epochs (1 vs 3), solver.options.record ("calls" vs "none")');
    expect(specDifferences([base, { ...base, model: { id: 'z', baseUrl: null } }])).toEqual([]);
  });

  it('a run whose field is an object shows that object, not "(absent)"; a model-less run is not a difference', () => {
    const gold: RunSpec = { ...base, model: null, sampling: null };
    const diffs = specDifferences([base, gold]);
    expect(diffs.map((d) => d.field)).toEqual([
      'sampling',
      'sampling.maxOutputTokens',
      'sampling.temperature',
      'sampling.topP',
    ]);
    expect(diffs[0]).toEqual({ field: 'sampling', values: [base.sampling, null] });
    expect(formatSpecDifferences(diffs.slice(0, 1))).toBe(
      'sampling ({"temperature":0,"topP":null,"maxOutputTokens":512} vs null)',
    );
  });

  it('a field absent from one spec differs; long hashes are shortened in the text', () => {
    const noSampling: RunSpec = { ...base, sampling: null, data: { path: '/x', sha256: '0123456789abcdef' } };
    const diffs = specDifferences([base, noSampling]);
    expect(diffs.map((d) => d.field)).toEqual([
      'data.sha256',
      'sampling',
      'sampling.maxOutputTokens',
      'sampling.temperature',
      'sampling.topP',
    ]);
    expect(formatSpecDifferences(diffs.slice(0, 1))).toBe('data.sha256 ("h1" vs "0123456789"…)');
  });
});

describe('compareSamples', () => {
  it('compares the per-sample means over epochs; a sample missing from a run is missing, not changed', () => {
    const a = [line('s1', 1), line('s2', 0), line('s3', 1)];
    const b = [line('s1', 1), line('s1', 0, 2), line('s2', 0), line('s2', 0, 2)];
    expect(compareSamples([a, b], value)).toEqual({
      changed: [{ id: 's1', category: 'ss', values: [1, 0.5] }],
      missing: [{ id: 's3', category: 'ss', values: [1, null] }],
    });
    expect(compareSamples([a, a], value)).toEqual({ changed: [], missing: [] });
  });
});
