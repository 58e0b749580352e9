import type { LanguageModel } from 'ai';
import { defaultSleep, generate } from './generate.js';
import type { ModelFaultClass } from './model-faults.js';
import { type SamplingSettings, withSamplingDefaults } from './sampling.js';

export { defaultSleep } from './generate.js';
// Kept importable from here: AppBench agents and their tests predate `generate`.
export { classifyModelError, type ModelFaultClass } from './model-faults.js';

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface GenerateWithRetryOptions {
  model: LanguageModel;
  system: string;
  user: string;
  /** Turns inserted between the system text and the final user message (few-shot demos). */
  history?: ChatTurn[];
  /** Defaults: the AppBench settings (temperature 0, top_p 0, 1024 tokens). */
  settings?: SamplingSettings;
  /** Per-attempt timeout (default 120 s). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 4, i.e. up to 5 attempts). */
  maxRetries?: number;
  /** First backoff delay (default 1000 ms), doubled per retry, capped by `maxDelayMs` (default 30 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  signal?: AbortSignal;
}

export interface GenerateWithRetryDeps {
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface GenerateResult {
  text: string;
  usage: { inputTokens: number; outputTokens: number };
  /** Attempts made (1 = first try succeeded). */
  attempts: number;
  /** Fault class of each failed attempt, in order. */
  faults: ModelFaultClass[];
}

/**
 * A text-only turn (system + history + user) with the AppBench sampling defaults, over
 * {@link generate} (same retries, faults and `MODEL_CALL_FAILED` error).
 */
export async function generateWithRetry(
  opts: GenerateWithRetryOptions,
  deps: GenerateWithRetryDeps = { sleep: defaultSleep },
): Promise<GenerateResult> {
  const out = await generate(
    {
      model: opts.model,
      system: opts.system,
      messages: [...(opts.history ?? []), { role: 'user', content: opts.user }],
      settings: withSamplingDefaults(opts.settings),
      retry: {
        maxRetries: opts.maxRetries,
        timeoutMs: opts.timeoutMs,
        baseDelayMs: opts.baseDelayMs,
        maxDelayMs: opts.maxDelayMs,
      },
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
    { sleep: deps.sleep },
  );
  return { text: out.text, usage: out.usage, attempts: out.attempts, faults: out.faults };
}
