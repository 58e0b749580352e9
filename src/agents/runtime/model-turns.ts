import type { LanguageModel } from 'ai';
import { createPromptCache, generate, type RetryPolicy, type SamplingSettings } from '../../models/index.js';
import type { TurnTaker } from './types.js';

/**
 * An LLM as the agent's turn taker: one `generate` call (with retries) per turn. Each turn re-sends
 * the conversation; its messages are checked and converted once (the runtime never changes a
 * message it sent), so a turn costs the same at step 100 as at step 1.
 */
export function modelTurns(
  model: LanguageModel,
  opts: { settings?: SamplingSettings; retry?: RetryPolicy; deps?: Parameters<typeof generate>[1] } = {},
): TurnTaker {
  const deps = { promptCache: createPromptCache(), ...opts.deps };
  return async (request, signal) => {
    const r = await generate(
      {
        model,
        ...(request.system !== undefined ? { system: request.system } : {}),
        messages: request.messages,
        ...(request.tools ? { tools: request.tools } : {}),
        ...(request.toolChoice ? { toolChoice: request.toolChoice } : {}),
        ...(request.constraint ? { constraint: request.constraint } : {}),
        ...(opts.settings ? { settings: opts.settings } : {}),
        ...(opts.retry ? { retry: opts.retry } : {}),
        ...(signal ? { signal } : {}),
      },
      deps,
    );
    return {
      text: r.text,
      toolCalls: r.toolCalls.map((c) => ({
        id: c.id,
        name: c.name,
        input: c.input,
        inputText: c.inputText,
        ...(c.invalid ? { invalid: c.invalid } : {}),
      })),
      usage: r.usage,
      latencyMs: r.latencyMs,
      attempts: r.attempts,
      faults: r.faults,
      cacheHit: r.cacheHit,
    };
  };
}
