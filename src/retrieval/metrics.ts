import { topK } from './top-k.js';

/**
 * Ranking metrics over an exhaustive score vector (one score per corpus document).
 *
 * `ndcgAtK` reproduces scikit-learn's `ndcg_score([y], [s], k=k)` with its default
 * `ignore_ties=False`: documents with exactly equal scores form a group that shares the group's
 * mean gain over the group's ranks (docs/retrieval.md, "NDCG@K as ToolBench computes it"). Gains are binary.
 */

const discount = (rank: number): number => 1 / Math.log2(rank + 1);

/** Indices of `scores` sorted by descending score (stable: equal scores keep corpus order). */
export function rankDescending(scores: ArrayLike<number>): Uint32Array {
  const order = new Uint32Array(scores.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  order.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
  return order;
}

/**
 * NDCG@k of one query. `relevant` holds the indices of relevant documents. Only the documents
 * that can reach the top k matter, so this runs in O(N) plus sorting the top part.
 */
export function ndcgAtK(scores: ArrayLike<number>, relevant: ReadonlySet<number>, k: number): number {
  const n = scores.length;
  if (n < 2) throw new RangeError('NDCG needs at least 2 documents (as scikit-learn)');
  const ideal = Math.min(k, relevant.size);
  let idcg = 0;
  for (let r = 1; r <= ideal; r++) idcg += discount(r);
  if (idcg === 0) return 0;
  // The k-th largest score: every document above it, or tied with it, can occupy ranks ≤ k.
  const top = topScores(scores, k);
  const threshold = top[top.length - 1] as number;
  const cand: number[] = [];
  for (let i = 0; i < n; i++) if ((scores[i] as number) >= threshold) cand.push(i);
  cand.sort((a, b) => (scores[b] as number) - (scores[a] as number));
  let dcg = 0;
  let pos = 0; // ranks are 1-based: the group starting at pos covers ranks pos+1..pos+len
  while (pos < cand.length && pos < k) {
    const s = scores[cand[pos] as number] as number;
    let end = pos;
    let gain = 0;
    while (end < cand.length && scores[cand[end] as number] === s) {
      if (relevant.has(cand[end] as number)) gain++;
      end++;
    }
    let disc = 0;
    for (let r = pos + 1; r <= Math.min(end, k); r++) disc += discount(r);
    dcg += (gain / (end - pos)) * disc;
    pos = end;
  }
  return dcg / idcg;
}

/** The k largest values, descending (k ≥ 1). */
function topScores(scores: ArrayLike<number>, k: number): number[] {
  const kk = Math.min(k, scores.length);
  const out: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i] as number;
    if (out.length < kk) {
      out.push(s);
      out.sort((a, b) => b - a);
    } else if (s > (out[kk - 1] as number)) {
      let j = kk - 1;
      while (j > 0 && (out[j - 1] as number) < s) {
        out[j] = out[j - 1] as number;
        j--;
      }
      out[j] = s;
    }
  }
  return out;
}

/**
 * Recall@k: share of the relevant documents among the first k of the ranking. Ties at the
 * cut-off are broken by corpus order (a deterministic, documented choice).
 */
export function recallAtK(scores: ArrayLike<number>, relevant: ReadonlySet<number>, k: number): number {
  if (relevant.size === 0) return 0;
  const top = topKIndices(scores, k);
  let hit = 0;
  for (const i of top) if (relevant.has(i)) hit++;
  return hit / relevant.size;
}

/** Indices of the k best scores, best first; ties keep corpus order. */
export function topKIndices(scores: ArrayLike<number>, k: number): number[] {
  return topK(scores, k).map((h) => h.doc);
}
