/**
 * A turn given to the provider model (LanguageModelV3 `doGenerate`) the way `generateText` gives
 * it, without the rest of `generateText`: its per-call machinery (the zod check of the whole
 * conversation, telemetry attributes, step bookkeeping) was most of an agent step's CPU and grew
 * with the conversation. Public API only: the request is built from the spec's types
 * (./provider-prompt.ts for the prompt) and the answer read here when it holds only text and
 * well-formed calls of offered tools, without warnings; anything else is handed to
 * `generateText` (see `replayModel`), which reads it as it always does.
 */
import { createRequire } from 'node:module';
import type { ModelMessage } from 'ai';
import type { ModelToolChoice, ModelToolSpec } from './generate.js';
import { constraintProviderOptions, type OutputConstraint } from './grammar/constraint.js';
import type { PromptCache } from './provider-prompt.js';
import { providerPrompt } from './provider-prompt.js';
import type { LanguageModelV3, SamplingSettings } from './sampling.js';

type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
export type ProviderAnswer = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

/** The user agent `generateText` adds to every call's headers. */
const USER_AGENT = `ai/${(createRequire(import.meta.url)('ai/package.json') as { version: string }).version}`;

export interface DirectTurnRequest {
  model: unknown;
  system?: string;
  messages: readonly ModelMessage[];
  tools?: Record<string, ModelToolSpec>;
  toolChoice?: ModelToolChoice;
  settings?: SamplingSettings;
  constraint?: OutputConstraint;
}

const isInteger = (x: unknown) => x === undefined || Number.isInteger(x);
const isNumber = (x: unknown) => x === undefined || x === null || typeof x === 'number';

/**
 * Whether `generateText` would take this model and these settings as `directCallOptions` does: a v3
 * model object (not a gateway id or model), settings it accepts (otherwise it throws its own
 * `InvalidArgumentError`), and no global telemetry integration to notify.
 */
export function isDirectTurn(req: DirectTurnRequest): boolean {
  const model = req.model as Partial<LanguageModelV3> | string;
  if (typeof model !== 'object' || model === null || model.specificationVersion !== 'v3') return false;
  if (model.provider === 'gateway') return false;
  const integrations = (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] })
    .AI_SDK_TELEMETRY_INTEGRATIONS;
  if (integrations !== undefined && integrations.length > 0) return false;
  const s = req.settings ?? {};
  const max = s.maxOutputTokens;
  return (
    isInteger(max) &&
    (max === undefined || max >= 1) &&
    isNumber(s.temperature) &&
    isNumber(s.topP) &&
    isInteger(s.seed)
  );
}

/** The provider's tool list as `generateText` prepares it from `tool({ description, inputSchema })`. */
function providerTools(specs: Record<string, ModelToolSpec>): CallOptions['tools'] {
  return Object.entries(specs).map(([name, spec]) => ({
    type: 'function' as const,
    name,
    description: spec.description,
    inputSchema: spec.inputSchema as never,
    providerOptions: undefined,
  }));
}

const toolChoiceOf = (choice: ModelToolChoice | undefined): CallOptions['toolChoice'] =>
  choice === undefined ? { type: 'auto' } : typeof choice === 'string' ? { type: choice } : choice;

/**
 * The options `generateText` passes to `doGenerate` for this turn, with the tool choice in the
 * call itself (as ./generate.ts's `wrapForCall` puts it); null when the conversation must go
 * through `generateText` (./provider-prompt.ts).
 */
export function directCallOptions(
  req: DirectTurnRequest,
  abortSignal: AbortSignal,
  cache?: PromptCache,
): CallOptions | null {
  const prompt = providerPrompt(req.system, req.messages, cache);
  if (prompt === null) return null;
  const hasTools = req.tools !== undefined && Object.keys(req.tools).length > 0;
  const s = req.settings ?? {};
  return {
    maxOutputTokens: s.maxOutputTokens,
    temperature: s.temperature,
    topP: s.topP === null ? undefined : s.topP,
    topK: undefined,
    presencePenalty: undefined,
    frequencyPenalty: undefined,
    stopSequences: s.stopSequences,
    seed: s.seed,
    tools: hasTools ? providerTools(req.tools!) : undefined,
    toolChoice: hasTools ? toolChoiceOf(req.toolChoice) : undefined,
    responseFormat: undefined,
    prompt,
    providerOptions: constraintProviderOptions(req.constraint),
    abortSignal,
    headers: { 'user-agent': USER_AGENT },
  };
}

export interface DirectAnswer {
  text: string;
  toolCalls: Array<{ id: string; name: string; input: unknown; inputText: string }>;
  finishReason: string;
  usage: { inputTokens: number; outputTokens: number };
  responseMessages: ModelMessage[];
  providerMetadata: ProviderAnswer['providerMetadata'];
}

// what the AI SDK's JSON parser treats specially (prototype keys): left to it
const SUSPECT_KEY =
  /"(?:_|\\u005[Ff]){2}(?:p|\\u0070)|"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)/;

/** A tool call's arguments as the SDK parses them for a tool without a validator; null if it would not. */
function parseArguments(text: string): { value: unknown } | null {
  if (text.trim() === '' || SUSPECT_KEY.test(text)) return null;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null; // an invalid call: the SDK's own error text goes with it
  }
}

/**
 * What `generateText` makes of an answer of text and valid calls of offered tools, without
 * warnings: its text, calls, finish reason, usage, the assistant turn and provider metadata. Null
 * for any other answer (reasoning, files, sources, invalid or unknown calls, warnings to log).
 */
export function directAnswer(answer: ProviderAnswer, tools: ReadonlySet<string>): DirectAnswer | null {
  if ((answer.warnings ?? []).length > 0) return null;
  const content: Array<Record<string, unknown>> = [];
  const toolCalls: DirectAnswer['toolCalls'] = [];
  let text = '';
  for (const part of answer.content) {
    if (part.type === 'text') {
      text += part.text;
      // an empty text part is left out of the assistant turn, as generateText does
      if (part.text.length > 0)
        content.push({ type: 'text', text: part.text, providerOptions: part.providerMetadata });
      continue;
    }
    if (part.type !== 'tool-call' || part.providerExecuted || part.dynamic || !tools.has(part.toolName))
      return null;
    const input = parseArguments(part.input);
    if (input === null) return null;
    toolCalls.push({ id: part.toolCallId, name: part.toolName, input: input.value, inputText: part.input });
    content.push({
      type: 'tool-call',
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      input: input.value,
      providerExecuted: part.providerExecuted,
      providerOptions: part.providerMetadata,
    });
  }
  return {
    text,
    toolCalls,
    finishReason: answer.finishReason.unified,
    usage: {
      inputTokens: answer.usage.inputTokens.total ?? 0,
      outputTokens: answer.usage.outputTokens.total ?? 0,
    },
    responseMessages: content.length ? [{ role: 'assistant', content } as ModelMessage] : [],
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
