import { topK } from './top-k.js';
import type { RetrievalHit, Retriever } from './types.js';

/**
 * Reciprocal rank fusion: score(d) = Σ_r 1 / (k + rank_r(d)), rank 1-based over each
 * retriever's full ranking (ties in a retriever are ordered by corpus index). k = 60 by default.
 */
export class HybridRetriever implements Retriever {
  readonly name: string;
  constructor(
    private readonly retrievers: readonly Retriever[],
    private readonly k = 60,
  ) {
    if (!retrievers.length) throw new RangeError('hybrid retrieval needs at least one retriever');
    this.name = `hybrid(${retrievers.map((r) => r.name).join('+')})`;
  }

  async scoreAll(query: string): Promise<Float32Array> {
    const lists = await Promise.all(this.retrievers.map((r) => r.scoreAll(query)));
    return reciprocalRankFusion(lists, this.k);
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return topK(await this.scoreAll(query), k);
  }
}

/** Fuses exhaustive score vectors (all the same length) by reciprocal rank. */
export function reciprocalRankFusion(scoreLists: readonly Float32Array[], k = 60): Float32Array {
  const n = scoreLists[0]?.length ?? 0;
  const out = new Float32Array(n);
  const order = new Uint32Array(n);
  for (const scores of scoreLists) {
    if (scores.length !== n) throw new RangeError('all score vectors must cover the same corpus');
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
    for (let r = 0; r < n; r++) {
      const d = order[r] as number;
      out[d] = (out[d] as number) + 1 / (k + r + 1);
    }
  }
  return out;
}

/**
 * Weighted z-score fusion: each retriever's exhaustive scores are standardised per query
 * ((s − mean)/std over the corpus) and summed with weights. Unlike RRF it keeps score margins,
 * so a weaker second retriever only reorders documents the first one scores about equally.
 */
export class WeightedFusionRetriever implements Retriever {
  readonly name: string;
  constructor(
    private readonly parts: ReadonlyArray<{ retriever: Retriever; weight: number }>,
    name?: string,
  ) {
    if (!parts.length) throw new RangeError('fusion needs at least one retriever');
    this.name = name ?? `fusion(${parts.map((p) => `${p.weight}·${p.retriever.name}`).join('+')})`;
  }

  async scoreAll(query: string): Promise<Float32Array> {
    const lists = await Promise.all(this.parts.map((p) => p.retriever.scoreAll(query)));
    return zScoreFusion(
      lists,
      this.parts.map((p) => p.weight),
    );
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return topK(await this.scoreAll(query), k);
  }
}

export function zScoreFusion(scoreLists: readonly Float32Array[], weights: readonly number[]): Float32Array {
  const n = scoreLists[0]?.length ?? 0;
  const out = new Float32Array(n);
  scoreLists.forEach((s, r) => {
    if (s.length !== n) throw new RangeError('all score vectors must cover the same corpus');
    let mean = 0;
    for (let i = 0; i < n; i++) mean += s[i] as number;
    mean /= n || 1;
    let v = 0;
    for (let i = 0; i < n; i++) v += ((s[i] as number) - mean) ** 2;
    const std = Math.sqrt(v / (n || 1));
    const f = std > 0 ? (weights[r] ?? 1) / std : 0;
    for (let i = 0; i < n; i++) out[i] = (out[i] as number) + ((s[i] as number) - mean) * f;
  });
  return out;
}

/** Weighted sum of raw scores (fields of one scoring function, e.g. BM25 over two text views). */
export class LinearSumRetriever implements Retriever {
  readonly name: string;
  constructor(
    private readonly parts: ReadonlyArray<{ retriever: Retriever; weight: number }>,
    name?: string,
  ) {
    if (!parts.length) throw new RangeError('a sum needs at least one retriever');
    this.name = name ?? `sum(${parts.map((p) => `${p.weight}·${p.retriever.name}`).join('+')})`;
  }

  async scoreAll(query: string): Promise<Float32Array> {
    const lists = await Promise.all(this.parts.map((p) => p.retriever.scoreAll(query)));
    const out = new Float32Array(lists[0]?.length ?? 0);
    lists.forEach((s, r) => {
      if (s.length !== out.length) throw new RangeError('all score vectors must cover the same corpus');
      const w = this.parts[r]?.weight ?? 1;
      for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) + w * (s[i] as number);
    });
    return out;
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return topK(await this.scoreAll(query), k);
  }
}
