/**
 * Test helpers for code built on Apiary (and Apiary's own tests): a scripted
 * OpenAI-compatible HTTP server and a scripted AI SDK model. Subpath `apiary/test`.
 * @module
 */

// A scripted AI SDK model (no HTTP)
export { type ScriptedModel, scriptedLanguageModel } from './scripted-model.js';

// A scripted OpenAI-compatible HTTP server with fault injection
export {
  type RecordedRequest,
  type ScriptedChatMessage,
  type ScriptedChatRequest,
  type ScriptedFault,
  type ScriptedOpenAiServer,
  type ScriptedOpenAiServerOptions,
  type ScriptedReply,
  type ScriptedToolCall,
  type ScriptedUsage,
  type ScriptedWireToolCall,
  startScriptedOpenAiServer,
} from './scripted-openai-server.js';

// A deterministic tiny random-weight llama GGUF, for tests of the local-model path
export { type TinyGgufOptions, tinyGgufBytes, writeTinyGguf } from './tiny-gguf.js';
