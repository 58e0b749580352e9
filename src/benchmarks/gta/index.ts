/**
 * GTA (General Tool Agents): loading, step-by-step mode and scoring (docs/gta.md). Subpath
 * `apiary/gta`.
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
// GTA's tools in the catalog (`--catalog gta`) and their categories (per-category F1)
export { GTA_TOOL_CATEGORIES, gtaCatalog, gtaCatalogSource } from './catalog.js';
export {
  type GtaDataset,
  type GtaFile,
  type GtaRecord,
  type LoadGtaOptions,
  loadGtaDataset,
} from './dataset.js';
export {
  GTA_NATIVE_SYSTEM,
  type GtaE2eOptions,
  type GtaE2eProtocol,
  type GtaE2eRun,
  runGtaE2e,
} from './e2e-agent.js';
export {
  type GtaE2eItem,
  type GtaE2eRecordScore,
  type GtaE2eScores,
  scoreGtaE2e,
  scoreGtaE2eRecord,
  summarizeGtaE2e,
} from './e2e-metrics.js';
export { type GtaLeaderboardRow, parseGtaLeaderboard } from './leaderboard.js';
// the plugin: what `registerPlugin` takes (listed in src/benchmarks/builtin.ts)
export { gtaPlugin } from './plugin.js';
export {
  formatGtaE2ePredictions,
  formatGtaStepPredictions,
  type GtaStepPredictionRecord,
  readGtaStepPredictions,
} from './predictions.js';
export {
  GTA_ARCHIVE,
  type GtaManifest,
  GtaManifestSchema,
  gtaCacheDir,
  type PullGtaOptions,
  type PullGtaResult,
  pullGta,
} from './pull-gta.js';
export { pyEquals, pyTruthy } from './py-value.js';
export {
  type GtaOutput,
  type GtaSample,
  type GtaScore,
  gtaDefinition,
} from './register.js';
// also re-exported by apiary/reports until the core stops naming benchmarks (issue 25 item 1)
export {
  type GtaRunReport,
  type GtaSampleScore,
  GtaSampleScoreSchema,
  type GtaToolRow,
  summarizeGtaScores,
} from './report-scores.js';
export {
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
  gtaStepPercentages,
  gtaStepType,
  scoreGtaSteps,
  sumGtaStepCounts,
} from './step-metrics.js';
export {
  GTA_SUMMARIZE_PROMPT,
  type GtaPromptMessage,
  type GtaStepPrompt,
  gtaStepPrompts,
} from './step-prompt.js';
export { runGtaStepMode } from './step-solver.js';
export {
  formatGtaReport,
  type GtaTaskReport,
  type GtaTaskStepReport,
  gtaTaskMetrics,
  summarizeGtaTask,
} from './task-report.js';
export { GTA_CATEGORIES, type GtaCategory, type GtaCategoryF1, gtaCategory, gtaToolF1 } from './tool-f1.js';
export {
  type GtaToolMeta,
  gtaAgentTool,
  loadGtaToolMeta,
  recordTools,
} from './toolmeta.js';
// GTA's tools: OCR (tesseract.js), Calculator (mathjs), DrawBox and AddText (jimp)
export { addTextTool, placeText, type TextPlacement } from './tools/add-text.js';
export { calculate, calculatorTool } from './tools/calculator.js';
export { boxLineWidth, drawBoxTool } from './tools/draw-box.js';
export { parseBbox } from './tools/image-args.js';
// GTA's image-generation tools on an OpenAI-compatible images endpoint
export {
  type ImageGenToolOptions,
  imageGenTools,
  imageGenToolsFromEnv,
  imageStylizationTool,
  textToImageTool,
} from './tools/image-gen.js';
export {
  formatOcrLines,
  type OcrLine,
  type OcrTool,
  type OcrToolOptions,
  ocrTool,
} from './tools/ocr.js';
export { plotTool } from './tools/plot.js';
export { stripMarkdownCode } from './tools/python-solution.js';
// The registry: every GTA tool by name, its status, its app handlers for dispatchCall
export {
  disposeTools,
  GTA_TOOL_NAMES,
  type GtaToolHandlersOptions,
  type GtaToolsConfig,
  gtaTool,
  gtaToolHandlers,
  gtaTools,
  toolStatus,
} from './tools/registry.js';
// GTA's GoogleSearch: pluggable providers (Serper.dev web search, an offline BM25 corpus)
export {
  type GoogleSearchToolOptions,
  googleSearchTool,
  type SearchProviderFlags,
  searchProviderFromEnv,
} from './tools/search.js';
export { GTA_PYTHON_TIMEOUT_MS, type PythonToolOptions, solverTool } from './tools/solver.js';
// GTA's vision tools on a vision-language model (OpenAI-compatible chat, image content parts)
export {
  countGivenObjectTool,
  imageDescriptionTool,
  mathOcrTool,
  regionAttributeDescriptionTool,
  textToBboxTool,
  VISION_PROMPTS,
  type VisionToolOptions,
  visionTools,
  visionToolsFromEnv,
} from './tools/vision.js';
export {
  createVisionClient,
  type ImageBytes,
  readImageArg,
  sniffImageType,
  type VisionClient,
  type VisionClientOptions,
} from './tools/vision-client.js';
export {
  type DetectedBox,
  formatBoxes,
  parseBboxArg,
  parseBoxes,
  parseCount,
  parseLatex,
  pyFormat0f,
} from './tools/vision-parse.js';
