import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../shared/index.js';
import { Adam, identityProjection, mnrLossAndGrad, type Projection, project } from './mnr.js';
import { mixSparse, type SparseVector } from './sparse.js';

const sv = (entries: Array<[number, number]>): SparseVector => ({
  idx: Int32Array.from(entries.map((e) => e[0])),
  val: Float32Array.from(entries.map((e) => e[1])),
});

// a tiny batch: 3 pairs over 5 input features, projected to 4 dimensions
const queries = [
  sv([
    [0, 1],
    [2, 0.5],
  ]),
  sv([
    [1, 1],
    [3, -0.25],
  ]),
  sv([
    [4, 0.75],
    [0, 0.5],
  ]),
];
const docs = [
  sv([
    [0, 0.5],
    [2, 1],
    [3, 0.25],
  ]),
  sv([
    [1, 0.5],
    [4, 0.5],
  ]),
  sv([
    [4, 1],
    [2, -0.5],
  ]),
];

function randomProjection(seed: number): Projection {
  const rand = mulberry32(seed);
  const p = identityProjection(5, 4);
  for (let i = 0; i < p.w.length; i++) p.w[i] = (p.w[i] as number) + (rand() - 0.5);
  return p;
}

describe('MNR loss', () => {
  it('equals the hand-computed softmax cross-entropy for an identity projection', () => {
    // 2 orthogonal pairs: cos(q_i, d_i) = 1, cos(q_i, d_j) = 0 → loss = ln(1 + e^{-20})
    const p = identityProjection(2);
    const { loss } = mnrLossAndGrad(
      p,
      [sv([[0, 1]]), sv([[1, 1]])],
      [sv([[0, 2]]), sv([[1, 3]])],
      20,
      new Float64Array(4),
    );
    expect(loss).toBeCloseTo(Math.log(1 + Math.exp(-20)), 12);
  });

  it('analytic gradient matches central differences', () => {
    const p = randomProjection(7);
    const grad = new Float64Array(p.w.length);
    const { touched } = mnrLossAndGrad(p, queries, docs, 20, grad);
    expect(touched.sort()).toEqual([0, 1, 2, 3, 4]);
    const h = 1e-6;
    let maxErr = 0;
    for (let i = 0; i < p.w.length; i++) {
      const w0 = p.w[i] as number;
      p.w[i] = w0 + h;
      const up = mnrLossAndGrad(p, queries, docs, 20, new Float64Array(p.w.length)).loss;
      p.w[i] = w0 - h;
      const down = mnrLossAndGrad(p, queries, docs, 20, new Float64Array(p.w.length)).loss;
      p.w[i] = w0;
      const numeric = (up - down) / (2 * h);
      maxErr = Math.max(maxErr, Math.abs(numeric - (grad[i] as number)) / Math.max(1, Math.abs(numeric)));
    }
    expect(maxErr).toBeLessThan(1e-6);
  });

  it('counts extra documents as negatives of every query (hard negatives)', () => {
    // 2 orthogonal pairs + a negative (1, √3)/2: cos 1/2 with q_0, √3/2 with q_1:
    // row 0: logsumexp(20, 0, 10) − 20 = ln(1 + e^{-20} + e^{-10}); row 1: ln(1 + e^{-20} + e^{10√3 − 20})
    const p = identityProjection(2);
    const neg = sv([
      [0, 1],
      [1, Math.sqrt(3)],
    ]);
    const { loss } = mnrLossAndGrad(
      p,
      [sv([[0, 1]]), sv([[1, 1]])],
      [sv([[0, 2]]), sv([[1, 3]]), neg],
      20,
      new Float64Array(4),
    );
    const want =
      (Math.log(1 + Math.exp(-20) + Math.exp(-10)) +
        Math.log(1 + Math.exp(-20) + Math.exp(10 * Math.sqrt(3) - 20))) /
      2;
    expect(loss).toBeCloseTo(want, 7); // √3 is stored as float32
    expect(() =>
      mnrLossAndGrad(p, [sv([[0, 1]]), sv([[1, 1]])], [sv([[0, 1]])], 20, new Float64Array(4)),
    ).toThrow('1 documents for 2 queries');
  });

  it('analytic gradient matches central differences with an extra negative', () => {
    const p = randomProjection(11);
    const withNeg = [
      ...docs,
      sv([
        [3, 1],
        [0, -0.5],
      ]),
    ];
    const grad = new Float64Array(p.w.length);
    mnrLossAndGrad(p, queries, withNeg, 20, grad);
    const h = 1e-6;
    let maxErr = 0;
    for (let i = 0; i < p.w.length; i++) {
      const w0 = p.w[i] as number;
      p.w[i] = w0 + h;
      const up = mnrLossAndGrad(p, queries, withNeg, 20, new Float64Array(p.w.length)).loss;
      p.w[i] = w0 - h;
      const down = mnrLossAndGrad(p, queries, withNeg, 20, new Float64Array(p.w.length)).loss;
      p.w[i] = w0;
      const numeric = (up - down) / (2 * h);
      maxErr = Math.max(maxErr, Math.abs(numeric - (grad[i] as number)) / Math.max(1, Math.abs(numeric)));
    }
    expect(maxErr).toBeLessThan(1e-6);
  });

  it('Adam steps lower the loss', () => {
    const p = randomProjection(3);
    const grad = new Float64Array(p.w.length);
    const adam = new Adam(p, 0.01);
    const first = mnrLossAndGrad(p, queries, docs, 20, grad);
    adam.step(grad, first.touched);
    let last = first.loss;
    for (let s = 0; s < 50; s++) {
      const r = mnrLossAndGrad(p, queries, docs, 20, grad);
      adam.step(grad, r.touched);
      last = r.loss;
    }
    expect(last).toBeLessThan(first.loss * 0.5);
  });

  it('Adam scales its step by lrScale: the first step moves each weight by lr · lrScale (the sign of its gradient)', () => {
    for (const [scale, move] of [
      [0.5, 0.005],
      [0, 0],
    ] as const) {
      const p = randomProjection(3);
      const before = p.w.slice();
      const grad = new Float64Array(p.w.length);
      const { touched } = mnrLossAndGrad(p, queries, docs, 20, grad);
      new Adam(p, 0.01).step(grad, touched, scale);
      for (let i = 0; i < p.w.length; i++) {
        const g = grad[i] as number;
        const expected = g === 0 ? 0 : -Math.sign(g) * move;
        expect((p.w[i] as number) - (before[i] as number)).toBeCloseTo(expected, 6);
      }
    }
  });

  it('projects sparse inputs column by column', () => {
    const p = identityProjection(3, 2);
    expect(
      Array.from(
        project(
          p,
          sv([
            [0, 2],
            [1, 3],
            [2, 5],
          ]),
        ),
      ),
    ).toEqual([2, 3]);
  });
});

describe('mixSparse', () => {
  it('adds weighted sparse vectors, merging indices', () => {
    const m = mixSparse(
      sv([
        [0, 1],
        [2, 2],
      ]),
      1,
      sv([
        [2, 4],
        [5, 1],
      ]),
      0.5,
    );
    const pairs = Array.from(m.idx).map((i, k) => [i, m.val[k]]);
    expect(pairs).toEqual([
      [0, 1],
      [2, 4],
      [5, 0.5],
    ]);
  });
});
