import type { LanguageModel } from 'ai';
import {
  type ChatTurn,
  type GenerateResult,
  type GenerateWithRetryDeps,
  type GenerateWithRetryOptions,
  generateWithRetry,
  type SamplingSettings,
} from '../models/index.js';
import type { AgentDemo } from '../retrieval/index.js';
import { ApiaryError } from '../shared/index.js';
import type { PlanContext } from './types.js';

/** A demonstration inserted as a user/assistant pair before the instruction (the demo selector's shape). */
export type { AgentDemo };

/** Options shared by the flat and hierarchical agents. */
export interface LlmAgentOptions {
  /** Overrides `ctx.model`. */
  model?: LanguageModel;
  /** Default: the AppBench settings (temperature 0, top_p 0, 1024 tokens). */
  settings?: SamplingSettings;
  timeoutMs?: number;
  maxRetries?: number;
  baseDelayMs?: number;
  /** k-shot demonstrations for an instruction (never the instruction itself). */
  demos?: (instruction: string) => Promise<AgentDemo[]>;
  /** Injected sleep etc. for the retry loop (tests). */
  deps?: GenerateWithRetryDeps;
}

export function demoTurns(demos: readonly AgentDemo[]): ChatTurn[] {
  return demos.flatMap((d) => [
    { role: 'user' as const, content: d.instruction },
    { role: 'assistant' as const, content: d.reply },
  ]);
}

/** Runs one chat call with the agent's retry/timeout settings. */
export function callModel(
  opts: LlmAgentOptions,
  ctx: PlanContext,
  call: Pick<GenerateWithRetryOptions, 'system' | 'user' | 'history'>,
): Promise<GenerateResult> {
  const model = opts.model ?? ctx.model;
  if (!model)
    throw new ApiaryError(
      'USAGE',
      'this agent needs a model: pass --base-url/--model, set APIARY_BASE_URL/APIARY_MODEL, or use the baseline agent',
    );
  return generateWithRetry(
    {
      model,
      ...call,
      settings: opts.settings,
      timeoutMs: opts.timeoutMs,
      maxRetries: opts.maxRetries,
      baseDelayMs: opts.baseDelayMs,
      signal: ctx.signal,
    },
    opts.deps,
  );
}
