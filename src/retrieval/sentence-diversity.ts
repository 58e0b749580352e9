import { topK } from './top-k.js';

/**
 * Sentence diversification of a ranking (xQuAD-style, with the request's sentences as its
 * aspects). A request of several parts ("Track my package. Also, get the address of this postcode.")
 * needs an API for each part; a linear ranker whose tool-level features lift every API of the tool
 * answering the longest part fills the top with that tool and pushes the other part's API out of
 * the top 5. Greedily, the next document is the one maximising
 *
 *   (1 − λ) · rel(d) + λ · Σ_s w_s · c_s(d) · Π_{d' already chosen} (1 − c_s(d'))
 *
 * where rel(d) is the ranker's score rescaled to [0, 1] over the `depth` best documents, c_s(d)
 * the document's doc score against sentence s divided by the best in the corpus (in [0, 1]), and
 * w_s the sentence's best raw score over the sum of them (a sentence that matches strongly
 * weighs more than "Thank you."). A sentence already answered stops rewarding the documents that
 * answer it. Only the `depth` best documents move, and among themselves: they keep the ranker's
 * scores, handed out again in the new order, so everything below keeps its score.
 */
export interface SentenceDiversity {
  /** Weight of the sentence-coverage term (0 leaves the ranking as it is). */
  lambda: number;
  /** How many of the best documents are re-ranked. */
  depth: number;
}

/**
 * Re-ranks in place the `depth` best documents of `scores` (see above). `sentenceScores[s]` are the
 * raw doc scores of sentence s for every document (≥ 0).
 */
export function diversifyBySentence(
  scores: Float32Array,
  sentenceScores: readonly ArrayLike<number>[],
  opts: SentenceDiversity,
): Float32Array {
  const { lambda } = opts;
  const depth = Math.min(opts.depth, scores.length);
  if (lambda === 0 || depth < 2 || sentenceScores.length < 2) return scores;
  const top = topK(scores, depth).map((h) => h.doc);
  const sorted = top.map((d) => scores[d] as number); // descending
  const hi = sorted[0] as number;
  const lo = sorted[depth - 1] as number;
  const span = hi - lo || 1;
  const maxima = sentenceScores.map((s) => {
    let m = 0;
    for (let i = 0; i < s.length; i++) if ((s[i] as number) > m) m = s[i] as number;
    return m;
  });
  const total = maxima.reduce((a, b) => a + b, 0);
  if (total === 0) return scores;
  // coverage of each candidate per sentence, and what of each sentence is still unanswered
  const cover = sentenceScores.map((s, k) =>
    top.map((d) => ((maxima[k] as number) > 0 ? (s[d] as number) / (maxima[k] as number) : 0)),
  );
  const weight = maxima.map((m) => m / total);
  const open = maxima.map(() => 1);
  const left = top.map((_, c) => c);
  const order: number[] = [];
  while (left.length) {
    let best = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < left.length; j++) {
      const c = left[j] as number;
      let novelty = 0;
      for (let k = 0; k < cover.length; k++)
        novelty += (weight[k] as number) * ((cover[k] as number[])[c] as number) * (open[k] as number);
      const v = (1 - lambda) * (((sorted[c] as number) - lo) / span) + lambda * novelty;
      if (v > bestValue) {
        bestValue = v;
        best = j;
      }
    }
    const c = left.splice(best, 1)[0] as number;
    order.push(c);
    for (let k = 0; k < cover.length; k++)
      open[k] = (open[k] as number) * (1 - ((cover[k] as number[])[c] as number));
  }
  order.forEach((c, p) => {
    scores[top[c] as number] = sorted[p] as number;
  });
  return scores;
}
