import { topKIndices } from '../../retrieval/index.js';

/**
 * What a retrieval solver records per query instead of the whole score vector (46,802 numbers):
 * enough to recompute NDCG@k with scikit-learn's tie averaging and Recall@k exactly, for k ≤ `depth`.
 */
export interface RankingSummary {
  /** The best documents, best first (ties: corpus order), and their scores. */
  top: number[];
  scores: number[];
  /** For each distinct score among `scores` (descending): how many corpus documents have exactly it. */
  tieCounts: number[];
  /** Score of each relevant document, in the order of the query's relevant list. */
  relevantScores: number[];
}

const RANKING_DEPTH = 10;

/** Condenses an exhaustive score vector (see {@link RankingSummary}). */
export function summarizeRanking(
  scores: ArrayLike<number>,
  relevant: readonly number[],
  depth = RANKING_DEPTH,
): RankingSummary {
  const top = topKIndices(scores, depth);
  const topScores = top.map((d) => scores[d] as number);
  const distinct = [...new Set(topScores)];
  const tieCounts = distinct.map(() => 0);
  const slot = new Map(distinct.map((s, i) => [s, i]));
  for (let i = 0; i < scores.length; i++) {
    const j = slot.get(scores[i] as number);
    if (j !== undefined) tieCounts[j]!++;
  }
  return { top, scores: topScores, tieCounts, relevantScores: relevant.map((d) => scores[d] as number) };
}

const discount = (rank: number): number => 1 / Math.log2(rank + 1);

/**
 * NDCG@k from a ranking summary: the same arithmetic as `ndcgAtK` over the full vector (groups of
 * equal scores share their mean gain over the ranks they span), so the results are identical.
 */
export function ndcgFromSummary(r: RankingSummary, relevantCount: number, k: number): number {
  const ideal = Math.min(k, relevantCount);
  let idcg = 0;
  for (let rank = 1; rank <= ideal; rank++) idcg += discount(rank);
  if (idcg === 0) return 0;
  const distinct = [...new Set(r.scores)];
  let dcg = 0;
  let pos = 0;
  for (let g = 0; g < distinct.length && pos < k; g++) {
    const s = distinct[g]!;
    const size = r.tieCounts[g]!;
    const gain = r.relevantScores.filter((x) => x === s).length;
    const end = pos + size;
    let disc = 0;
    for (let rank = pos + 1; rank <= Math.min(end, k); rank++) disc += discount(rank);
    dcg += (gain / size) * disc;
    pos = end;
  }
  return dcg / idcg;
}

/** Recall@k from a ranking summary (ties at the cut-off broken by corpus order, as `recallAtK`). */
export function recallFromSummary(r: RankingSummary, relevant: readonly number[], k: number): number {
  if (relevant.length === 0) return 0;
  const rel = new Set(relevant);
  let hit = 0;
  for (const d of r.top.slice(0, k)) if (rel.has(d)) hit++;
  return hit / rel.size;
}
