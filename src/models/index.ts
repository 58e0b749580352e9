/**
 * Model access through the Vercel AI SDK: setup from flags/env/config, calls with retries
 * and fault classes, a response cache and sampling settings. Subpath `apiary/models`.
 * @module
 */

// One cheap request before a run: is the endpoint alive?
export { type CheckEndpointDeps, checkModelEndpoint, type EndpointToCheck } from './check-endpoint.js';
// The one model call of the agent runtime: messages, tools, tool choice, retries, usage, cache hits
export {
  type GenerateDeps,
  type GenerateRequest,
  type GenerateResponse,
  generate,
  type ModelToolChoice,
  type ModelToolSpec,
  type ProposedToolCall,
  type RetryPolicy,
} from './generate.js';
// Grammar-constrained decoding: JSON Schema → GBNF, one-tool-call grammars, the constraint a call carries
export {
  CONSTRAINT_PROVIDER_KEY,
  type ConstraintProviderOptions,
  constraintProviderOptions,
  type OutputConstraint,
  readConstraint,
} from './grammar/constraint.js';
export { type GrammarLimits, gbnfLiteral } from './grammar/gbnf.js';
export {
  JsonGrammarBuilder,
  type JsonSchemaGrammarOptions,
  jsonSchemaGrammar,
} from './grammar/json-schema.js';
export {
  parseToolCallOutput,
  type ToolCallGrammarOptions,
  type ToolCallOutput,
  toolCallGrammar,
} from './grammar/tool-call.js';
// A GGUF file run in process on node-llama-cpp (`--model gguf:PATH`), as an AI SDK model
export {
  createLocalModel,
  LocalLanguageModel,
  type LocalModelOptions,
} from './local/local-model.js';
// A local model served as an OpenAI-compatible endpoint (`apiary model serve`)
export { type ModelServer, QUEUE_DEPTH_HEADER, startModelServer } from './local/serve.js';
// apiary.config.json
export { type ModelConfigFile, readModelConfigFile } from './model-config.js';
// Why an attempt failed, and how long a server asked us to wait
export {
  classifyModelError,
  isConnectionFailure,
  isInfrastructureFailure,
  type ModelFaultClass,
  retryAfterMs,
} from './model-faults.js';
// Messages checked and converted once, for callers that re-send a growing conversation
export { createPromptCache, type PromptCache } from './provider-prompt.js';

// Model setup from flags, environment and apiary.config.json
export {
  layerSampling,
  type ResolvedModel,
  type ResolveModelDeps,
  type ResolveModelOptions,
  resolveModel,
  resolveModelSetup,
} from './resolve-model.js';
// A disk cache of model responses
export {
  createResponseCache,
  type ResponseCache,
  type ResponseCacheStats,
  wasCacheHit,
} from './response-cache.js';
// Sampling settings (no defaults here: each task brings its own) and the AI SDK model type
export {
  type FilledSamplingSettings,
  type LanguageModelV3,
  type SamplingSettings,
  withSamplingDefaults,
} from './sampling.js';

// Token accounting and cost
export {
  addUsage,
  costOf,
  type ModelPrice,
  type TokenUsage,
  TokenUsageSchema,
  ZERO_USAGE,
} from './token-usage.js';
