import { describe, expect, it } from 'vitest';
import { ndcgAtK, rankDescending, recallAtK, topKIndices } from './metrics.js';

// docs/retrieval.md, "NDCG@K as ToolBench computes it", worked example: 6 documents, relevant = {d2, d4} (0-based 1 and 3)
const scores = [0.61, 0.83, 0.7, 0.65, 0.2, 0.1];
const rel = new Set([1, 3]);

describe('ndcgAtK (scikit-learn semantics)', () => {
  it('reproduces the worked example: 1.0 / 0.9197 / 0.9197', () => {
    expect(ndcgAtK(scores, rel, 1)).toBeCloseTo(1, 10);
    // (1 + 1/log2 4) / (1 + 1/log2 3)
    const expected = 1.5 / (1 + 1 / Math.log2(3));
    expect(ndcgAtK(scores, rel, 3)).toBeCloseTo(expected, 10);
    expect(ndcgAtK(scores, rel, 3)).toBeCloseTo(0.9197, 4);
    expect(ndcgAtK(scores, rel, 5)).toBeCloseTo(0.9197, 4);
  });

  it('averages gains over tied groups: 0.5 / 0.8066', () => {
    const tied = [0.61, 0.8, 0.8, 0.65, 0.2, 0.1];
    expect(ndcgAtK(tied, rel, 1)).toBeCloseTo(0.5, 10);
    const expected = (0.5 * (1 + 1 / Math.log2(3)) + 0.5) / (1 + 1 / Math.log2(3));
    expect(ndcgAtK(tied, rel, 3)).toBeCloseTo(expected, 10);
    expect(ndcgAtK(tied, rel, 3)).toBeCloseTo(0.8066, 4);
  });

  it('query 588 example: relevant ranked 1st and 4th → 1 / 0.6131 / 0.8772', () => {
    const s = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3];
    const r = new Set([0, 3]);
    expect(ndcgAtK(s, r, 1)).toBeCloseTo(1, 10);
    expect(ndcgAtK(s, r, 3)).toBeCloseTo(0.6131, 4);
    expect(ndcgAtK(s, r, 5)).toBeCloseTo(0.8772, 4);
  });

  it('a tie group straddling the cut-off only counts its ranks ≤ k', () => {
    // all 4 tied, one relevant: DCG@2 = 1/4 · (1 + 1/log2 3); IDCG = 1
    expect(ndcgAtK([1, 1, 1, 1], new Set([2]), 2)).toBeCloseTo(0.25 * (1 + 1 / Math.log2(3)), 10);
  });

  it('needs two documents and returns 0 without relevant documents', () => {
    expect(() => ndcgAtK([1], new Set([0]), 1)).toThrow(/2 documents/);
    expect(ndcgAtK([1, 2], new Set(), 1)).toBe(0);
  });
});

describe('recallAtK and rankings', () => {
  it('counts relevant documents in the top k', () => {
    expect(recallAtK(scores, rel, 1)).toBe(0.5);
    expect(recallAtK(scores, rel, 3)).toBe(1);
  });
  it('breaks ties by corpus order', () => {
    expect(topKIndices([1, 3, 3, 2], 3)).toEqual([1, 2, 3]);
    expect(Array.from(rankDescending([1, 3, 3, 2]))).toEqual([1, 2, 3, 0]);
  });
});
