import { ndcgAtK } from './metrics.js';
import { topK } from './top-k.js';
import type { RetrievalHit, RetrievalQuery, Retriever } from './types.js';

/** Named per-document feature scores of one query (every vector covers the whole corpus). */
export type FeatureVectors = ReadonlyMap<string, Float32Array>;
export type FeatureSource = (query: string) => Promise<FeatureVectors>;

/**
 * A linear ranker: score(d) = Σ_f w_f · x_f(d), where the features listed in `scaled` are first
 * divided by their largest absolute value over the corpus for this query (raw BM25 scores
 * grow with query length; scaled ones are comparable across queries). Features without a
 * weight count 0.
 */
export interface RankerModel {
  weights: Readonly<Record<string, number>>;
  scaled: readonly string[];
}

/** The feature vectors a ranker sees: the `scaled` ones divided by their max |x| (copies). */
export function scaleFeatures(vectors: FeatureVectors, scaled: readonly string[]): FeatureVectors {
  const out = new Map(vectors);
  for (const f of scaled) {
    const v = vectors.get(f);
    if (!v) continue;
    let m = 0;
    for (let i = 0; i < v.length; i++) m = Math.max(m, Math.abs(v[i] as number));
    if (m > 0)
      out.set(
        f,
        v.map((x) => x / m),
      );
  }
  return out;
}

/**
 * `scaleFeatures` in place: the `scaled` vectors are divided by their max |x| (the same float32
 * values as its copies), for a caller that owns the vectors and computes them again per query.
 */
export function scaleFeaturesInPlace(
  vectors: ReadonlyMap<string, Float32Array>,
  scaled: readonly string[],
): void {
  for (const f of scaled) {
    const v = vectors.get(f);
    if (!v) continue;
    let m = 0;
    for (let i = 0; i < v.length; i++) m = Math.max(m, Math.abs(v[i] as number));
    if (m > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / m;
  }
}

/** Scores the whole corpus (so NDCG sees an exhaustive ranking). */
export class LinearRankRetriever implements Retriever {
  constructor(
    private readonly features: FeatureSource,
    private readonly model: RankerModel,
    readonly name = 'ranked',
  ) {}

  async scoreAll(query: string): Promise<Float32Array> {
    const vectors = scaleFeatures(await this.features(query), this.model.scaled);
    const n = vectors.values().next().value?.length ?? 0;
    const out = new Float32Array(n);
    for (const [name, w] of Object.entries(this.model.weights)) {
      const v = vectors.get(name);
      if (!v || w === 0) continue;
      for (let i = 0; i < n; i++) out[i] = (out[i] as number) + w * (v[i] as number);
    }
    return out;
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return topK(await this.scoreAll(query), k);
  }
}

/** One training query reduced to its candidates: a feature row per candidate and the relevant rows. */
export interface RankExample {
  /** rows[c][f] = value of feature f (in `names` order, after scaling) for candidate c. */
  rows: Float64Array[];
  /** Indices of relevant candidates. */
  relevant: number[];
  /** Relevant documents outside the candidate set (they still count in the ideal DCG). */
  missed: number;
}

/**
 * Candidates of a query: the top `perList` documents under `initial` weights and the top
 * `perList / 3` under each single feature (so the learner can promote what any one feature
 * finds, and each feature's maximum, the scaling reference, is among them).
 */
export async function rankExample(
  features: FeatureSource,
  query: RetrievalQuery,
  names: readonly string[],
  initial: RankerModel,
  perList = 300,
): Promise<RankExample> {
  return scaledRankExample(
    scaleFeatures(await features(query.text), initial.scaled),
    query,
    names,
    initial,
    perList,
  );
}

/**
 * `rankExample` from feature vectors already scaled by `initial.scaled` (`scaleFeaturesInPlace`);
 * `base` is scratch of the corpus size for the initial scores (new when absent). The rows of the
 * candidates are views on one array per query.
 */
export function scaledRankExample(
  vectors: FeatureVectors,
  query: RetrievalQuery,
  names: readonly string[],
  initial: RankerModel,
  perList = 300,
  base?: Float32Array,
): RankExample {
  const n = vectors.values().next().value?.length ?? 0;
  if (base && base.length !== n) throw new RangeError(`base holds ${base.length} scores, ${n} needed`);
  const scores = base?.fill(0) ?? new Float32Array(n);
  for (const [f, w] of Object.entries(initial.weights)) {
    const v = vectors.get(f);
    if (v) for (let i = 0; i < n; i++) scores[i] = (scores[i] as number) + w * (v[i] as number);
  }
  const cand = new Set<number>(topK(scores, perList).map((h) => h.doc));
  for (const f of names) {
    const v = vectors.get(f);
    if (v) for (const h of topK(v, Math.floor(perList / 3))) cand.add(h.doc);
  }
  const docs = [...cand];
  const width = names.length;
  const values = new Float64Array(docs.length * width);
  const rows = docs.map((d, c) => {
    const row = values.subarray(c * width, (c + 1) * width);
    names.forEach((f, j) => {
      row[j] = vectors.get(f)?.[d] ?? 0;
    });
    return row;
  });
  const relevant = query.relevant.map((d) => docs.indexOf(d)).filter((i) => i >= 0);
  return { rows, relevant, missed: query.relevant.length - relevant.length };
}

const dot = (w: ArrayLike<number>, r: ArrayLike<number>): number => {
  let s = 0;
  for (let f = 0; f < w.length; f++) s += (w[f] as number) * (r[f] as number);
  return s;
};

/** Mean NDCG@k ×100 of a weight vector over candidate sets (missed relevant documents count in the ideal DCG). */
export function candidateNdcg(examples: readonly RankExample[], w: ArrayLike<number>, k = 5): number {
  let total = 0;
  for (const ex of examples) {
    if (ex.rows.length < 2) continue;
    const rel = new Set<number>(ex.relevant);
    for (let m = 0; m < ex.missed; m++) rel.add(-1 - m);
    total += ndcgAtK(
      ex.rows.map((r) => dot(w, r)),
      rel,
      k,
    );
  }
  return examples.length ? (100 * total) / examples.length : 0;
}

export interface RankerTrainOptions {
  /** Starting weights (default all 0). */
  initial?: Readonly<Record<string, number>>;
  /** Full-batch Adam steps (default 300). */
  iterations?: number;
  /** Adam learning rate (default 0.05). */
  lr?: number;
  /** L2 penalty on the weights (default 0.001). */
  l2?: number;
}

/**
 * Listwise learning to rank (ListNet-style softmax cross-entropy): for each query,
 * p = softmax(X w) over its candidates, target t uniform over its relevant candidates,
 *   L(w) = mean_q Σ_c −t_c log p_c + (λ/2)|w|²,   ∇L = mean_q Xᵀ(p − t) + λ w.
 * Convex in w, so full-batch Adam from any start reaches the same weights: deterministic and
 * stable across folds. Queries with no relevant candidate carry no gradient.
 */
export function trainLinearRanker(
  examples: readonly RankExample[],
  names: readonly string[],
  opts: RankerTrainOptions = {},
): { weights: Record<string, number>; trainNdcg: number; loss: number } {
  const d = names.length;
  const w = Float64Array.from(names, (f) => opts.initial?.[f] ?? 0);
  const m = new Float64Array(d);
  const v = new Float64Array(d);
  const lr = opts.lr ?? 0.05;
  const l2 = opts.l2 ?? 0.001;
  const usable = examples.filter((ex) => ex.relevant.length > 0);
  let loss = 0;
  for (let it = 1; it <= (opts.iterations ?? 300); it++) {
    const g = new Float64Array(d);
    loss = 0;
    for (const ex of usable) {
      const s = ex.rows.map((r) => dot(w, r));
      let mx = Number.NEGATIVE_INFINITY;
      for (const x of s) mx = Math.max(mx, x);
      let z = 0;
      const e = s.map((x) => {
        const y = Math.exp(x - mx);
        z += y;
        return y;
      });
      const t = 1 / ex.relevant.length;
      const rel = new Set(ex.relevant);
      ex.rows.forEach((r, c) => {
        const p = (e[c] as number) / z;
        const diff = p - (rel.has(c) ? t : 0);
        if (rel.has(c)) loss -= t * Math.log(p + 1e-300);
        for (let f = 0; f < d; f++) g[f] = (g[f] as number) + diff * (r[f] as number);
      });
    }
    const nq = Math.max(1, usable.length);
    loss /= nq;
    for (let f = 0; f < d; f++) {
      const gf = (g[f] as number) / nq + l2 * (w[f] as number);
      m[f] = 0.9 * (m[f] as number) + 0.1 * gf;
      v[f] = 0.999 * (v[f] as number) + 0.001 * gf * gf;
      const mh = (m[f] as number) / (1 - 0.9 ** it);
      const vh = (v[f] as number) / (1 - 0.999 ** it);
      w[f] = (w[f] as number) - (lr * mh) / (Math.sqrt(vh) + 1e-8);
    }
  }
  return {
    weights: Object.fromEntries(names.map((f, i) => [f, w[i] as number])),
    trainNdcg: candidateNdcg(examples, w),
    loss,
  };
}
