import { topK } from './top-k.js';
import type { RetrievalQuery, Retriever } from './types.js';

/**
 * The `n` best-scored documents that are not relevant, best first (ties: corpus order): the
 * documents a retriever confuses with the answer, to train another model against.
 */
function hardNegatives(scores: ArrayLike<number>, relevant: readonly number[], n: number): number[] {
  const skip = new Set(relevant);
  return topK(scores, n + skip.size)
    .map((h) => h.doc)
    .filter((i) => !skip.has(i))
    .slice(0, n);
}

/** `hardNegatives` of every query under `retriever` (by query id). */
export async function mineHardNegatives(
  retriever: Retriever,
  queries: readonly RetrievalQuery[],
  n: number,
): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for (const q of queries) out.set(q.id, hardNegatives(await retriever.scoreAll(q.text), q.relevant, n));
  return out;
}
