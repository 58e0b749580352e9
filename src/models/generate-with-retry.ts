import {
  APICallError,
  generateText,
  InvalidResponseDataError,
  JSONParseError,
  type LanguageModel,
  NoContentGeneratedError,
  TypeValidationError,
} from 'ai';
import { ApiaryError } from '../shared/index.js';
import { type SamplingSettings, withSamplingDefaults } from './sampling.js';

/** Why one attempt failed. Every class except `fatal` is retried. */
export type ModelFaultClass =
  | 'timeout'
  | 'http429'
  | 'http5xx'
  | 'invalid-json'
  | 'empty-choices'
  | 'network'
  | 'fatal';

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

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function hasCause(err: unknown, pred: (e: unknown) => boolean, depth = 0): boolean {
  if (!err || depth > 5) return false;
  if (pred(err)) return true;
  return hasCause((err as { cause?: unknown }).cause, pred, depth + 1);
}

/** Classifies an error thrown by `generateText` (provider: @ai-sdk/openai-compatible). */
export function classifyModelError(err: unknown, timedOut: boolean): ModelFaultClass {
  if (timedOut) return 'timeout';
  if (APICallError.isInstance(err)) {
    if (err.statusCode === 429) return 'http429';
    if (err.statusCode !== undefined && err.statusCode >= 500) return 'http5xx';
    if (hasCause(err, (e) => JSONParseError.isInstance(e) || e instanceof SyntaxError)) return 'invalid-json';
    if (/invalid json/i.test(err.message)) return 'invalid-json';
    if (/empty choices|no choices|did not contain any choices/i.test(err.message)) return 'empty-choices';
    if (err.statusCode === undefined) return 'network';
    if (err.statusCode === 408) return 'timeout';
    return 'fatal';
  }
  if (JSONParseError.isInstance(err) || TypeValidationError.isInstance(err)) return 'invalid-json';
  if (InvalidResponseDataError.isInstance(err) || NoContentGeneratedError.isInstance(err))
    return 'empty-choices';
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timeout';
  if (
    hasCause(
      err,
      (e) =>
        typeof (e as { code?: unknown })?.code === 'string' &&
        /^E(CONN|AI_|PIPE|HOSTUNREACH|NETUNREACH)/.test((e as { code: string }).code),
    )
  )
    return 'network';
  return 'fatal';
}

function retryAfterMs(err: unknown): number | undefined {
  if (!APICallError.isInstance(err)) return undefined;
  const header = err.responseHeaders?.['retry-after'];
  if (!header) return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/**
 * One chat completion through the AI SDK (`generateText` with its own retries off) with our own
 * retry loop: timeouts, 429, 5xx, invalid JSON, empty choices and network errors are retried with
 * exponential backoff (honouring `Retry-After` up to `maxDelayMs`); other errors fail at once.
 * After the last attempt throws `ApiaryError('MODEL_CALL_FAILED')` with the last error as cause.
 * An abort of the caller's `signal` is rethrown as is (never retried).
 */
export async function generateWithRetry(
  opts: GenerateWithRetryOptions,
  deps: GenerateWithRetryDeps = { sleep: defaultSleep },
): Promise<GenerateResult> {
  const settings = withSamplingDefaults(opts.settings);
  const maxRetries = opts.maxRetries ?? 4;
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const baseDelay = opts.baseDelayMs ?? 1000;
  const maxDelay = opts.maxDelayMs ?? 30_000;
  const faults: ModelFaultClass[] = [];
  let lastError: unknown;

  for (let attempt = 1; attempt <= maxRetries + 1; attempt++) {
    opts.signal?.throwIfAborted();
    const timeout = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      timeout.abort(new DOMException(`model call timed out after ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
    try {
      const result = await generateText({
        model: opts.model,
        system: opts.system,
        messages: [...(opts.history ?? []), { role: 'user', content: opts.user }],
        temperature: settings.temperature,
        ...(settings.topP === null ? {} : { topP: settings.topP }),
        maxOutputTokens: settings.maxOutputTokens,
        maxRetries: 0,
        abortSignal: signal,
      });
      return {
        text: result.text,
        usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
        attempts: attempt,
        faults,
      };
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      const fault = classifyModelError(err, timedOut);
      faults.push(fault);
      lastError = err;
      if (fault === 'fatal') break;
      if (attempt <= maxRetries) {
        const backoff = Math.min(maxDelay, baseDelay * 2 ** (attempt - 1));
        const wait = Math.min(maxDelay, Math.max(backoff, retryAfterMs(err) ?? 0));
        await deps.sleep(wait, opts.signal);
      }
    } finally {
      clearTimeout(timer);
    }
  }
  const detail = lastError instanceof Error ? lastError.message : String(lastError);
  throw Object.assign(
    new ApiaryError(
      'MODEL_CALL_FAILED',
      `model call failed after ${faults.length} attempt(s) [${faults.join(', ')}]: ${detail}`,
      { cause: lastError },
    ),
    { faults },
  );
}
