import type { ModelMessage } from 'ai';
import type { CallOutcome } from '../../exec/index.js';
import type { ModelToolSpec, OutputConstraint, ProposedToolCall, TokenUsage } from '../../models/index.js';

/**
 * The agent runtime's vocabulary. A model (or a no-model policy) takes turns; a protocol turns
 * each reply into a decision; proposed calls run through `dispatchCall`; observations go back.
 */

/** What one turn sends: the protocol's system text, the conversation and (native protocol) tools. */
export interface TurnRequest {
  system?: string;
  messages: ModelMessage[];
  tools?: Record<string, ModelToolSpec>;
  toolChoice?: 'auto' | 'none' | 'required';
  /** The grammar the reply must follow (a provider that can constrain decoding applies it). */
  constraint?: OutputConstraint;
}

/** What one turn returned. */
export interface TurnReply {
  text: string;
  /** Calls the model proposed natively (tool calling); `invalid` when their arguments did not parse. */
  toolCalls: ProposedToolCall[];
  usage: TokenUsage;
  /** Wall time of the model call (retries included). */
  latencyMs: number;
  attempts?: number;
  faults?: string[];
  cacheHit?: boolean;
}

/**
 * Whoever takes the agent's turns: an LLM behind `modelTurns(model)`, or a scripted / rule-based
 * policy (the no-model baseline) with the same shape, so every solver runs through one loop.
 */
export type TurnTaker = (request: TurnRequest, signal?: AbortSignal) => Promise<TurnReply>;

/** A tool the agent may call: one catalog API, addressed by a model-safe name. */
export interface AgentTool {
  /** The name the model writes (for catalog APIs: `assignToolNames`, unique and reversible). */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  app: string;
  api: string;
  parameters: ReadonlyArray<{ name: string; required: boolean; type?: string; description?: string }>;
}

/** Tools plus the one way to run them (normally `dispatchCall` under a permission scope). */
export interface Toolset {
  readonly tools: readonly AgentTool[];
  run(
    call: { id: string; tool: AgentTool; args: Record<string, unknown> },
    signal?: AbortSignal,
  ): Promise<CallOutcome>;
}

/** A call as a protocol decoded it from the reply. */
export interface ProposedCall {
  id: string;
  /** Tool name as written by the model. */
  tool: string;
  /** Parsed arguments (absent when they could not be decoded). */
  args?: Record<string, unknown>;
  /** Why the arguments could not be used (the protocol's own words, fed back to the model). */
  invalid?: string;
  /** The argument text as written (text protocols, invalid native calls). */
  rawInput?: string;
}

export type Decision =
  | { kind: 'final'; answer: string; thought?: string }
  | { kind: 'ask-user'; question: string; callId?: string }
  | { kind: 'calls'; calls: ProposedCall[]; thought?: string }
  /** The reply could not be parsed at all: counted apart from wrong answers. */
  | { kind: 'decode-failure'; message: string };

/** A call's result as the protocol feeds it back. */
export interface Observation {
  call: ProposedCall;
  /** Outcome of the dispatch, or of the runtime's own refusal (unknown tool, bad arguments). */
  outcome: CallOutcome;
  /** A compact text rendering (what text protocols show the model). */
  text: string;
}

/** How a model is talked to: what it is sent and how its replies are read. */
export interface AgentProtocol {
  readonly name: string;
  /** The conversation's opening: system text and the first messages (demos first, then the request). */
  start(input: { instruction: string; tools: readonly AgentTool[]; history: readonly ModelMessage[] }): {
    system?: string;
    messages: ModelMessage[];
  };
  /** Tools offered through the provider's tool calling (native protocol only). */
  nativeTools?(tools: readonly AgentTool[]): Record<string, ModelToolSpec>;
  /** The grammar every reply of the run is generated under (text protocols; none by default). */
  constraint?(tools: readonly AgentTool[]): OutputConstraint | undefined;
  /** Reads one reply. Must never throw: untrusted text becomes a decode failure. */
  parse(reply: TurnReply, tools: readonly AgentTool[]): Decision;
  /** Messages appended after a turn that did not end the run: the model's turn and the observations. */
  continueWith(reply: TurnReply, decision: Decision, observations: readonly Observation[]): ModelMessage[];
}

export type StopReason =
  | 'final'
  | 'ask-user'
  | 'step-budget'
  | 'token-budget'
  | 'cancelled'
  | 'repeated-call'
  | 'repair-limit'
  | 'decode-limit'
  | 'model-error';

/** One dispatched (or refused) call of a run, in the order calls were proposed. */
export interface CallRecord {
  step: number;
  id: string;
  tool: string;
  app: string | null;
  api: string | null;
  args: Record<string, unknown> | string | null;
  outcome: CallOutcome;
}

export interface AgentResult {
  stopReason: StopReason;
  /** The final answer (`final`), else null. */
  answer: string | null;
  /** The question for the user (`ask-user`). */
  question?: string;
  /** What went wrong (`model-error`, `repeated-call`, limits). */
  detail?: string;
  /** Model turns taken. */
  steps: number;
  usage: TokenUsage;
  calls: CallRecord[];
  /** Replies that could not be parsed at all. */
  decodeFailures: number;
  /** Calls that ended in an error (refused, invalid, failed). */
  callErrors: number;
  /** Errors the model recovered from: an invalid call or reply followed by a successful one. */
  repairs: number;
  /** Whole conversation (system excluded). */
  messages: ModelMessage[];
  /** The text of the last reply (what a one-turn solver records as its raw reply). */
  lastText: string;
  /** HTTP attempts over all turns (retries included) and the fault class of each failed one. */
  attempts: number;
  faults: string[];
  /** The error that ended a `model-error` run, as thrown (solvers may rethrow it). */
  error?: unknown;
  timings: { totalMs: number; modelMs: number; toolMs: number; overheadMs: number };
}
