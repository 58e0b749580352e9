import { ndcgAtK, recallAtK } from './metrics.js';
import type { RetrievalQuery, Retriever } from './types.js';

export interface QueryScores {
  id: string;
  ndcg1: number;
  ndcg3: number;
  ndcg5: number;
  recall5: number;
  recall10: number;
}

export interface RetrievalReport {
  retriever: string;
  queries: number;
  /** Macro means ×100 (percent), as ToolBench logs them. */
  ndcg1: number;
  ndcg3: number;
  ndcg5: number;
  recall5: number;
  recall10: number;
  perQuery: QueryScores[];
}

/**
 * Scores every corpus document for every query (`scoreAll`, no top-k cut) and averages NDCG@1/3/5
 * (scikit-learn tie semantics) and Recall@5/10 over the queries (docs/retrieval.md, "NDCG@K as ToolBench computes it").
 */
export async function evaluateRetriever(
  retriever: Retriever,
  queries: readonly RetrievalQuery[],
  onProgress?: (done: number, total: number) => void,
): Promise<RetrievalReport> {
  const perQuery: QueryScores[] = [];
  for (const q of queries) {
    const scores = await retriever.scoreAll(q.text);
    const rel = new Set(q.relevant);
    perQuery.push({
      id: q.id,
      ndcg1: ndcgAtK(scores, rel, 1),
      ndcg3: ndcgAtK(scores, rel, 3),
      ndcg5: ndcgAtK(scores, rel, 5),
      recall5: recallAtK(scores, rel, 5),
      recall10: recallAtK(scores, rel, 10),
    });
    onProgress?.(perQuery.length, queries.length);
  }
  const mean = (f: (s: QueryScores) => number) =>
    perQuery.length ? (100 * perQuery.reduce((a, s) => a + f(s), 0)) / perQuery.length : 0;
  return {
    retriever: retriever.name,
    queries: perQuery.length,
    ndcg1: mean((s) => s.ndcg1),
    ndcg3: mean((s) => s.ndcg3),
    ndcg5: mean((s) => s.ndcg5),
    recall5: mean((s) => s.recall5),
    recall10: mean((s) => s.recall10),
    perQuery,
  };
}
