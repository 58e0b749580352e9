import {
  type GenerateTextResult,
  generateText,
  jsonSchema,
  type LanguageModel,
  type LanguageModelMiddleware,
  type ModelMessage,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from 'ai';
import { ApiaryError, parseJsonWithinDepth, redactSecrets } from '../shared/index.js';
import { constraintProviderOptions, type OutputConstraint } from './grammar/constraint.js';
import { classifyModelError, type ModelFaultClass, retryAfterMs } from './model-faults.js';
import type { PromptCache } from './provider-prompt.js';
import { directAnswer, directCallOptions, isDirectTurn, replayModel } from './provider-turn.js';
import { wasCacheHit } from './response-cache.js';
import type { LanguageModelV3, SamplingSettings } from './sampling.js';
import type { TokenUsage } from './token-usage.js';

/** A tool offered to the model: description and JSON Schema of its input. Never executed by the SDK. */
export interface ModelToolSpec {
  description?: string;
  inputSchema: Record<string, unknown>;
}

export type ModelToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; toolName: string };

/** Retry loop settings; each attempt has its own timeout. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 4, i.e. up to 5 attempts). */
  maxRetries?: number;
  /** First backoff delay (default 1000 ms), doubled per retry, capped by `maxDelayMs` (default 30 s). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Per-attempt timeout (default 120 s). */
  timeoutMs?: number;
}

const DEFAULT_RETRY_POLICY: Readonly<Required<RetryPolicy>> = Object.freeze({
  maxRetries: 4,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  timeoutMs: 120_000,
});

export interface GenerateRequest {
  model: LanguageModel;
  system?: string;
  /** The conversation: user, assistant (text and tool calls) and tool (results) turns. */
  messages: ModelMessage[];
  /** Offered without `execute`: the caller runs the calls it gets back. */
  tools?: Record<string, ModelToolSpec>;
  toolChoice?: ModelToolChoice;
  /** No defaults here: an undefined field is left out of the request. */
  settings?: SamplingSettings;
  retry?: RetryPolicy;
  signal?: AbortSignal;
  /**
   * A grammar the output must follow, sent as `providerOptions.apiaryGrammar` (`{ grammar, constraintName }`):
   * a provider that can constrain decoding (the local GGUF one) applies it; any other ignores it.
   */
  constraint?: OutputConstraint;
}

/** A tool call the model proposed. `invalid` calls are meant to go back to the model as a tool error. */
export interface ProposedToolCall {
  id: string;
  name: string;
  /** The parsed JSON arguments; undefined when they are not JSON. */
  input: unknown;
  /** The argument text as the model wrote it. */
  inputText: string;
  /** Why the call cannot be run (unparsable arguments, unknown tool); absent for a valid call. */
  invalid?: string;
}

export interface GenerateResponse {
  text: string;
  toolCalls: ProposedToolCall[];
  /** The AI SDK's finish reason: `stop`, `tool-calls`, `length`, `content-filter`, `other`… */
  finishReason: string;
  usage: TokenUsage;
  /** Attempts made (1 = first try succeeded). */
  attempts: number;
  /** Fault class of each failed attempt, in order. */
  faults: ModelFaultClass[];
  /** The assistant turn to append to the conversation (tool results are the caller's to add). */
  responseMessages: ModelMessage[];
  /** The answer came from the response cache (no request was made). */
  cacheHit: boolean;
  /** Wall time of the whole call, retries and backoff waits included (ms). */
  latencyMs: number;
}

export interface GenerateDeps {
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Epoch milliseconds (latency and `Retry-After` dates). */
  now?: () => number;
  /**
   * Turns call the provider model directly (./provider-turn.ts, default true); false sends every
   * turn through `generateText` (tests compare the two).
   */
  directTurns?: boolean;
  /**
   * Messages already checked and converted, by identity (./provider-prompt.ts): a caller that
   * re-sends a growing conversation (the agent runtime) converts each message once.
   */
  promptCache?: PromptCache;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
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

function toSdkTools(specs: Record<string, ModelToolSpec>): ToolSet {
  return Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [
      name,
      tool({
        ...(spec.description === undefined ? {} : { description: spec.description }),
        inputSchema: jsonSchema(spec.inputSchema),
      }),
    ]),
  );
}

/** The request's sampling fields, leaving out what is undefined (and `topP: null`). */
function samplingParams(settings: SamplingSettings = {}) {
  return {
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(settings.topP === undefined || settings.topP === null ? {} : { topP: settings.topP }),
    ...(settings.maxOutputTokens === undefined ? {} : { maxOutputTokens: settings.maxOutputTokens }),
    ...(settings.stopSequences === undefined ? {} : { stopSequences: settings.stopSequences }),
    ...(settings.seed === undefined ? {} : { seed: settings.seed }),
  };
}

function toCallToolChoice(choice: ModelToolChoice) {
  return typeof choice === 'string' ? { type: choice } : choice;
}

/**
 * Wraps the model for one call: keeps the raw argument text of each tool call (before the SDK
 * parses it) by call id, and puts the tool choice into the provider call itself. Given to
 * `generateText`, a non-auto tool choice makes the SDK throw `ToolChoiceViolationError` when the
 * model ignores it; sent this way the server still gets it, and the answer comes back as it is for
 * the caller to judge. Models given as a string id (gateway) or a v2 model are used as they are
 * (raw text is then re-serialised, and the SDK enforces the tool choice).
 */
function wrapForCall(
  model: LanguageModelV3,
  raw: Map<string, string>,
  toolChoice: ModelToolChoice | undefined,
): LanguageModelV3 {
  const middleware: LanguageModelMiddleware = {
    specificationVersion: 'v3',
    transformParams: async ({ params }) =>
      toolChoice !== undefined && params.tools !== undefined
        ? { ...params, toolChoice: toCallToolChoice(toolChoice) }
        : params,
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate();
      for (const part of result.content) if (part.type === 'tool-call') raw.set(part.toolCallId, part.input);
      return result;
    },
  };
  return wrapLanguageModel({ model, middleware });
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    // tool-call arguments from the model: too deep is as unusable as malformed
    return { ok: true, value: parseJsonWithinDepth(text, { file: 'tool-call arguments' }) };
  } catch {
    return { ok: false };
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function proposedToolCalls(result: GenerateTextResult<ToolSet, never>, raw: Map<string, string>) {
  return result.toolCalls.map((call): ProposedToolCall => {
    const invalid = 'invalid' in call && call.invalid === true;
    const inputText =
      raw.get(call.toolCallId) ??
      (invalid && typeof call.input === 'string' ? call.input : JSON.stringify(call.input));
    const proposed: ProposedToolCall = {
      id: call.toolCallId,
      name: call.toolName,
      input: call.input,
      inputText,
    };
    if (invalid) {
      const parsed = parseJson(inputText);
      proposed.input = parsed.ok ? parsed.value : undefined;
      proposed.invalid = errorText('error' in call ? call.error : 'invalid tool call');
    }
    return proposed;
  });
}

/**
 * One model turn through the AI SDK (`generateText`, one step, SDK retries off) with our retry loop:
 * timeouts, 429, 5xx, invalid JSON, empty choices and network errors are retried with exponential
 * backoff (at least what `retry-after-ms` / `Retry-After` asks, capped by `maxDelayMs`); other
 * errors fail at once. Tools are offered without `execute`: tool calls come back as
 * {@link ProposedToolCall}s, unparsable ones marked `invalid` (never thrown). A caller abort is
 * rethrown as is. After the last attempt throws `ApiaryError('MODEL_CALL_FAILED')` with `faults`
 * and the last error as cause.
 */
export async function generate(req: GenerateRequest, deps: GenerateDeps = {}): Promise<GenerateResponse> {
  const sleep = deps.sleep ?? defaultSleep;
  const now = deps.now ?? Date.now;
  const policy = { ...DEFAULT_RETRY_POLICY };
  for (const [key, value] of Object.entries(req.retry ?? {}))
    if (value !== undefined) policy[key as keyof RetryPolicy] = value;
  const tools = req.tools ? toSdkTools(req.tools) : undefined;
  const direct = deps.directTurns !== false && isDirectTurn(req);
  const offered = new Set(Object.keys(req.tools ?? {}));
  const started = now();
  const faults: ModelFaultClass[] = [];
  let lastError: unknown;

  for (let attempt = 1; attempt <= policy.maxRetries + 1; attempt++) {
    req.signal?.throwIfAborted();
    const timeout = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      timeout.abort(new DOMException(`model call timed out after ${policy.timeoutMs} ms`, 'TimeoutError'));
    }, policy.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
    const raw = new Map<string, string>();
    // Without tools there are no raw arguments to keep nor a tool choice to pass: the model as it is.
    const wrappable =
      typeof req.model === 'object' &&
      req.model.specificationVersion === 'v3' &&
      (req.tools !== undefined || req.toolChoice !== undefined);
    try {
      let model = wrappable ? wrapForCall(req.model as LanguageModelV3, raw, req.toolChoice) : req.model;
      const options = direct ? directCallOptions(req, signal, deps.promptCache) : null;
      if (options) {
        const provider = req.model as LanguageModelV3;
        const answer = await provider.doGenerate(options);
        const read = directAnswer(answer, offered);
        if (read)
          return {
            text: read.text,
            toolCalls: read.toolCalls,
            finishReason: read.finishReason,
            usage: read.usage,
            attempts: attempt,
            faults,
            responseMessages: read.responseMessages,
            cacheHit: wasCacheHit(read.providerMetadata),
            latencyMs: now() - started,
          };
        // reasoning, files, warnings, invalid calls…: generateText reads this very answer (no second request)
        const replay = replayModel(provider, answer);
        model = wrappable ? wrapForCall(replay, raw, req.toolChoice) : replay;
      }
      const result = await generateText({
        model,
        ...(req.system === undefined ? {} : { system: req.system }),
        messages: req.messages,
        // Text protocols put system turns in the conversation on purpose (Lagent's ReAct feeds tool
        // results back as `system` messages): allowed, without the SDK's warning on every call.
        allowSystemInMessages: true,
        ...(tools ? { tools } : {}),
        ...(req.toolChoice === undefined || wrappable ? {} : { toolChoice: req.toolChoice }),
        ...samplingParams(req.settings),
        ...(req.constraint === undefined
          ? {}
          : { providerOptions: constraintProviderOptions(req.constraint) }),
        maxRetries: 0,
        abortSignal: signal,
      });
      return {
        text: result.text,
        toolCalls: proposedToolCalls(result, raw),
        finishReason: result.finishReason,
        usage: { inputTokens: result.usage.inputTokens ?? 0, outputTokens: result.usage.outputTokens ?? 0 },
        attempts: attempt,
        faults,
        // the SDK answers invalid calls with its own tool-error turn; the caller reports those itself
        responseMessages: result.response.messages.filter((m) => m.role === 'assistant'),
        cacheHit: wasCacheHit(result.providerMetadata),
        latencyMs: now() - started,
      };
    } catch (err) {
      if (req.signal?.aborted) throw err;
      const fault = classifyModelError(err, timedOut);
      faults.push(fault);
      lastError = err;
      if (fault === 'fatal') break;
      if (attempt <= policy.maxRetries) {
        const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
        const wait = Math.min(policy.maxDelayMs, Math.max(backoff, retryAfterMs(err, now()) ?? 0));
        await sleep(wait, req.signal);
      }
    } finally {
      clearTimeout(timer);
    }
  }
  // the endpoint's own words: an error body may quote the key it was sent
  const detail = redactSecrets(lastError instanceof Error ? lastError.message : String(lastError));
  throw Object.assign(
    new ApiaryError(
      'MODEL_CALL_FAILED',
      `model call failed after ${faults.length} attempt(s) [${faults.join(', ')}]: ${detail}`,
      { cause: lastError },
    ),
    { faults },
  );
}
