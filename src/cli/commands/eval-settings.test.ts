import { describe, expect, it } from 'vitest';
import { layerSampling } from '../../models/index.js';
import { chooseSolver, parsePrice, parseTopPFlag } from './eval-settings.js';

describe('eval settings', () => {
  it('chooses --solver, else --prompting or the default with a model, else the no-model solver', () => {
    const def = { defaultSolver: 'flat', noModelSolver: 'baseline' };
    expect(chooseSolver(def, { solver: 'hierarchical', hasModel: false })).toEqual({
      solver: 'hierarchical',
      fallback: false,
    });
    expect(chooseSolver(def, { prompting: 'hierarchical', hasModel: true })).toEqual({
      solver: 'hierarchical',
      fallback: false,
    });
    expect(chooseSolver(def, { hasModel: true })).toEqual({ solver: 'flat', fallback: false });
    // as before: --prompting without a model runs the baseline
    expect(chooseSolver(def, { prompting: 'hierarchical', hasModel: false })).toEqual({
      solver: 'baseline',
      fallback: true,
    });
    expect(chooseSolver({ defaultSolver: 'bm25' }, { hasModel: false })).toEqual({
      solver: 'bm25',
      fallback: false,
    });
  });

  it('layers sampling: flags > APIARY_TOP_P > config file > task defaults', () => {
    const task = { temperature: 0, topP: 0, maxOutputTokens: 1024 };
    expect(layerSampling({}, {}, undefined, task)).toEqual(task);
    expect(layerSampling({}, {}, { sampling: { temperature: 0.3, topP: 0.9 } }, task)).toEqual({
      temperature: 0.3,
      topP: 0.9,
      maxOutputTokens: 1024,
    });
    expect(
      layerSampling(
        { temperature: 1 },
        { APIARY_TOP_P: 'omit' },
        { sampling: { topP: 0.9, maxOutputTokens: 5 } },
        task,
      ),
    ).toEqual({ temperature: 1, topP: null, maxOutputTokens: 5 });
    expect(layerSampling({ topP: 0.5 }, { APIARY_TOP_P: '0.2' }, undefined, undefined)).toEqual({
      topP: 0.5,
    });
    expect(parseTopPFlag('omit')).toBeNull();
    expect(() => parseTopPFlag('2')).toThrow('--top-p must be a number from 0 to 1 (got "2")');
  });

  it('prices go in pairs', () => {
    expect(parsePrice(undefined, undefined)).toBeNull();
    expect(parsePrice('2.5', '10')).toEqual({ inputPerMTok: 2.5, outputPerMTok: 10 });
    expect(() => parsePrice('2.5', undefined)).toThrow('--price-input and --price-output go together');
    expect(() => parsePrice('-1', '1')).toThrow('--price-input must be a number ≥ 0 (got "-1")');
  });
});
