/**
 * The plugin contract: how a benchmark (built in, or a user's own) adds tasks, catalogs and CLI
 * commands to the core without the core importing it. Subpath `apiary/plugins`.
 * @module
 */
export type {
  DataPuller,
  DataPullFlags,
  GoldPlanSource,
  OpenedToolset,
  PluginApps,
  PluginCommand,
  PluginDataBuild,
  PluginDownload,
  PluginGoldPlans,
  PluginOption,
  PluginPlanFormat,
  PluginRetrieval,
  PluginScorer,
  PluginToolset,
  PredictionScorer,
  RetrievalDataset,
  RetrievalEvalContext,
  ScoreFlags,
  ScoreHelpSlot,
  SimulatedApps,
  ToolsetRuntime,
} from './cli-hooks.js';
export type {
  BenchmarkPlugin,
  CoreHelpSlot,
  PluginTask,
  TaskEvalFlag,
  TaskEvalFlags,
  TaskFlagSettings,
} from './plugin.js';
export { defaultPluginRegistry, listPlugins, PluginRegistry, registerPlugin } from './registry.js';
export type { PluginReport, ReportSummary, TaskReport, ViewerHints } from './report.js';
