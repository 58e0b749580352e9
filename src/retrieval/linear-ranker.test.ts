import { describe, expect, it } from 'vitest';
import {
  candidateNdcg,
  LinearRankRetriever,
  rankExample,
  scaleFeatures,
  scaleFeaturesInPlace,
  trainLinearRanker,
} from './linear-ranker.js';

const vectors = (m: Record<string, number[]>) =>
  new Map(Object.entries(m).map(([k, v]) => [k, Float32Array.from(v)]));

describe('LinearRankRetriever', () => {
  it('scores Σ w·feature over the whole corpus, scaled features divided by their max |x|', async () => {
    const r = new LinearRankRetriever(async () => vectors({ a: [1, 0, 2], b: [0, 4, 1] }), {
      weights: { a: 2, b: 0.5, c: 7, d: 0 },
      scaled: ['b'],
    });
    // b / 4 = (0, 1, 0.25): 2·a + 0.5·b = (2, 0.5, 4.125)
    expect([...(await r.scoreAll('q'))]).toEqual([2, 0.5, 4.125]);
    expect((await r.search('q', 1))[0]).toEqual({ doc: 2, score: 4.125 });
  });

  it('scaleFeatures uses the largest absolute value and leaves all-zero vectors alone', () => {
    const s = scaleFeatures(vectors({ a: [-4, 2], z: [0, 0] }), ['a', 'z', 'missing']);
    expect([...(s.get('a') as Float32Array)]).toEqual([-1, 0.5]);
    expect([...(s.get('z') as Float32Array)]).toEqual([0, 0]);
  });

  it('scaleFeaturesInPlace writes the same values over the vectors themselves', () => {
    const v = vectors({ a: [-4, 2, 3], b: [1, 2, 3], z: [0, 0, 0] });
    const a = v.get('a');
    scaleFeaturesInPlace(v, ['a', 'z', 'missing']);
    expect(v.get('a')).toBe(a);
    expect([...(a as Float32Array)]).toEqual([-1, 0.5, 0.75]);
    expect([...(v.get('b') as Float32Array)]).toEqual([1, 2, 3]);
    expect([...(v.get('z') as Float32Array)]).toEqual([0, 0, 0]);
  });
});

describe('rankExample', () => {
  it('keeps the top documents under the initial weights and under each feature, and counts missed ones', async () => {
    const source = async () => vectors({ a: [6, 5, 4, 3, 2, 1], b: [0, 0, 0, 0, 0, 9] });
    const ex = await rankExample(
      source,
      { id: 'q', text: 'q', relevant: [5, 3] },
      ['a', 'b'],
      { weights: { a: 1 }, scaled: [] },
      3,
    );
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

describe('trainLinearRanker (listwise softmax)', () => {
  // feature f0 prefers a wrong document, f1 the relevant one
  const examples = [0, 1, 2].map(() => ({
    rows: [Float64Array.from([1, 0]), Float64Array.from([0, 1]), Float64Array.from([0.5, 0.5])],
    relevant: [1],
    missed: 0,
  }));

  it('moves weight from the misleading feature to the informative one', () => {
    const { weights, trainNdcg, loss } = trainLinearRanker(examples, ['f0', 'f1'], { initial: { f0: 1 } });
    expect(weights.f1 as number).toBeGreaterThan(weights.f0 as number);
    expect(trainNdcg).toBe(100);
    // the relevant candidate takes most of the softmax mass
    expect(loss).toBeLessThan(Math.log(3) / 4);
  });

  it('first step is Adam on the exact softmax gradient', () => {
    // w = 0: p = 1/3 each, t = (0,1,0); ∇ = Xᵀ(p − t) = (1/3 + 0.5/3, 1/3 − 1 + 0.5/3) = (0.5, −0.5);
    // Adam's first step moves each weight by −lr·sign(∇)
    const { weights } = trainLinearRanker(examples, ['f0', 'f1'], { iterations: 1, lr: 0.1, l2: 0 });
    expect(weights.f0).toBeCloseTo(-0.1, 6);
    expect(weights.f1).toBeCloseTo(0.1, 6);
  });

  it('candidateNdcg counts a relevant document outside the candidates in the ideal DCG', () => {
    const ex = { rows: [Float64Array.from([1]), Float64Array.from([0])], relevant: [0], missed: 1 };
    // DCG = 1 (rank 1); IDCG = 1 + 1/log2(3)
    expect(candidateNdcg([ex], [1])).toBeCloseTo(100 / (1 + 1 / Math.log2(3)), 10);
  });
});
