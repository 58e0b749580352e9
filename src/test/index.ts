export { type ScriptedModel, scriptedLanguageModel } from './scripted-model.js';
export {
  hashedBagOfWords,
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
