/**
 * GTA (General Tool Agents): loading, step-by-step mode and scoring (specs/gta.md). Sub-entry of
 * `apiary/tasks`.
 * @module
 */
export {
  cosine,
  type GtaEmbedder,
  type GtaWhitelist,
  isCorrect,
  matchesWholeWord,
  referenceKind,
  simScore,
  whitelistOf,
} from './answer-match.js';
export {
  type GtaDataset,
  type GtaFile,
  type GtaRecord,
  type LoadGtaOptions,
  loadGtaDataset,
  pyPathJoin,
} from './dataset.js';
export { type GtaLeaderboardRow, parseGtaLeaderboard } from './leaderboard.js';
export {
  formatGtaStepPredictions,
  type GtaStepPredictionRecord,
  readGtaStepPredictions,
} from './predictions.js';
export { pyEquals, pyTruthy } from './py-value.js';
export {
  GTA_DUMMY_RESULT,
  GTA_FINISH_ACTION,
  GTA_INVALID_ACTION,
  GTA_NO_ACTION,
  gtaStepFromReply,
} from './step-execute.js';
export {
  type GtaStepCounts,
  type GtaStepItem,
  type GtaStepScores,
  type GtaStepType,
  gtaStepType,
  scoreGtaSteps,
} from './step-metrics.js';
export {
  formatToolResult,
  GTA_SUMMARIZE_PROMPT,
  type GtaPromptMessage,
  type GtaStepPrompt,
  gtaStepPrompts,
  reactStyleHistory,
  stepPromptMessages,
} from './step-prompt.js';
export { runGtaStepMode } from './step-solver.js';
export { GTA_CATEGORIES, type GtaCategory, type GtaCategoryF1, gtaCategory, gtaToolF1 } from './tool-f1.js';
export {
  type GtaToolMeta,
  GtaToolMetaSchema,
  gtaAgentTool,
  loadGtaToolMeta,
  recordTools,
} from './toolmeta.js';
