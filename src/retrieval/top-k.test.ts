import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { topK } from './top-k.js';

describe('topK', () => {
  it('returns the k best, best first, ties by lower index', () => {
    expect(topK([0.1, 0.9, 0.5, 0.9, 0.3], 3)).toEqual([
      { doc: 1, score: 0.9 },
      { doc: 3, score: 0.9 },
      { doc: 2, score: 0.5 },
    ]);
    expect(topK([1, 2], 5).map((h) => h.doc)).toEqual([1, 0]);
    expect(topK([1, 2], 0)).toEqual([]);
  });

  it('agrees with a full sort (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }), fc.nat(12), (xs, k) => {
        const expected = xs
          .map((s, doc) => ({ doc, score: s }))
          .sort((a, b) => b.score - a.score || a.doc - b.doc)
          .slice(0, k);
        expect(topK(xs, k)).toEqual(expected);
      }),
    );
  });
});
