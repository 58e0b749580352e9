/**
 * Executable tools: GTA's 14 tools (OCR, Calculator, sandboxed Python Solver/Plot, image drawing,
 * search, vision and image-generation endpoints), each runnable through `dispatchCall` as an app.
 * @module
 */

// GTA's tools: OCR (tesseract.js), Calculator (mathjs), DrawBox and AddText (jimp)
export { addTextTool, placeText, type TextPlacement } from '../benchmarks/gta/tools/add-text.js';
export { calculate, calculatorTool } from '../benchmarks/gta/tools/calculator.js';
export { boxLineWidth, drawBoxTool } from '../benchmarks/gta/tools/draw-box.js';
export { parseBbox } from '../benchmarks/gta/tools/image-args.js';
// GTA's image-generation tools on an OpenAI-compatible images endpoint
export {
  type ImageGenToolOptions,
  imageGenTools,
  imageGenToolsFromEnv,
  imageStylizationTool,
  textToImageTool,
} from '../benchmarks/gta/tools/image-gen.js';
export {
  formatOcrLines,
  type OcrLine,
  type OcrTool,
  type OcrToolOptions,
  ocrTool,
} from '../benchmarks/gta/tools/ocr.js';
export { plotTool } from '../benchmarks/gta/tools/plot.js';
export { type SolutionKind, stripMarkdownCode } from '../benchmarks/gta/tools/python-solution.js';
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
} from '../benchmarks/gta/tools/registry.js';
// GTA's GoogleSearch: pluggable providers (Serper.dev web search, an offline BM25 corpus)
export {
  type GoogleSearchToolOptions,
  googleSearchTool,
  type SearchProviderFlags,
  searchProviderFromEnv,
} from '../benchmarks/gta/tools/search.js';
export { GTA_PYTHON_TIMEOUT_MS, type PythonToolOptions, solverTool } from '../benchmarks/gta/tools/solver.js';
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
} from '../benchmarks/gta/tools/vision.js';
export {
  createVisionClient,
  type ImageBytes,
  readImageArg,
  sniffImageType,
  type VisionClient,
  type VisionClientOptions,
} from '../benchmarks/gta/tools/vision-client.js';
export {
  type DetectedBox,
  formatBoxes,
  parseBboxArg,
  parseBoxes,
  parseCount,
  parseLatex,
  pyFormat0f,
} from '../benchmarks/gta/tools/vision-parse.js';
// Sentence embeddings for GTA's simscore / ImgGen similarity (OpenAI-compatible /v1/embeddings)
export {
  createEmbeddingsClient,
  type EmbeddingsClient,
  type EmbeddingsClientOptions,
  type EmbeddingsStats,
  embeddingsClientFromEnv,
} from './embeddings.js';
// Which files a tool's file arguments may name (granted folders and files, symlinks resolved)
export { grantedPath, type ReadablePaths, readablePaths } from './file-access.js';
// Endpoints the model-backed tools call (vision chat, images, embeddings): flags and variables
export {
  endpointHint,
  type ModelEndpoint,
  type ModelEndpointFlags,
  type ModelEndpointKind,
  modelEndpointFromEnv,
} from './model-endpoint.js';
// Record and replay of tool calls (a folder with index.jsonl and checksummed files)
export {
  type CallKey,
  callKey,
  formatRecordingStats,
  RECORD_MODES,
  RECORDING_INDEX,
  type RecordedFile,
  type RecordedHandlerOptions,
  type RecordedToolCall,
  type RecordingStats,
  type RecordMode,
  recordedHandler,
  ToolRecording,
} from './record/index.js';
export {
  SANDBOX_DEBIAN_PACKAGES,
  SANDBOX_ISOLATION_ENV,
  type SandboxIsolation,
  type SandboxLimits,
  SandboxLimitsSchema,
  type SandboxOptions,
  SandboxOptionsSchema,
} from './sandbox/config.js';
export { describeRunFailure } from './sandbox/describe.js';
export {
  type PythonRunRequest,
  type PythonRunResult,
  PythonSandbox,
  type SandboxBounds,
  type SandboxDeps,
} from './sandbox/sandbox.js';
export {
  type OfflineSearchOptions,
  offlineSearchProvider,
} from './search/offline.js';
export {
  type FormatSearchOptions,
  formatSearchResults,
  type SearchProvider,
  type SearchResults,
  SearchResultsSchema,
} from './search/results.js';
export { SERPER_BASE_URL, type SerperOptions, serperSearchProvider } from './search/serper.js';
export {
  type ExecutableTool,
  type ToolHandlerOptions,
  type ToolRunContext,
  ToolUnavailableError,
  toolHandler,
} from './tool.js';
