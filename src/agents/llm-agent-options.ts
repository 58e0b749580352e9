import type { LanguageModel, ModelMessage } from 'ai';
import type { Catalog } from '../catalog/index.js';
import type { OutputConstraint, SamplingSettings } from '../models/index.js';
import type { AgentDemo } from '../retrieval/index.js';
import { ApiaryError } from '../shared/index.js';
import type { AgentTraceSink } from './runtime/agent-trace.js';
import { modelTurns } from './runtime/model-turns.js';
import { runAgent } from './runtime/run-agent.js';
import type { AgentProtocol, AgentResult, TurnTaker } from './runtime/types.js';
import type { PlanContext } from './types.js';

/** A demonstration inserted as a user/assistant pair before the instruction (the demo selector's shape). */
export type { AgentDemo };

/** Options shared by the flat and hierarchical agents. */
export interface LlmAgentOptions {
  /** Overrides `ctx.model`. */
  model?: LanguageModel;
  /** Takes the turns instead of a model (a scripted or rule-based policy); overrides `model`. */
  turn?: TurnTaker;
  /** Sampling settings sent with every call; none by default (each task passes its own, e.g. AppBench's). */
  settings?: SamplingSettings;
  timeoutMs?: number;
  maxRetries?: number;
  baseDelayMs?: number;
  /** k-shot demonstrations for an instruction (never the instruction itself). */
  demos?: (instruction: string) => Promise<AgentDemo[]>;
  /**
   * The grammar a plan reply is generated under, given the catalog and the Apps offered (all when
   * undefined): the benchmark's plan-line grammar (AppBench: `planLineConstraint`). None by default.
   */
  planConstraint?: (catalog: Catalog, apps?: readonly string[]) => OutputConstraint | undefined;
  /** The grammar hierarchical prompting's App selection is generated under (AppBench: a list of App names). */
  appSelectionConstraint?: (catalog: Catalog) => OutputConstraint | undefined;
  /** Injected sleep for the retry loop (tests). */
  deps?: { sleep?: (ms: number, signal?: AbortSignal) => Promise<void> };
}

export function demoTurns(demos: readonly AgentDemo[]): ModelMessage[] {
  return demos.flatMap((d) => [
    { role: 'user' as const, content: d.instruction },
    { role: 'assistant' as const, content: d.reply },
  ]);
}

/** The turn taker of an LLM agent: `opts.turn`, else the model with the agent's retry settings. */
export function agentTurns(opts: LlmAgentOptions, ctx: PlanContext): TurnTaker {
  if (opts.turn) return opts.turn;
  const model = opts.model ?? ctx.model;
  if (!model)
    throw new ApiaryError(
      'USAGE',
      'this agent needs a model: pass --base-url/--model, set APIARY_BASE_URL/APIARY_MODEL, or use the baseline agent',
    );
  return modelTurns(model, {
    ...(opts.settings ? { settings: opts.settings } : {}),
    retry: {
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
      ...(opts.maxRetries !== undefined ? { maxRetries: opts.maxRetries } : {}),
      ...(opts.baseDelayMs !== undefined ? { baseDelayMs: opts.baseDelayMs } : {}),
    },
    ...(opts.deps ? { deps: opts.deps } : {}),
  });
}

/**
 * One model turn on the agent runtime, for protocols whose first reply is the answer (plan lines,
 * app selection): no tools, no repair turn. A model failure is rethrown as the model layer threw it,
 * so the harness records the same error as before.
 */
export async function runSingleTurn(
  turn: TurnTaker,
  protocol: AgentProtocol,
  call: {
    instruction: string;
    history?: readonly ModelMessage[];
    signal?: AbortSignal;
    trace?: AgentTraceSink;
  },
): Promise<AgentResult> {
  const r = await runAgent({
    turn,
    protocol,
    instruction: call.instruction,
    ...(call.history ? { history: call.history } : {}),
    budget: { maxSteps: 1, maxDecodeFailures: 0 },
    ...(call.signal ? { signal: call.signal } : {}),
    ...(call.trace ? { trace: call.trace } : {}),
  });
  if (r.stopReason === 'model-error') throw r.error;
  if (r.stopReason === 'cancelled') throw call.signal?.reason ?? new Error('cancelled');
  return r;
}
