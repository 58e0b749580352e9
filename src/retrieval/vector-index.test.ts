import { describe, expect, it } from 'vitest';
import { HybridRetriever, reciprocalRankFusion } from './hybrid.js';
import type { Retriever } from './types.js';
import { VectorIndex } from './vector-index.js';

describe('VectorIndex', () => {
  const index = VectorIndex.fromVectors(
    [Float32Array.of(3, 4), Float32Array.of(1, 0), Float32Array.of(0, 2)],
    2,
  );
  it('normalises rows and scores by dot product (cosine)', () => {
    expect(Array.from(index.scoreAll(Float32Array.of(1, 0)))).toEqual([expect.closeTo(0.6, 6), 1, 0]);
    expect(index.search(Float32Array.of(0, 1), 2)).toEqual([
      { doc: 2, score: 1 },
      { doc: 0, score: expect.closeTo(0.8, 6) },
    ]);
  });
  it('rejects wrong dimensions', () => {
    expect(() => index.scoreAll(Float32Array.of(1, 2, 3))).toThrow(/dimension/);
    expect(() => new VectorIndex(3, new Float32Array(4))).toThrow(/multiple/);
  });
});

describe('reciprocal rank fusion', () => {
  it('sums 1/(k + rank) over retrievers', () => {
    const a = Float32Array.of(0.9, 0.5, 0.1); // ranks 1, 2, 3
    const b = Float32Array.of(0.2, 0.8, 0.5); // ranks 3, 1, 2
    const f = reciprocalRankFusion([a, b], 60);
    expect(f[0]).toBeCloseTo(1 / 61 + 1 / 63, 7);
    expect(f[1]).toBeCloseTo(1 / 62 + 1 / 61, 7);
    expect(f[2]).toBeCloseTo(1 / 63 + 1 / 62, 7);
  });
  it('HybridRetriever fuses its retrievers', async () => {
    const fixed = (name: string, s: number[]): Retriever => ({
      name,
      scoreAll: async () => Float32Array.from(s),
      search: async () => [],
    });
    const h = new HybridRetriever([fixed('a', [3, 2, 1]), fixed('b', [1, 3, 2])]);
    expect(h.name).toBe('hybrid(a+b)');
    expect((await h.search('q', 1))[0]?.doc).toBe(1);
  });
});
