/**
 * Benchmarks as tasks: the task contract the harness runs, AppBench (data, scoring, the
 * task) and ToolBench retrieval (suite, training, evaluation). Subpath `apiary/tasks`.
 * @module
 */

// AppBench
export {
  APPBENCH_CATEGORIES,
  type AppBenchCategory,
  type AppBenchGroupReport,
  type AppBenchOutput,
  type AppBenchPrediction,
  type AppBenchRecord,
  AppBenchRecordSchema,
  type AppBenchReport,
  type AppBenchReportMode,
  type AppBenchSample,
  type AppBenchSampleScore,
  AppBenchSampleScoreSchema,
  type AppBenchTask,
  type AppBenchTaskOptions,
  appBenchFileName,
  appBenchGoldPlan,
  appBenchGoldReply,
  appBenchRetrievalQueries,
  appBenchTask,
  type CorrectedMetrics,
  type ErrorCounts,
  ErrorCountsSchema,
  type ErrorSummary,
  findAppBenchData,
  formatAppBenchReport,
  type GoldPlan,
  type GoldRepair,
  type LoadSamplesOptions,
  loadAppBenchDataset,
  loadAppBenchSamples,
  type OfficialMetrics,
  type PredictionLine,
  type PredictionsFile,
  type PullAppBenchOptions,
  type PullAppBenchResult,
  type PulledFile,
  parseAppBenchFile,
  pullAppBench,
  readAppBenchFile,
  readAppBenchPredictions,
  scoreAppBench,
  seededDemoPicker,
  summarizeAppBench,
} from './appbench/index.js';

// The task contract the harness runs
export type { AnyTask, Outcome, SolveContext, Solved, Task, TaskSample, TaskUsage } from './task.js';

// ToolBench retrieval
export {
  evaluateRetriever,
  loadToolBenchSuite,
  type PairOptions,
  type PyJson,
  type PyNumber,
  type PyObject,
  type QueryScores,
  type RankerTrainingOptions,
  type RetrievalReport,
  type RetrievalSet,
  TOOLBENCH_GROUPS,
  type ToolBenchDoc,
  type ToolBenchSuite,
  type TrainSuiteOptions,
  toolBenchCorpus,
  trainToolBenchModel,
  trainToolBenchRanker,
} from './toolbench/index.js';
