/**
 * The chat model `resolveModelSetup` gives: @ai-sdk/openai-compatible's, with a lean path for the
 * common turn. Over HTTP at 64–256 turns in flight the provider's per-call work was most of a
 * sample's CPU: it serialises the request twice (once for its result, once to send; 0.1 ms each
 * for AppBench's 33 KB system prompt), builds headers, reads the answer through web streams and
 * checks it with zod (docs/harness.md, Throughput).
 *
 * The lean path takes a turn of plain text messages (system, user, assistant) without tools,
 * response format or provider options, writes the very bytes the provider would send (long
 * strings serialised once and kept), posts them over the shared keep-alive pool with the URL and
 * headers the provider itself sent on its first call, and reads an answer that is one plain text
 * choice into exactly what the provider returns for it. Anything else — any other turn, a status
 * other than 2xx, an answer with reasoning, tool calls, several choices or a field the provider's
 * schema would refuse, a connection error, an abort — goes to the provider: other turns as they
 * are, and an answer already received is given to it as its fetch's response (or error), so it
 * reads, classifies and reports it as it always did, without a second request.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  answerResponse,
  type BufferedAnswer,
  type EndpointPool,
  requestHeaders,
  responseHeaders,
} from './endpoint-fetch.js';
import { CONSTRAINT_PROVIDER_KEY } from './grammar/constraint.js';
import type { LanguageModelV3 } from './sampling.js';

type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type ProviderAnswer = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

export interface EndpointChatModelSettings {
  /** The provider's name (`apiary`): its metadata key and `provider` (`apiary.chat`). */
  name: string;
  baseURL: string;
  modelId: string;
  apiKey?: string;
  /** The shared keep-alive pool, and the fetch over it that the provider uses. */
  pool: EndpointPool;
  fetch: typeof fetch;
}

/**
 * A request body in pieces: small JSON text, and the JSON of long strings serialised once and
 * kept with its UTF-8 bytes (the catalog-long system prompt of every sample). Sent as they are,
 * the bytes are not copied into a new 33 KB string per request, which the young generation then
 * had to copy for as long as the request was in flight (most of the lean path's GC).
 */
type BodyPiece = string | KeptJson;
interface KeptJson {
  json: string;
  bytes: Buffer;
}

/** Strings this long are serialised once and kept. */
const KEEP_JSON_FROM = 1024;
const KEPT_JSON_MAX = 64;
const keptJson = new Map<string, KeptJson>();

function jsonPiece(s: string): BodyPiece {
  if (s.length < KEEP_JSON_FROM) return JSON.stringify(s);
  let kept = keptJson.get(s);
  if (kept === undefined) {
    if (keptJson.size >= KEPT_JSON_MAX) keptJson.clear();
    const json = JSON.stringify(s);
    kept = { json, bytes: Buffer.from(json) };
    keptJson.set(s, kept);
  }
  return kept;
}

/** The body as the provider's one string (its `request.body`). */
const bodyText = (pieces: readonly BodyPiece[]) =>
  pieces.map((p) => (typeof p === 'string' ? p : p.json)).join('');

/** The body as what goes on the wire: short text joined, kept bytes as they are. */
function bodyChunks(pieces: readonly BodyPiece[]): { chunks: Array<string | Buffer>; bytes: number } {
  const chunks: Array<string | Buffer> = [];
  let text = '';
  let bytes = 0;
  for (const p of pieces) {
    if (typeof p === 'string') text += p;
    else {
      if (text) chunks.push(text);
      bytes += Buffer.byteLength(text) + p.bytes.length;
      chunks.push(p.bytes);
      text = '';
    }
  }
  if (text) chunks.push(text);
  bytes += Buffer.byteLength(text);
  return { chunks, bytes };
}

/** What the provider spreads into a message or part from its `openaiCompatible` options. */
const hasCompatMetadata = (x: { providerOptions?: Record<string, unknown> }) =>
  x.providerOptions?.openaiCompatible !== undefined;

/** The `messages` JSON the provider writes for a prompt of plain text turns; false for any other prompt. */
function messagesJson(prompt: CallOptions['prompt'], out: BodyPiece[]): boolean {
  for (const [i, m] of prompt.entries()) {
    if (hasCompatMetadata(m)) return false;
    if (i > 0) out.push(',');
    if (m.role === 'system') {
      out.push('{"role":"system","content":', jsonPiece(m.content), '}');
    } else if (m.role === 'user') {
      for (const part of m.content) if (part.type !== 'text' || hasCompatMetadata(part)) return false;
      const parts = m.content as Array<{ text: string }>;
      if (parts.length === 1) out.push('{"role":"user","content":', jsonPiece(parts[0]!.text), '}');
      else {
        out.push('{"role":"user","content":[');
        for (const [k, p] of parts.entries())
          out.push(k > 0 ? ',' : '', '{"type":"text","text":', jsonPiece(p.text), '}');
        out.push(']}');
      }
    } else if (m.role === 'assistant') {
      let text = '';
      for (const part of m.content) {
        if (part.type !== 'text') return false;
        text += part.text;
      }
      out.push('{"role":"assistant","content":', jsonPiece(text), '}');
    } else return false;
  }
  return true;
}

/**
 * No provider options, or only a grammar constraint: that one is for local models, and the provider
 * sends nothing of it (it copies only `providerOptions.apiary` and `.openaiCompatible`), so the bytes
 * are the same. Every solver of a text protocol sends one by default.
 */
function onlyGrammarConstraint(options: CallOptions['providerOptions']): boolean {
  if (options === undefined) return true;
  return Object.keys(options).every((key) => key === CONSTRAINT_PROVIDER_KEY);
}

/** The request body the provider would send for this call, in pieces; null when the call is not a lean one. */
function leanRequestBody(modelId: string, o: CallOptions): BodyPiece[] | null {
  if (
    (o.tools !== undefined && o.tools.length > 0) ||
    o.toolChoice !== undefined ||
    o.responseFormat !== undefined ||
    !onlyGrammarConstraint(o.providerOptions) ||
    o.topK !== undefined ||
    o.frequencyPenalty !== undefined ||
    o.presencePenalty !== undefined
  )
    return null;
  // the provider's key order: model, max_tokens, temperature, top_p, stop, seed, messages
  const head = JSON.stringify({
    model: modelId,
    max_tokens: o.maxOutputTokens,
    temperature: o.temperature,
    top_p: o.topP,
    stop: o.stopSequences,
    seed: o.seed,
  });
  const pieces: BodyPiece[] = [`${head.slice(0, -1)},"messages":[`];
  if (!messagesJson(o.prompt, pieces)) return null;
  pieces.push(']}');
  return pieces;
}

// what the provider's JSON parser (secure-json-parse) treats specially: left to it
const SUSPECT_KEY =
  /"(?:_|\\u005[Ff]){2}(?:p|\\u0070)|"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)/;

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
const nullish = (x: unknown) => x === undefined || x === null;
const optional = (x: unknown, type: 'string' | 'number') => nullish(x) || typeof x === type;

/** Usage as the provider's schema accepts it (numbers or nothing, details objects or nothing). */
function usageFits(u: unknown): boolean {
  if (nullish(u)) return true;
  if (!isObject(u)) return false;
  const numbers = (o: Json, keys: string[]) => keys.every((k) => optional(o[k], 'number'));
  if (!numbers(u, ['prompt_tokens', 'completion_tokens', 'total_tokens'])) return false;
  const p = u.prompt_tokens_details;
  const c = u.completion_tokens_details;
  return (
    (nullish(p) || (isObject(p) && numbers(p, ['cached_tokens']))) &&
    (nullish(c) ||
      (isObject(c) &&
        numbers(c, ['reasoning_tokens', 'accepted_prediction_tokens', 'rejected_prediction_tokens'])))
  );
}

const FINISH: Record<string, ProviderAnswer['finishReason']['unified']> = {
  stop: 'stop',
  length: 'length',
  content_filter: 'content-filter',
  function_call: 'tool-calls',
  tool_calls: 'tool-calls',
};

/** The provider's usage for an answer's `usage` field. */
function convertUsage(usage: Json | null | undefined): ProviderAnswer['usage'] {
  if (usage === null || usage === undefined)
    return {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      raw: undefined,
    };
  const prompt = (usage.prompt_tokens as number | null | undefined) ?? 0;
  const completion = (usage.completion_tokens as number | null | undefined) ?? 0;
  const cacheRead = ((usage.prompt_tokens_details as Json | null | undefined)?.cached_tokens as number) ?? 0;
  const reasoning =
    ((usage.completion_tokens_details as Json | null | undefined)?.reasoning_tokens as number) ?? 0;
  return {
    inputTokens: { total: prompt, noCache: prompt - cacheRead, cacheRead, cacheWrite: undefined },
    outputTokens: { total: completion, text: Math.max(0, completion - reasoning), reasoning },
    raw: usage as ProviderAnswer['usage']['raw'],
  };
}

/**
 * What the provider's `doGenerate` returns for a 2xx answer of one plain text choice; null for any
 * other answer (the provider reads those).
 */
export function leanAnswer(
  answer: BufferedAnswer,
  body: () => string,
  metadataKey: string,
): ProviderAnswer | null {
  if (answer.status < 200 || answer.status > 299) return null;
  // TextDecoder, which the provider reads with, drops a byte-order mark
  if (answer.body[0] === 0xef && answer.body[1] === 0xbb && answer.body[2] === 0xbf) return null;
  const text = answer.body.toString('utf8');
  if (SUSPECT_KEY.test(text)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(raw) || !optional(raw.id, 'string') || !optional(raw.created, 'number')) return null;
  if (!optional(raw.model, 'string') || !Array.isArray(raw.choices) || raw.choices.length !== 1) return null;
  const choice = raw.choices[0] as unknown;
  if (!isObject(choice) || !isObject(choice.message) || !optional(choice.finish_reason, 'string'))
    return null;
  const m = choice.message;
  if (!nullish(m.role) && m.role !== 'assistant') return null;
  if (!optional(m.content, 'string') || !nullish(m.reasoning_content) || !nullish(m.reasoning)) return null;
  if (!nullish(m.tool_calls) || !usageFits(raw.usage)) return null;

  const content = (m.content as string | null | undefined) ?? '';
  const usage = raw.usage as Json | null | undefined;
  const details = usage?.completion_tokens_details as Json | null | undefined;
  const metadata: Record<string, number> = {};
  if (!nullish(details?.accepted_prediction_tokens))
    metadata.acceptedPredictionTokens = details!.accepted_prediction_tokens as number;
  if (!nullish(details?.rejected_prediction_tokens))
    metadata.rejectedPredictionTokens = details!.rejected_prediction_tokens as number;
  const finish = choice.finish_reason as string | null | undefined;
  return {
    content: content.length > 0 ? [{ type: 'text', text: content }] : [],
    finishReason: { unified: (finish && FINISH[finish]) || 'other', raw: finish ?? undefined },
    usage: convertUsage(usage),
    providerMetadata: { [metadataKey]: metadata },
    // built when read (nothing in Apiary reads it on this path): the pieces stay as they are
    request: {
      get body() {
        return body();
      },
    },
    response: {
      id: (raw.id as string | null | undefined) ?? undefined,
      modelId: (raw.model as string | null | undefined) ?? undefined,
      timestamp: nullish(raw.created) ? undefined : new Date((raw.created as number) * 1000),
      headers: Object.fromEntries(responseHeaders(answer.rawHeaders)),
      body: raw,
    },
    warnings: [],
  };
}

/** The provider's chat model behind a lean path for plain text turns (see the top of this file). */
export function createEndpointChatModel(settings: EndpointChatModelSettings): LanguageModelV3 {
  const { name, baseURL, modelId, apiKey, pool } = settings;
  const providerSettings = { name, baseURL, ...(apiKey ? { apiKey } : {}), includeUsage: true };
  const provider = createOpenAICompatible({ ...providerSettings, fetch: settings.fetch }).chatModel(modelId);
  const metadataKey = provider.provider.split('.')[0]!.trim();

  /** URL and headers the provider sent, by the call's own headers. */
  const learned = new Map<string, { url: URL; headers: Record<string, string> }>();
  const learning = new Map<string, LanguageModelV3>();
  /** The provider, noting the URL and headers of what it posts for calls with these headers. */
  const learner = (key: string): LanguageModelV3 => {
    let model = learning.get(key);
    if (!model) {
      const noting: typeof fetch = (input, init = {}) => {
        if (typeof input === 'string' && typeof init.body === 'string') {
          const headers = requestHeaders(init, '');
          delete headers['content-length'];
          learned.set(key, { url: new URL(input), headers });
        }
        return settings.fetch(input, init);
      };
      model = createOpenAICompatible({ ...providerSettings, fetch: noting }).chatModel(modelId);
      learning.set(key, model);
    }
    return model;
  };
  /** The provider reading an answer (or failure) already received, as the response of its fetch. */
  const replay = (options: CallOptions, got: { answer: BufferedAnswer } | { error: unknown }) =>
    createOpenAICompatible({
      ...providerSettings,
      fetch: async () => {
        if ('error' in got) throw got.error;
        return answerResponse(got.answer);
      },
    })
      .chatModel(modelId)
      .doGenerate(options);

  return {
    specificationVersion: 'v3',
    provider: provider.provider,
    modelId,
    get supportedUrls() {
      return provider.supportedUrls;
    },
    async doGenerate(options) {
      const pieces = leanRequestBody(modelId, options);
      if (pieces === null) return provider.doGenerate(options);
      const key = options.headers === undefined ? '' : JSON.stringify(options.headers);
      const request = learned.get(key);
      if (!request) return learner(key).doGenerate(options);
      let answer: BufferedAnswer;
      try {
        const { chunks, bytes } = bodyChunks(pieces);
        const headers = { ...request.headers, 'content-length': String(bytes) };
        answer = await pool.post(request.url, headers, chunks, options.abortSignal);
      } catch (error) {
        return replay(options, { error });
      }
      // a redirect: the provider posts again through the fetch, which follows it
      if (answer.redirect) return provider.doGenerate(options);
      return leanAnswer(answer, () => bodyText(pieces), metadataKey) ?? replay(options, { answer });
    },
    doStream: (options) => provider.doStream(options),
  };
}
