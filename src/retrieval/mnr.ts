import type { SparseVector } from './sparse.js';

/**
 * A linear projection W (dOut × dIn), stored column-major (`w[c·dOut + r]`) so that projecting a
 * sparse input touches only its columns.
 */
export interface Projection {
  dIn: number;
  dOut: number;
  w: Float64Array;
}

/** W = identity (dOut = dIn) or the first dOut rows of it. */
export function identityProjection(dIn: number, dOut = dIn): Projection {
  const w = new Float64Array(dIn * dOut);
  for (let i = 0; i < Math.min(dIn, dOut); i++) w[i * dOut + i] = 1;
  return { dIn, dOut, w };
}

export function project(p: Projection, x: SparseVector, out = new Float64Array(p.dOut)): Float64Array {
  out.fill(0);
  const { dOut, w } = p;
  for (let k = 0; k < x.idx.length; k++) {
    const c = (x.idx[k] as number) * dOut;
    const v = x.val[k] as number;
    if (v === 0) continue;
    for (let r = 0; r < dOut; r++) out[r] = (out[r] as number) + v * (w[c + r] as number);
  }
  return out;
}

function norm(v: Float64Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] as number) ** 2;
  return Math.sqrt(s);
}

/**
 * Multiple Negatives Ranking loss (in-batch negatives) and its gradient with respect to W.
 * For pairs (q_i, d_i), i = 1..B, and D ≥ B documents (d_{B+1}..d_D are extra negatives shared by
 * the batch, e.g. mined hard negatives):  u_i = W q_i, v_j = W d_j, S_ij = scale · cos(u_i, v_j),
 *   L = (1/B) Σ_i [ logsumexp_{j ≤ D} S_ij − S_ii ]      (softmax cross-entropy, target = own document)
 * Gradient: G = (softmax(S) − [j = i])/B;  ∂L/∂û_i = scale Σ_j G_ij v̂_j;  ∂L/∂v̂_j = scale Σ_i G_ij û_i;
 * ∂L/∂u = (I − û ûᵀ) ∂L/∂û / |u|;  ∂L/∂W = Σ_i ∂L/∂u_i q_iᵀ + Σ_j ∂L/∂v_j d_jᵀ.
 * `grad` (same layout as W) is overwritten only on the touched columns; `touched` lists them.
 */
export function mnrLossAndGrad(
  p: Projection,
  queries: readonly SparseVector[],
  docs: readonly SparseVector[],
  scale: number,
  grad: Float64Array,
): { loss: number; touched: number[] } {
  const B = queries.length;
  const D = docs.length;
  if (D < B) throw new RangeError(`${D} documents for ${B} queries (one positive each, then negatives)`);
  const { dOut } = p;
  const U = queries.map((q) => project(p, q));
  const V = docs.map((d) => project(p, d));
  const nu = U.map(norm);
  const nv = V.map(norm);
  const uh = U.map((u, i) => u.map((x) => x / ((nu[i] as number) || 1)));
  const vh = V.map((v, j) => v.map((x) => x / ((nv[j] as number) || 1)));
  const S = new Float64Array(B * D);
  for (let i = 0; i < B; i++)
    for (let j = 0; j < D; j++) {
      let s = 0;
      const a = uh[i] as Float64Array;
      const b = vh[j] as Float64Array;
      for (let r = 0; r < dOut; r++) s += (a[r] as number) * (b[r] as number);
      S[i * D + j] = scale * s;
    }
  let loss = 0;
  const G = new Float64Array(B * D);
  for (let i = 0; i < B; i++) {
    let m = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < D; j++) m = Math.max(m, S[i * D + j] as number);
    let z = 0;
    for (let j = 0; j < D; j++) z += Math.exp((S[i * D + j] as number) - m);
    loss += m + Math.log(z) - (S[i * D + i] as number);
    for (let j = 0; j < D; j++)
      G[i * D + j] = (Math.exp((S[i * D + j] as number) - m) / z - (i === j ? 1 : 0)) / B;
  }
  loss /= B;
  // gradients w.r.t. the unnormalised projections: a query sums over its row of G, a document over its column
  const gu = (
    h: Float64Array[],
    other: Float64Array[],
    n: number[],
    g: (self: number, o: number) => number,
  ): Float64Array[] =>
    h.map((hi, i) => {
      const gh = new Float64Array(dOut);
      for (let j = 0; j < other.length; j++) {
        const c = scale * g(i, j);
        if (c === 0) continue;
        const o = other[j] as Float64Array;
        for (let r = 0; r < dOut; r++) gh[r] = (gh[r] as number) + c * (o[r] as number);
      }
      let dot = 0;
      for (let r = 0; r < dOut; r++) dot += (gh[r] as number) * (hi[r] as number);
      const inv = 1 / ((n[i] as number) || 1);
      for (let r = 0; r < dOut; r++) gh[r] = ((gh[r] as number) - dot * (hi[r] as number)) * inv;
      return gh;
    });
  const gU = gu(uh, vh, nu, (i, j) => G[i * D + j] as number);
  const gV = gu(vh, uh, nv, (j, i) => G[i * D + j] as number);
  const touched = new Set<number>();
  const clear = (x: SparseVector) => {
    for (let k = 0; k < x.idx.length; k++) {
      const c = x.idx[k] as number;
      if (!touched.has(c)) {
        touched.add(c);
        grad.fill(0, c * dOut, (c + 1) * dOut);
      }
    }
  };
  const add = (x: SparseVector, g: Float64Array) => {
    for (let k = 0; k < x.idx.length; k++) {
      const c = (x.idx[k] as number) * dOut;
      const v = x.val[k] as number;
      for (let r = 0; r < dOut; r++) grad[c + r] = (grad[c + r] as number) + v * (g[r] as number);
    }
  };
  for (const q of queries) clear(q);
  for (const d of docs) clear(d);
  for (let i = 0; i < B; i++) {
    add(queries[i] as SparseVector, gU[i] as Float64Array);
    add(docs[i] as SparseVector, gV[i] as Float64Array);
  }
  for (let j = B; j < D; j++) add(docs[j] as SparseVector, gV[j] as Float64Array);
  return { loss, touched: [...touched] };
}

/** Adam (Kingma & Ba) with lazy updates: only the columns touched by a batch move. */
export class Adam {
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private t = 0;
  constructor(
    private readonly p: Projection,
    private readonly lr = 1e-3,
    private readonly beta1 = 0.9,
    private readonly beta2 = 0.999,
    private readonly eps = 1e-8,
  ) {
    this.m = new Float64Array(p.w.length);
    this.v = new Float64Array(p.w.length);
  }

  /** Moments and step count (copies), for a training checkpoint. */
  state(): { m: Float64Array; v: Float64Array; t: number } {
    return { m: this.m.slice(), v: this.v.slice(), t: this.t };
  }

  /** Continues from `state()` of an optimiser over a projection of the same shape. */
  restore(state: { m: ArrayLike<number>; v: ArrayLike<number>; t: number }): void {
    if (state.m.length !== this.m.length || state.v.length !== this.v.length)
      throw new RangeError(`optimiser state has ${state.m.length} moments, the projection ${this.m.length}`);
    this.m.set(state.m);
    this.v.set(state.v);
    this.t = state.t;
  }

  /** One update of `columns`; `lrScale` multiplies the learning rate (a schedule's factor). */
  step(grad: Float64Array, columns: readonly number[], lrScale = 1): void {
    this.t++;
    const lr = this.lr * lrScale;
    const { dOut, w } = this.p;
    const b1 = 1 - this.beta1 ** this.t;
    const b2 = 1 - this.beta2 ** this.t;
    for (const c of columns) {
      for (let i = c * dOut, end = i + dOut; i < end; i++) {
        const g = grad[i] as number;
        const m = this.beta1 * (this.m[i] as number) + (1 - this.beta1) * g;
        const v = this.beta2 * (this.v[i] as number) + (1 - this.beta2) * g * g;
        this.m[i] = m;
        this.v[i] = v;
        w[i] = (w[i] as number) - (lr * (m / b1)) / (Math.sqrt(v / b2) + this.eps);
      }
    }
  }
}
