import { describe, expect, it } from 'vitest';
import { APPBENCH_SAMPLING, withSamplingDefaults } from './sampling.js';

describe('withSamplingDefaults', () => {
  it('fills the AppBench defaults when no defaults are given', () => {
    expect(withSamplingDefaults()).toEqual({ temperature: 0, topP: 0, maxOutputTokens: 1024 });
    expect(withSamplingDefaults({ topP: null, seed: 3 })).toEqual({
      temperature: 0,
      topP: null,
      maxOutputTokens: 1024,
      seed: 3,
    });
    expect(APPBENCH_SAMPLING).toEqual({ temperature: 0, topP: 0, maxOutputTokens: 1024 });
  });

  it("takes a task's own defaults, the caller's fields winning", () => {
    const taskDefaults = { temperature: 0.7, topP: 0.95, maxOutputTokens: 4096, stopSequences: ['</plan>'] };
    expect(withSamplingDefaults({ maxOutputTokens: 256 }, taskDefaults)).toEqual({
      temperature: 0.7,
      topP: 0.95,
      maxOutputTokens: 256,
      stopSequences: ['</plan>'],
    });
    expect(withSamplingDefaults({ stopSequences: [] }, taskDefaults).stopSequences).toEqual([]);
  });
});
