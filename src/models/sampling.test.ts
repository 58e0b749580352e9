import { describe, expect, it } from 'vitest';
import { withSamplingDefaults } from './sampling.js';

describe('withSamplingDefaults', () => {
  it('keeps a null topP as a decision (omit top_p), not a gap', () => {
    const appbench = { temperature: 0, topP: 0, maxOutputTokens: 1024 };
    expect(withSamplingDefaults({}, appbench)).toEqual(appbench);
    expect(withSamplingDefaults({ topP: null, seed: 3 }, appbench)).toEqual({
      temperature: 0,
      topP: null,
      maxOutputTokens: 1024,
      seed: 3,
    });
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
