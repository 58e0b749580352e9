import { describe, expect, it } from 'vitest';
import { toPyJson } from '../../shared/index.js';
import { isCorrect, matchesWholeWord } from './answer-match.js';
import { gtaToolF1 } from './tool-f1.js';

describe('GTA objective matching with Python \\b semantics (docs/gta.md, "Official scoring: answer matching")', () => {
  it('non-word alias edges need a word character next to them', () => {
    expect(matchesWholeWord('costs $12', ['$12'])).toBe(false);
    expect(matchesWholeWord('x = -1', ['-1'])).toBe(false);
    expect(matchesWholeWord('12% off', ['12%'])).toBe(false);
    expect(matchesWholeWord('12.5', ['12'])).toBe(true);
    expect(matchesWholeWord('$12', ['12'])).toBe(true);
    expect(matchesWholeWord('112', ['12'])).toBe(false);
    expect(matchesWholeWord(' 12 dollars', ['12'])).toBe(true);
  });
  it('is Unicode-aware: letters beyond ASCII are word characters, case folds', () => {
    expect(matchesWholeWord('Zürich', ['rich'])).toBe(false); // JS's ASCII \b would match here
    expect(matchesWholeWord('café', ['caf'])).toBe(false);
    expect(matchesWholeWord('ZÜRICH', ['zürich'])).toBe(true);
    expect(matchesWholeWord('a (b) c', ['(b)'])).toBe(false);
    expect(matchesWholeWord('x(b)', ['(b)'])).toBe(false);
  });
  it('needs every whitelist group; a blacklist alias anywhere fails; an empty whitelist passes', () => {
    const ref = { whitelist: [['6.5'], ['kg', 'kilograms']], blacklist: [['7']] };
    expect(isCorrect('6.5 kilograms', ref)).toBe(true);
    expect(isCorrect('6.5 pounds', ref)).toBe(false);
    expect(isCorrect('6.5 kg, not 7 kg', ref)).toBe(false);
    expect(isCorrect('anything', { whitelist: [], blacklist: null })).toBe(true);
  });
});

describe('GTA tool-selection F1 (docs/gta.md, "Official scoring: end-to-end metrics")', () => {
  const call = (name: string, error = false) =>
    toPyJson({
      role: 'assistant',
      ...(error ? { error: { type: 'ARGS_ERROR', msg: 'x' } } : {}),
      tool_calls: [{ type: 'function', function: { name, arguments: {} } }],
    });
  it('counts predictions with duplicates and failures, hits per gold call (the worked example of docs/gta.md)', () => {
    const golds = ['ImageDescription', 'CountGivenObject', 'OCR', 'Calculator'].map((n) => call(n));
    const predictions = [
      call('ImageDescription'),
      call('ImageDescription', true),
      call('OCR'),
      call('Calculator'),
      call('NoAction'),
    ];
    const f1 = gtaToolF1([{ predictions, golds }]);
    expect(f1.perception).toMatchObject({ predicted: 3, gold: 2, hit: 2 });
    expect(f1.logic).toMatchObject({ predicted: 1, gold: 2, hit: 1 });
    expect(f1.operation).toEqual({ predicted: 0, gold: 0, hit: 0, f1: 0 });
    // P = 2/3.00001, R = 1; F1 = 2PR/(P+R+1e-5)
    const p = 2 / (3 + 1e-5);
    expect(f1.perception.f1).toBe(((2 * p * 1) / (p + 1 + 1e-5)) * 100);
    const pl = 1 / (1 + 1e-5);
    expect(f1.logic.f1).toBe(((2 * pl * 0.5) / (pl + 0.5 + 1e-5)) * 100);
    expect(f1.logic.f1).toBeCloseTo(66.666, 2);
  });
});
