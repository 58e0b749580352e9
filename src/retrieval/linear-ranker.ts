import { ndcgAtK } from './metrics.js';
import { topK } from './top-k.js';
import type { RetrievalHit, RetrievalQuery, Retriever } from './types.js';

/** Named per-document feature scores of one query (every vector covers the whole corpus). */
export type FeatureVectors = ReadonlyMap<string, Float32Array>;
export type FeatureSource = (query: string) => Promise<FeatureVectors>;

/** Weights of a linear ranker, by feature name (features without a weight count 0). */
export type RankerWeights = Readonly<Record<string, number>>;

/** score(d) = Σ_f w_f · feature_f(d), over the whole corpus (so NDCG sees an exhaustive ranking). */
export class LinearRankRetriever implements Retriever {
  constructor(
    private readonly features: FeatureSource,
    private readonly weights: RankerWeights,
    readonly name = 'ranked',
  ) {}

  async scoreAll(query: string): Promise<Float32Array> {
    const vectors = await this.features(query);
    let out: Float32Array | undefined;
    for (const [name, w] of Object.entries(this.weights)) {
      const v = vectors.get(name);
      if (!v || w === 0) continue;
      out ??= new Float32Array(v.length);
      for (let i = 0; i < v.length; i++) out[i] = (out[i] as number) + w * (v[i] as number);
    }
    if (out) return out;
    const first = vectors.values().next().value as Float32Array | undefined;
    return new Float32Array(first?.length ?? 0);
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return topK(await this.scoreAll(query), k);
  }
}

/** One training query reduced to its candidates: a feature row per candidate and the relevant rows. */
export interface RankExample {
  /** rows[c][f] = value of feature f (in `names` order) for candidate c. */
  rows: Float64Array[];
  /** Indices of relevant candidates; a relevant document that is not a candidate counts as missed. */
  relevant: number[];
  /** Relevant documents outside the candidate set (they still count in the ideal DCG). */
  missed: number;
}

/**
 * Candidates of a query: the top `perList` documents under the initial weights and under each
 * single feature (so the learner can promote what any one feature finds).
 */
export async function rankExample(
  features: FeatureSource,
  query: RetrievalQuery,
  names: readonly string[],
  initial: RankerWeights,
  perList = 300,
): Promise<RankExample> {
  const vectors = await features(query.text);
  const n = vectors.values().next().value?.length ?? 0;
  const base = new Float32Array(n);
  for (const [f, w] of Object.entries(initial)) {
    const v = vectors.get(f);
    if (v) for (let i = 0; i < n; i++) base[i] = (base[i] as number) + w * (v[i] as number);
  }
  const cand = new Set<number>(topK(base, perList).map((h) => h.doc));
  for (const f of names) {
    const v = vectors.get(f);
    if (v) for (const h of topK(v, Math.floor(perList / 3))) cand.add(h.doc);
  }
  const docs = [...cand];
  const rows = docs.map((d) => Float64Array.from(names, (f) => vectors.get(f)?.[d] ?? 0));
  const relevant = query.relevant.map((d) => docs.indexOf(d)).filter((i) => i >= 0);
  return { rows, relevant, missed: query.relevant.length - relevant.length };
}

function meanNdcg(examples: readonly RankExample[], w: readonly number[], k: number): number {
  let total = 0;
  for (const ex of examples) {
    if (ex.rows.length < 2) continue;
    const scores = ex.rows.map((r) => {
      let s = 0;
      for (let f = 0; f < w.length; f++) s += (w[f] as number) * (r[f] as number);
      return s;
    });
    // missed relevant documents get ids that no candidate has, so they count only in the ideal DCG
    const rel = new Set<number>(ex.relevant);
    for (let m = 0; m < ex.missed; m++) rel.add(-1 - m);
    total += ndcgAtK(scores, rel, k);
  }
  return examples.length ? total / examples.length : 0;
}

export interface RankerTrainOptions {
  /** Starting weights (default all 0). */
  initial?: RankerWeights;
  /** Values each weight may take (default a signed log grid up to 256). */
  grid?: readonly number[];
  /** Passes over the features (default 4; stops early when a pass changes nothing). */
  passes?: number;
  /** NDCG cut-off optimised (default 5). */
  k?: number;
}

export const DEFAULT_RANKER_GRID = [-8, -2, -0.5, 0, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256];

/**
 * Coordinate ascent on mean NDCG@k (Metzler & Croft's linear feature model): each weight in
 * turn is set to the grid value that maximises the training metric, until a pass brings no gain.
 * Deterministic: features are visited in order and ties keep the current value.
 */
export function trainLinearRanker(
  examples: readonly RankExample[],
  names: readonly string[],
  opts: RankerTrainOptions = {},
): { weights: Record<string, number>; trainNdcg: number } {
  const k = opts.k ?? 5;
  const grid = opts.grid ?? DEFAULT_RANKER_GRID;
  let w = names.map((f) => opts.initial?.[f] ?? 0);
  let best = meanNdcg(examples, w, k);
  for (let pass = 0; pass < (opts.passes ?? 4); pass++) {
    let improved = false;
    for (let f = 0; f < names.length; f++) {
      for (const v of grid) {
        const trial = w.slice();
        trial[f] = v;
        const s = meanNdcg(examples, trial, k);
        if (s > best + 1e-12) {
          best = s;
          w = trial;
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return { weights: Object.fromEntries(names.map((f, i) => [f, w[i] as number])), trainNdcg: 100 * best };
}
