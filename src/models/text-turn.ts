/**
 * A turn without tools, given to the provider model the way `generateText` gives it, without the
 * rest of `generateText`: at 256 samples in flight its per-call machinery (the zod check of the
 * whole conversation, telemetry attributes, step bookkeeping) was a third of a sample's CPU. The
 * request is built by the AI SDK's own pieces (`ai/internal`: the call settings with their
 * validation, the prompt conversion, the tools/tool-choice preparation), so the provider sees the
 * same call; only an answer made of text parts without warnings is read here, anything else goes
 * back through `generateText` (see `replayModel`).
 */
import { createRequire } from 'node:module';
import type { ModelMessage } from 'ai';
import { asLanguageModelUsage, convertToLanguageModelPrompt, prepareCallSettings } from 'ai/internal';
import type { LanguageModelV3 } from './sampling.js';

type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type ProviderAnswer = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

/** The user agent `generateText` adds to every call's headers. */
const USER_AGENT = `ai/${(createRequire(import.meta.url)('ai/package.json') as { version: string }).version}`;

const PLAIN_ROLES = new Set(['system', 'user', 'assistant']);

/**
 * Whether `generateText` would take this turn exactly as `textTurnCallOptions` and
 * `plainTextAnswer` do: a v3 model object (not a gateway id or model), no tools, no tool choice,
 * messages that are only `{ role, content: string }` of system, user or assistant (the AI SDK's
 * prompt schema accepts every such list), and no global telemetry integration to notify.
 */
export function isPlainTextTurn(req: {
  model: unknown;
  messages: readonly ModelMessage[];
  tools?: unknown;
  toolChoice?: unknown;
}): boolean {
  const model = req.model as Partial<LanguageModelV3> | string;
  if (typeof model !== 'object' || model === null || model.specificationVersion !== 'v3') return false;
  if (model.provider === 'gateway' || req.tools !== undefined || req.toolChoice !== undefined) return false;
  const integrations = (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] })
    .AI_SDK_TELEMETRY_INTEGRATIONS;
  if (integrations !== undefined && integrations.length > 0) return false;
  if (req.messages.length === 0) return false;
  for (const m of req.messages) {
    if (!PLAIN_ROLES.has(m.role) || typeof m.content !== 'string') return false;
    let keys = 0;
    for (const _ in m) keys++;
    if (keys !== 2) return false; // providerOptions or anything else: the SDK's own path
  }
  return true;
}

/** Sampling fields as `generateText` takes them (undefined ones left out by the caller). */
export interface TextTurnSettings {
  temperature?: number;
  topP?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
}

/**
 * The options `generateText` passes to `doGenerate` for this turn (same validation errors, same
 * prompt, same headers), with `abortSignal` as given.
 */
export async function textTurnCallOptions(
  model: LanguageModelV3,
  system: string | undefined,
  messages: ModelMessage[],
  settings: TextTurnSettings,
  abortSignal: AbortSignal,
): Promise<CallOptions> {
  const callSettings = prepareCallSettings(settings);
  const prompt = await convertToLanguageModelPrompt({
    prompt: { system, messages },
    supportedUrls: await model.supportedUrls,
    download: undefined,
    abortSignal,
  });
  return {
    ...callSettings,
    tools: undefined,
    toolChoice: undefined,
    responseFormat: undefined,
    prompt,
    providerOptions: undefined,
    abortSignal,
    headers: { 'user-agent': USER_AGENT },
  } as CallOptions;
}

export interface PlainTextAnswer {
  text: string;
  finishReason: string;
  usage: { inputTokens: number | undefined; outputTokens: number | undefined };
  responseMessages: ModelMessage[];
  providerMetadata: ProviderAnswer['providerMetadata'];
}

/**
 * What `generateText` makes of an answer of text parts only and no warnings (its text, finish
 * reason, usage, the assistant turn and provider metadata); null for any other answer (reasoning,
 * files, sources, tool calls, warnings to log), which `generateText` must read itself.
 */
export function plainTextAnswer(answer: ProviderAnswer): PlainTextAnswer | null {
  if ((answer.warnings ?? []).length > 0) return null;
  const parts: Array<{ type: 'text'; text: string; providerOptions: unknown }> = [];
  let text = '';
  for (const part of answer.content) {
    if (part.type !== 'text') return null;
    text += part.text;
    // an empty text part is left out of the assistant turn, as generateText does
    if (part.text.length > 0)
      parts.push({ type: 'text', text: part.text, providerOptions: part.providerMetadata });
  }
  const usage = asLanguageModelUsage(answer.usage);
  return {
    text,
    finishReason: answer.finishReason.unified,
    usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens },
    responseMessages: parts.length ? [{ role: 'assistant', content: parts } as ModelMessage] : [],
    providerMetadata: answer.providerMetadata,
  };
}

/**
 * The model as `generateText` sees it when it must read an answer already fetched: the same
 * identity, answering that answer once more instead of calling the provider again.
 */
export function replayModel(model: LanguageModelV3, answer: ProviderAnswer): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: async () => answer,
    doStream: (options) => model.doStream(options),
  };
}
