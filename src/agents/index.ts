/**
 * Planning agents: the agent contract, the LLM agents (flat and hierarchical prompting) and
 * the no-LLM baseline. Subpath `apiary/agents`.
 * @module
 */

// The no-LLM baseline agent
export { type BaselineAgentOptions, baselineAgent, type SelectApisOptions } from './baseline/index.js';

// LLM agents: flat prompting (all apps and APIs at once)
export { flatAgent } from './flat-agent.js';

// LLM agents: hierarchical prompting (apps first, then their APIs)
export { type HierarchicalAgentOptions, hierarchicalAgent } from './hierarchical-agent.js';

// Options shared by the LLM agents
export type { LlmAgentOptions } from './llm-agent-options.js';

// The AppBench planning prompt
export { planPrompt } from './prompts.js';

// The AppBench rendering of apps and APIs in prompts
export { renderAppApiList } from './render-catalog.js';

// k-shot demonstrations that share a likely app
export { type DemoPoolItem, type SameAppDemosOptions, sameAppDemos } from './same-app-demos.js';

// The planning agent contract
export type { PlanContext, PlanningAgent, PlanRequest, PlanResult, Usage } from './types.js';
