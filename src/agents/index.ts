/**
 * Agents: the tool-using loop (`runAgent`) with its protocols and toolsets, and the solvers built on
 * it (flat and hierarchical prompting, the no-LLM baseline, the tool loop, `askAgent`). Subpath
 * `apiary/agents`.
 * @module
 */

// TPTU-v2 end to end: retrieve APIs, select demos, run the loop
// The catalog's APIs as AI SDK tools (no `execute`: calls go through dispatchCall)
export { toAiSdkTools } from './ai-sdk-tools.js';
export { type AskOptions, type AskResult, askAgent } from './ask.js';
export * from './baseline/index.js';
// LLM agents: flat prompting (all apps and APIs at once)
export { flatAgent } from './flat-agent.js';
// LLM agents: hierarchical prompting (apps first, then their APIs)
export { type HierarchicalAgentOptions, hierarchicalAgent } from './hierarchical-agent.js';
// Options shared by the LLM agents
export { agentTurns, demoTurns, type LlmAgentOptions, runSingleTurn } from './llm-agent-options.js';
// The AppBench planning prompt
export { planPrompt } from './prompts.js';
export { freeTextProtocol } from './protocols/free-text.js';
export {
  type JsonActionParse,
  jsonActionFields,
  jsonActionProtocol,
  parseJsonActionReply,
} from './protocols/json-action.js';
// Protocols: how a model is talked to and how its replies are read
export { type NativeToolsOptions, nativeToolsProtocol } from './protocols/native-tools.js';
export { planLinesProtocol } from './protocols/plan-lines.js';
export {
  parseReactArguments,
  parseReactReply,
  REACT_FORCE_STOP,
  REACT_INVALID_ACTION_ERROR,
  REACT_NO_ACTION_ERROR,
  type ReactParse,
  reactProtocol,
  reactSystemPrompt,
} from './protocols/react.js';
// The AppBench rendering of apps and APIs in prompts
export { renderAppApiList } from './render-catalog.js';
// The trace: the sample events (turn, call, proposal, observation, repair, ask-user, stop)
export {
  type AgentTraceEvent,
  AgentTraceEventSchema,
  type AgentTraceSink,
  jsonlAgentTrace,
  memoryAgentTrace,
  outputAgentTrace,
  withoutStops,
} from './runtime/agent-trace.js';
// Catalog APIs as tools, every call through dispatchCall
export { apiAsTool, catalogToolset } from './runtime/catalog-toolset.js';
// Who takes the turns: an LLM through `generate`
export { modelTurns } from './runtime/model-turns.js';
// The agent loop: model ↔ tools until a final answer, a question, a budget or cancellation
export { type AgentBudget, type RunAgentOptions, runAgent } from './runtime/run-agent.js';
export type {
  AgentProtocol,
  AgentResult,
  AgentTool,
  CallRecord,
  Decision,
  Observation,
  ProposedCall,
  StopReason,
  Toolset,
  TurnReply,
  TurnRequest,
  TurnTaker,
} from './runtime/types.js';
// k-shot demonstrations that share a likely app
export { type DemoPoolItem, type SameAppDemosOptions, sameAppDemos } from './same-app-demos.js';
// The tool-loop solver: plans and executes against executable apps
export {
  type AgentRunSummary,
  type ExecutedCall,
  type ToolLoopAgentOptions,
  toolLoopAgent,
} from './tool-loop-agent.js';

// The planning agent contract
export type { PlanContext, PlanningAgent, PlanRequest, PlanResult } from './types.js';
