import { describe, expect, it } from 'vitest';
import { GroupBoostRetriever, groupDocuments } from './group-boost.js';
import {
  HybridRetriever,
  LinearSumRetriever,
  reciprocalRankFusion,
  WeightedFusionRetriever,
  zScoreFusion,
} from './hybrid.js';
import { createBlockDotKernel } from './simd-kernel.js';
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
  it('the SIMD kernel (dimension multiple of 4) agrees with the JavaScript loop', () => {
    const rows = Array.from({ length: 37 }, (_, i) =>
      Float32Array.from({ length: 12 }, (_, j) => Math.sin(i * 12 + j)),
    );
    const simd = VectorIndex.fromVectors(rows, 12);
    const js = new VectorIndex(12, simd.data, { simd: false });
    const q = Float32Array.from({ length: 12 }, (_, j) => Math.cos(j));
    const a = simd.scoreAll(q);
    const b = js.scoreAll(q);
    for (let i = 0; i < 37; i++) expect(a[i]).toBeCloseTo(b[i] as number, 5);
    expect(simd.search(q, 5).map((h) => h.doc)).toEqual(js.search(q, 5).map((h) => h.doc));
  });

  it('the block kernel scores each loaded block as the JavaScript loop does, growing for a larger block', () => {
    const kernel = createBlockDotKernel(12);
    expect(kernel).toBeDefined();
    const q = Float32Array.from({ length: 12 }, (_, j) => Math.cos(j));
    // 3, then 3,000 rows (past one 64 KiB page), then 3 again: each answer has the block's length
    for (const n of [3, 3000, 3]) {
      const block = Float32Array.from({ length: n * 12 }, (_, i) => Math.sin(i + n));
      kernel?.load(block);
      const got = kernel?.scoreAll(q) ?? new Float32Array();
      const want = new VectorIndex(12, block, { simd: false }).scoreAll(q);
      expect(got).toHaveLength(n);
      for (let i = 0; i < n; i++) expect(got[i]).toBeCloseTo(want[i] as number, 4);
    }
    expect(createBlockDotKernel(6)).toBeUndefined();
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

const fixed = (name: string, s: number[]): Retriever => ({
  name,
  scoreAll: async () => Float32Array.from(s),
  search: async () => [],
});

describe('z-score fusion and group boost', () => {
  it('standardises each list and weights it', () => {
    // a: mean 2, std sqrt(2/3); b: constant → ignored
    const f = zScoreFusion([Float32Array.of(1, 2, 3), Float32Array.of(5, 5, 5)], [2, 1]);
    const z = 1 / Math.sqrt(2 / 3);
    expect(Array.from(f)).toEqual([expect.closeTo(-2 * z, 5), 0, expect.closeTo(2 * z, 5)]);
  });
  it('WeightedFusionRetriever ranks by the fused scores', async () => {
    const r = new WeightedFusionRetriever([
      { retriever: fixed('a', [1, 0, 0]), weight: 1 },
      { retriever: fixed('b', [0, 0, 1]), weight: 0.5 },
    ]);
    expect((await r.search('q', 3)).map((h) => h.doc)).toEqual([0, 2, 1]);
  });
  it('LinearSumRetriever adds weighted raw scores', async () => {
    const r = new LinearSumRetriever([
      { retriever: fixed('a', [1, 2]), weight: 1 },
      { retriever: fixed('b', [4, 0]), weight: 0.5 },
    ]);
    expect(Array.from(await r.scoreAll('q'))).toEqual([3, 2]);
  });
  it('adds λ × the group score of each document', async () => {
    const { groupOf, members } = groupDocuments(['t1', 't2', 't1']);
    expect(Array.from(groupOf)).toEqual([0, 1, 0]);
    expect(members).toEqual([[0, 2], [1]]);
    const r = new GroupBoostRetriever(fixed('api', [1, 2, 0]), fixed('tool', [3, 1]), groupOf, 0.5);
    expect(Array.from(await r.scoreAll('q'))).toEqual([2.5, 2.5, 1.5]);
  });
});
