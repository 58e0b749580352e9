/**
 * AppBench (MetaBench): records, data download, gold plans, official and corrected scoring,
 * and the task the harness runs. Subpath `apiary/appbench`.
 * @module
 */

// Building the database file from an SGD release (`apiary apps build-db`)
export {
  buildSgdDatabaseFile,
  type SgdDatabaseBuildInterrupted,
  type SgdDatabaseFileReport,
} from './apps/build-sgd-database-file.js';
// Slot value normalisation shared by the database and the apps
export { normalizeSlotValue } from './apps/normalize-slot-value.js';
// Simulated apps answering from the SGD database, with recorded side effects
export {
  type CreateSgdAppsOptions,
  countSideEffects,
  createSgdApps,
  listSideEffects,
  type SgdApiBinding,
  SgdAppHandler,
  type SideEffect,
} from './apps/sgd-apps.js';
// The SGD results database: open (built file or bundled subset), build, inspect
export {
  buildSgdDatabase,
  defaultSgdDatabasePath,
  findSgdDialogueFiles,
  type OpenSgdDatabaseOptions,
  openBundledSgdDatabase,
  openSgdDatabase,
  readSgdDialogueFiles,
  type SgdBuildCounts,
  type SgdDatabaseHandle,
  type SgdDialogueFile,
  type SgdIntentCounts,
  type SqliteDatabase,
  type SqliteStatement,
  sgdDatabaseCounts,
  sgdDatabaseMeta,
} from './apps/sgd-database.js';
// The AppBench and SGD catalogs (`--catalog appbench | sgd`), built from the SGD service schemas
export {
  appBenchCatalogSource,
  appBenchSgdSource,
} from './catalog.js';
// records and categories
export { appBenchFileName } from './categories.js';
// where the data comes from: --data, pulled official data, else the bundled mini set
export { resolveAppBenchData } from './data-folder.js';
// argument error counts in the report
export { type ErrorCounts, ErrorCountsSchema, type ErrorSummary } from './error-analysis.js';
// gold plans from records (with repairs of noisy data)
// executing and linting every gold plan (`apiary apps check`)
export {
  checkAppBenchGold,
  type GoldCheckReport,
  type GoldFinding,
  type GoldFindingKind,
  type GoldRecord,
  literalSource,
} from './gold-check.js';
export { appBenchGoldPlan, type GoldPlan, type GoldRepair } from './gold-plan.js';
// the plugin: what `registerPlugin` takes (listed in src/benchmarks/builtin.ts)
export { appBenchPlugin } from './plugin.js';
// fetching the data (`apiary data pull appbench`)
export {
  findAppBenchData,
  type PullAppBenchOptions,
  type PullAppBenchResult,
  type PulledFile,
  pullAppBench,
} from './pull-appbench.js';
export {
  APPBENCH_CATEGORIES,
  type AppBenchCategory,
  type AppBenchRecord,
  parseAppBenchFile,
  readAppBenchFile,
} from './record.js';
// AppBench in the task registry: solvers, options, the definition
export {
  APPBENCH_SOLVERS,
  appBenchDefinition,
} from './register.js';
// printing a report
export { type AppBenchReportMode, formatAppBenchReport } from './report-format.js';
// retrieval queries (gold APIs per instruction)
export { appBenchRetrievalQueries } from './retrieval-queries.js';
// samples and predictions
export {
  type AppBenchPrediction,
  type AppBenchSample,
  type LoadSamplesOptions,
  loadAppBenchSamples,
} from './sample.js';
// the official sampling settings (the task's defaults)
export { APPBENCH_SAMPLING } from './sampling.js';
// scoring replies in official and corrected mode, per sample and per group
export {
  type AgentOutcomeSummary,
  type AppBenchGroupReport,
  type AppBenchReport,
  type AppBenchSampleScore,
  AppBenchSampleScoreSchema,
  scoreAppBench,
  summarizeAppBench,
} from './score-appbench.js';
// metrics of the corrected scorer (calls aligned by App+API)
export type { CorrectedMetrics } from './score-corrected.js';
// metrics of the official scorer (as upstream computes them)
export type { OfficialMetrics } from './score-official.js';
// predictions files (`apiary score appbench`)
export { type PredictionLine, type PredictionsFile, readAppBenchPredictions } from './score-predictions.js';
// the state-based score of tool-loop runs (effects, searches, unauthorised calls)
export {
  type GoldState,
  goldStateOf,
  type StateScore,
  StateScoreSchema,
  type StateSummary,
  scoreState,
  summarizeState,
} from './score-state.js';
// AppBench as a source of fine-tuning data: gold tasks, demonstrations, the prompt styles
export {
  APPBENCH_SFT_STYLES,
  appBenchDemoKnowledgeBase,
  appBenchSftStyle,
  type DemoKnowledgeBase,
  type LoadAppBenchTasksOptions,
  loadAppBenchGoldTasks,
} from './sft-source.js';
export {
  loadSgdServices,
  type SgdService,
  sgdCatalogSource,
} from './sgd-catalog.js';
// the task (dataset, solver, scoring) and its demonstrations
export {
  APPBENCH_CURRENT_DATE,
  type AppBenchOutput,
  type AppBenchSolverFn,
  type AppBenchTask,
  type AppBenchTaskOptions,
  appBenchDemos,
  appBenchGoldReply,
  appBenchPlanner,
  appBenchTask,
  type GoldStateProvider,
  loadAppBenchDataset,
  seededDemoPicker,
} from './task.js';
// the simulated world of a tool-loop run: toolset on the SGD apps and the gold state
export { type AppBenchWorld, appBenchWorld } from './tool-loop.js';
