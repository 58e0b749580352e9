/**
 * The evaluation harness: runs a task over its samples with concurrency, resumable JSONL
 * results, progress and summaries. Subpath `apiary/harness`.
 * @module
 */

// Package and git facts for the run spec
export { gitRevision, packageVersion } from './environment.js';
// Epochs: mean ± 95% confidence interval (Student t) and pass^k / pass@k
export { type MetricEstimate, meanWithCi, type PassRates, passRates } from './epoch-stats.js';
// Running a task end to end: the one entry of the CLI, `eval all`, worker threads and queue workers
export { type EvaluateOptions, type EvaluateResult, evaluate } from './evaluate.js';
// Plugin modules (`--plugin FILE`, `recipe.plugins`): imported and registered
export { importPluginModule, pluginsExportedBy } from './plugin-modules.js';
// Progress display
export {
  createProgressReporter,
  type ProgressMode,
  type ProgressReporter,
  type ProgressReporterOptions,
  progressModeFor,
} from './progress.js';
export {
  createQueueAuth,
  INSECURE_QUEUE_AUTH,
  type QueueAuth,
  resolveQueueAuth,
} from './queue-auth.js';
// Distributed evals: the coordinator puts samples on a BullMQ queue, `apiary worker` processes solve them
export {
  type QueueCoordinator,
  type QueueCoordinatorOptions,
  type QueueRunStats,
  startQueueCoordinator,
} from './queue-coordinator.js';
export {
  jobIdFor,
  type QueueJobData,
  QueueJobDataSchema,
  queueNameFor,
  RUNS_KEY,
  type RunAnnouncement,
  RunAnnouncementSchema,
} from './queue-protocol.js';
export { type QueueWorkerHandle, type QueueWorkerOptions, startQueueWorker } from './queue-worker.js';
// Redis connections (ioredis) for BullMQ and for the runs' own keys
export { connectRedis, createBullConnection } from './redis-connection.js';
// The results file
export {
  BlobLineSchema,
  type HeaderLine,
  headerLine,
  internalize as restoreBlobRefs,
  parseResultsText,
  type ResultsFileContents,
  ResultsWriter,
  readResultsFile,
  type SampleLine,
  SampleLineSchema,
} from './results-file.js';
// Running a task: concurrency, resumable JSONL results, progress
export {
  type EvalProgress,
  type RunEvalDeps,
  type RunEvalOptions,
  type RunEvalResult,
  runEval,
} from './run-eval.js';
// Run folders: unique per run by default, the latest one for --resume
export {
  createRunFolder,
  DEFAULT_RUNS_DIR,
  latestRunFolder,
  runFolderPrefix,
  runTimestamp,
} from './run-folder.js';
// A run folder is locked while a run writes it
export {
  acquireRunLock,
  processIsAlive,
  RUN_LOCK_FILE,
  type RunLock,
  type RunLockDeps,
  type RunLockHolder,
} from './run-lock.js';
// The run spec recorded in the results header
export {
  buildRunSpec,
  formatSpecConflicts,
  type Price,
  type RunSpec,
  type RunSpecDeps,
  type RunSpecInput,
  RunSpecSchema,
  type RunSpecV1,
  RunSpecV1Schema,
  runSpecConflicts,
  type SpecConflict,
  upgradeRunSpecV1,
} from './run-spec.js';
// Solving and scoring one sample, and loading a task from its serialisable recipe (every thread)
export {
  loadResolvedRecipe,
  loadTaskFromRecipe,
  type ModelRecipe,
  ModelRecipeSchema,
  parseTaskRecipe,
  type RebuiltTask,
  type RecipeRegistries,
  type ResolvedRecipe,
  rebuildTask,
  resolveRecipe,
  runSampleById,
  type SampleRun,
  solveAndScore,
  type TaskRecipe,
  type TaskRecipeInput,
  TaskRecipeInputSchema,
  TaskRecipeSchema,
} from './sample-runner.js';
// The seeded order samples run in
export { seededShuffle } from './seeded-random.js';
export { studentTCdf, studentTQuantile } from './student-t.js';
// Summaries of a run
export {
  type CategoryCounts,
  distinctSamples,
  formatDollars,
  formatRunSummary,
  isInfrastructureError,
  type RunSummary,
  type SummaryMetrics,
  summarizeResults,
  summarizeResultsFile,
} from './summary.js';
// What a streamed worker sends back per finished sample
export type { StreamedLine, StreamJob } from './worker-messages.js';
// Worker threads that solve and score samples for runEval({ workers })
export {
  type SampleWorkerPool,
  type StreamOptions,
  type StreamRun,
  startSampleWorkers,
} from './worker-pool.js';
