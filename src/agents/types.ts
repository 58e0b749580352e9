import type { LanguageModel } from 'ai';
import type { Catalog } from '../catalog/index.js';
import type { TokenUsage } from '../models/index.js';
import type { AgentTraceEvent, AgentTraceSink } from './runtime/agent-trace.js';
import type { AgentRunSummary } from './tool-loop-agent.js';

export interface PlanRequest {
  instruction: string;
  /** Current date given to the agent (AppBench: 2019-03-01). */
  currentDate: string;
}

export interface PlanResult {
  /** Reply in AppBench line format (`App: [out = api(#k='v')]`), what scorers read. */
  reply: string;
  usage: TokenUsage;
  /** Model calls made (0 for the baseline). */
  modelCalls: number;
  /** The prompts sent, for the run log. */
  prompts?: Array<{ system: string; user: string }>;
  /** The model's reply before cleaning (LLM agents). */
  rawReply?: string;
  /** HTTP attempts including retries (LLM agents). */
  attempts?: number;
  /** Fault class of each failed attempt (see models/generate-with-retry.ts). */
  faults?: string[];
  /** Apps chosen in step 1 (hierarchical agent); empty when no reply named an App (no plan was asked for). */
  selectedApps?: string[];
  /** What a tool-loop agent did: calls made, their outcomes, stop reason and trace. */
  agent?: AgentRunSummary;
  /** The runtime's trace of the run: every turn (messages sent, reply, tokens, timing), call and the stop. */
  trace?: AgentTraceEvent[];
}

export interface PlanContext {
  catalog: Catalog;
  model?: LanguageModel;
  signal?: AbortSignal;
  /** The sample's event sink (SolveContext.events): every event of the agent's runs goes there. */
  trace?: AgentTraceSink;
}

/** Turns one instruction into a plan reply. Flat, hierarchical and the no-LLM baseline implement it. */
export interface PlanningAgent {
  readonly name: string;
  plan(request: PlanRequest, ctx: PlanContext): Promise<PlanResult>;
}
