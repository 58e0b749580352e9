/**
 * The evaluation harness: runs a task over its samples with concurrency, resumable JSONL
 * results, progress and summaries. Subpath `apiary/harness`.
 * @module
 */

// Package and git facts for the run spec
export { gitRevision, packageRoot, packageVersion } from './environment.js';

// Progress display
export {
  createProgressReporter,
  type ProgressMode,
  type ProgressReporter,
  type ProgressReporterOptions,
  progressModeFor,
} from './progress.js';

// The results file
export {
  type HeaderLine,
  HeaderLineSchema,
  type ResultsFileContents,
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

// The run spec recorded in the results header
export {
  buildRunSpec,
  type RunSpec,
  type RunSpecDeps,
  type RunSpecInput,
  RunSpecSchema,
} from './run-spec.js';

// Summaries of a run
export { type CategoryCounts, formatRunSummary, type RunSummary, summarizeResults } from './summary.js';
