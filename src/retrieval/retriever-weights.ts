/** The tuned constants of the combined retriever kinds (`buildRetriever`), chosen on ToolBench G1. */
import { UNBOUNDED_FIELD_FEATURES } from './field-features.js';
import type { RankerModel } from './linear-ranker.js';
import type { SentenceDiversity } from './sentence-diversity.js';

/**
 * Weights of `bm25-fields`: BM25(lexical view) + μ·BM25(second view) + λ·BM25(tool text).
 * Chosen by leave-one-file-out cross-validation over the G1 files on the grid λ ∈ {0.5,1,1.5,2,3},
 * μ ∈ {0,0.5,1} (λ=3, μ=1 won on two folds, λ=3, μ=0.5 on the third); see docs/retrieval.md.
 */
export const BM25_FIELDS = { lambda: 3, mu: 1 } as const;

/** Weight of the trained retriever in `trained-fusion` (z-scores; bm25-fields has weight 1). */
export const TRAINED_FUSION_WEIGHT = 0.5;

/**
 * Features the ranker divides by their per-query maximum (unbounded scores: BM25, tool top-2,
 * trained cosine); coverage, sentence, name-coverage and size features are already comparable.
 */
export const RANKER_SCALED: readonly string[] = [...UNBOUNDED_FIELD_FEATURES, 'trained'];

/** Training starts from the shape of `bm25-fields` (on scaled features). */
export const RANKER_INITIAL: RankerModel = {
  weights: { 'doc.text': 1, 'doc.second': BM25_FIELDS.mu, 'group.text': BM25_FIELDS.lambda },
  scaled: RANKER_SCALED,
};

/**
 * Weight of `dense` beside `bm25-fields` in `dense-hybrid` (z-scores): fixed at 0.5 like
 * `TRAINED_FUSION_WEIGHT`, not tuned on G1 (perf/dense-retrieval.ts prints 0.3 and 1 beside it).
 */
export const DENSE_HYBRID_WEIGHT = 0.5;

/**
 * `ranked`'s sentence diversification of its 50 best APIs (`diversifyBySentence`). λ = 0.3 was
 * chosen on G1-derived requests only (each G1 file held out, its requests and 2-tool requests
 * composed from them): 0.1 / 0.2 / 0.3 / 0.5 moved held-out G1 NDCG@5 by +0.1 / −0.1 / +0.1 / −0.8
 * and composed 2-tool requests by +0.4 / +0.9 / +1.3 / +2.3; 0.3 is the largest that leaves G1
 * where it was (docs/retrieval.md, "Real multi-tool requests").
 */
export const RANKER_SENTENCE_DIVERSITY: SentenceDiversity = { lambda: 0.3, depth: 50 };
