/** Turns texts into vectors (all the same length). */
export interface Embedder {
  readonly name: string;
  readonly dimension: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface RetrievalHit {
  /** Index of the document in the corpus it was built from. */
  doc: number;
  score: number;
}

/** Ranks the documents of a corpus for a query. Implementations: BM25, vectors, hybrid, trained. */
export interface Retriever {
  readonly name: string;
  /** Top-k hits, best first. */
  search(query: string, k: number): Promise<RetrievalHit[]>;
  /** A score for every document, in corpus order (exhaustive ranking for NDCG). */
  scoreAll(query: string): Promise<Float32Array>;
}

/** A query with the corpus positions of its relevant documents (for NDCG / recall). */
export interface RetrievalQuery {
  id: string;
  text: string;
  relevant: number[];
}
