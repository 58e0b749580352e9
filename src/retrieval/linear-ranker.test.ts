import { describe, expect, it } from 'vitest';
import { LinearRankRetriever, rankExample, trainLinearRanker } from './linear-ranker.js';

const vectors = (m: Record<string, number[]>) =>
  new Map(Object.entries(m).map(([k, v]) => [k, Float32Array.from(v)]));

describe('LinearRankRetriever', () => {
  it('scores Σ w·feature over the whole corpus; unknown and zero-weight features are ignored', async () => {
    const r = new LinearRankRetriever(async () => vectors({ a: [1, 0, 2], b: [0, 4, 1] }), {
      a: 2,
      b: 0.5,
      c: 7,
      d: 0,
    });
    expect([...(await r.scoreAll('q'))]).toEqual([2, 2, 4.5]);
    expect((await r.search('q', 1))[0]).toEqual({ doc: 2, score: 4.5 });
  });
});

describe('rankExample', () => {
  it('keeps the top documents under the initial weights and under each feature, and counts missed ones', async () => {
    // 6 documents; initial weights favour a; feature b alone finds doc 5
    const source = async () => vectors({ a: [6, 5, 4, 3, 2, 1], b: [0, 0, 0, 0, 0, 9] });
    const ex = await rankExample(source, { id: 'q', text: 'q', relevant: [5, 3] }, ['a', 'b'], { a: 1 }, 3);
    // top-3 by a: 0,1,2; top-1 (3/3) by a: 0; by b: 5 → candidates [0,1,2,5]; doc 3 missed
    expect(ex.rows.map((r) => [...r])).toEqual([
      [6, 0],
      [5, 0],
      [4, 0],
      [1, 9],
    ]);
    expect(ex.relevant).toEqual([3]);
    expect(ex.missed).toBe(1);
  });
});

describe('trainLinearRanker', () => {
  it('coordinate ascent moves weight onto the feature that ranks the relevant document first', () => {
    // feature 0 prefers the wrong document, feature 1 the right one
    const examples = [0, 1, 2].map(() => ({
      rows: [Float64Array.from([1, 0]), Float64Array.from([0, 1]), Float64Array.from([0.5, 0.5])],
      relevant: [1],
      missed: 0,
    }));
    const { weights, trainNdcg } = trainLinearRanker(examples, ['f0', 'f1'], {
      initial: { f0: 1 },
      grid: [0, 1, 2],
    });
    // pass 1, f0 (f1 = 0): f0 = 0 ties all three (NDCG@5 = (1 + 1/log2 3 + 1/2)/3 ≈ 0.71) and beats
    // f0 = 1, which ranks doc 1 last (0.5). f1: 1 puts doc 1 first (NDCG 1); 2 only ties it, so 1 stays.
    expect(weights).toEqual({ f0: 0, f1: 1 });
    expect(trainNdcg).toBe(100);
  });

  it('a relevant document outside the candidates caps NDCG below 100', () => {
    const ex = { rows: [Float64Array.from([1]), Float64Array.from([0])], relevant: [0], missed: 1 };
    const { trainNdcg } = trainLinearRanker([ex], ['f'], { initial: { f: 1 }, grid: [1] });
    // DCG = 1 (rank 1); IDCG = 1 + 1/log2(3)
    expect(trainNdcg).toBeCloseTo(100 / (1 + 1 / Math.log2(3)), 10);
  });
});
