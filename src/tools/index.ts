/**
 * Executable tools: GTA's 14 tools (OCR, Calculator, sandboxed Python Solver/Plot, image drawing,
 * search, vision and image-generation endpoints), each runnable through `dispatchCall` as an app.
 * @module
 */

// Sentence embeddings for GTA's simscore / ImgGen similarity (OpenAI-compatible /v1/embeddings)
export {
  createEmbeddingsClient,
  type EmbeddingsClient,
  type EmbeddingsClientOptions,
  type EmbeddingsStats,
  embeddingsClientFromEnv,
} from './embeddings.js';
// GTA's image-generation tools on an OpenAI-compatible images endpoint
export {
  type ImageGenToolOptions,
  imageGenTools,
  imageGenToolsFromEnv,
  imageStylizationTool,
  TEXT_TO_IMAGE_SUFFIX,
  textToImageTool,
} from './gta/image-gen.js';
// GTA's GoogleSearch: pluggable providers (Serper.dev web search, an offline BM25 corpus)
export {
  type GoogleSearchToolOptions,
  googleSearchTool,
  type SearchProviderFlags,
  searchProviderFromEnv,
} from './gta/search.js';
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
} from './gta/vision.js';
export {
  createVisionClient,
  type ImageBytes,
  readImageArg,
  sniffImageType,
  type VisionClient,
  type VisionClientOptions,
} from './gta/vision-client.js';
export {
  type DetectedBox,
  formatBoxes,
  parseBboxArg,
  parseBoxes,
  parseCount,
  parseLatex,
  pyFormat0f,
} from './gta/vision-parse.js';
// Endpoints the model-backed tools call (vision chat, images, embeddings): flags and variables
export {
  endpointHint,
  type ModelEndpoint,
  type ModelEndpointFlags,
  type ModelEndpointKind,
  modelEndpointFromEnv,
} from './model-endpoint.js';
export {
  type CorpusDoc,
  CorpusDocSchema,
  loadSearchCorpus,
  type OfflineSearchOptions,
  offlineSearchProvider,
} from './search/offline.js';
export {
  type FormatSearchOptions,
  formatSearchResults,
  NO_SEARCH_RESULT,
  type SearchHit,
  type SearchProvider,
  type SearchResults,
  SearchResultsSchema,
} from './search/results.js';
export { SERPER_BASE_URL, type SerperOptions, serperSearchProvider } from './search/serper.js';
export {
  type ExecutableTool,
  type ToolHandlerOptions,
  type ToolRunContext,
  toolHandler,
} from './tool.js';
