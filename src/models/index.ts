/**
 * Model access through the Vercel AI SDK: setup from flags/env/config, calls with retries
 * and fault classes, a response cache and sampling settings. Subpath `apiary/models`.
 * @module
 */

// One model call with timeouts, retries and fault classes
export {
  type ChatTurn,
  type GenerateResult,
  type GenerateWithRetryDeps,
  type GenerateWithRetryOptions,
  generateWithRetry,
  type ModelFaultClass,
} from './generate-with-retry.js';

// Model setup from flags, environment and apiary.config.json
export {
  type ResolvedModel,
  type ResolveModelDeps,
  type ResolveModelOptions,
  resolveModel,
  resolveModelSetup,
} from './resolve-model.js';

// A disk cache of model responses
export { createResponseCache, type ResponseCache, type ResponseCacheStats } from './response-cache.js';

// Sampling settings (AppBench defaults) and the AI SDK model type
export { APPBENCH_SAMPLING, type LanguageModelV3, type SamplingSettings } from './sampling.js';
