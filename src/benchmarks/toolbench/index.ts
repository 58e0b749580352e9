/**
 * ToolBench API retrieval (G1 queries over 46,802 APIs): the suite, training the retrievers on
 * it and evaluation. Subpath `apiary/toolbench`.
 * @module
 */

// Python-compatible JSON values
export type { PyJson, PyNumber, PyObject } from '../../shared/index.js';
// corpus documents
export type { ToolBenchDoc } from './corpus.js';
// query sets mapped to the corpus
export type { RetrievalSet } from './dataset.js';
export {
  type QueryPairOptions,
  TOOLBENCH_DENSE_DEFAULTS,
  toolBenchCategoryIds,
  toolBenchDensePairs,
  toolBenchParameterText,
  toolBenchQueryPairs,
} from './dense-pairs.js';
// training the dense encoder on the catalog and the requests of some G1 files
export {
  type ToolBenchDenseCounts,
  type ToolBenchDenseOptions,
  type ToolBenchDenseResult,
  type ToolBenchDenseSet,
  toolBenchDenseSet,
  trainToolBenchDense,
  trainToolBenchDenseSet,
} from './dense-train.js';
export { toolBenchDocText } from './doc-text.js';
// evaluation (NDCG@1/3/5, Recall@5/10)
export { evaluateRetriever, type QueryScores, type RetrievalReport } from './evaluate.js';
// retrieval index files of the corpus
export {
  buildToolBenchIndex,
  findCachedToolBenchIndex,
  toolBenchCatalogHash,
  toolBenchCatalogHashFast,
} from './index-file.js';
// the plugin: what `registerPlugin` takes (listed in src/benchmarks/builtin.ts)
export { toolBenchPlugin } from './plugin.js';
// queries and corpus text
export { parseToolBenchQueries, readToolBenchQueries, type ToolBenchQuery } from './queries.js';
export {
  ndcgFromSummary,
  type RankingSummary,
  recallFromSummary,
  summarizeRanking,
} from './ranking-summary.js';
export {} from './register.js';
// ToolBench retrieval as a registered task
export {
  type RetrievalMeans,
  type ToolBenchQueryScore,
  type ToolBenchRetrievalReport,
  toolBenchRetrievalDefinition,
} from './retrieval-task.js';
// the suite, training on it
export {
  fitToolBenchFeatures,
  loadToolBenchEvalSuite,
  loadToolBenchSuite,
  NO_ENTRY,
  type PairOptions,
  RANKER_MULTI_TOOL_REQUESTS,
  type RankerTrainingOptions,
  type SuiteLoadOptions,
  TOOLBENCH_GROUPS,
  type ToolBenchSuite,
  type TrainSuiteOptions,
  toolBenchCorpus,
  toolBenchQueryFiles,
  trainToolBenchModel,
  trainToolBenchModelUntil,
  trainToolBenchRanker,
} from './suite.js';
