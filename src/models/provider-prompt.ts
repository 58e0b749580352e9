/**
 * The provider prompt (LanguageModelV3 spec) of a conversation, built the way `generateText`
 * builds it, from public types only. Each message is checked against the AI SDK's public message
 * schemas (`modelMessageSchema`'s branches) and converted once, then kept in a {@link PromptCache}: an agent's turn N
 * re-sends N messages, and checking them all again on every turn made a run quadratic.
 *
 * Only what converts without the SDK's help is taken here: text, reasoning, tool calls and tool
 * results (text / json / error / denied outputs). Images, files, URL downloads, tool approvals,
 * adjacent tool messages (which the SDK merges) and tool calls left without results give null, and
 * the turn goes through `generateText`, which converts them (or throws) itself.
 */
import {
  assistantModelMessageSchema,
  type ModelMessage,
  systemModelMessageSchema,
  toolModelMessageSchema,
  userModelMessageSchema,
} from 'ai';
import type { LanguageModelV3 } from './sampling.js';

export type ProviderPrompt = Parameters<LanguageModelV3['doGenerate']>[0]['prompt'];
type PromptMessage = ProviderPrompt[number];

/**
 * Converted messages by identity. A message object must not be changed once it was sent with a
 * cache (the agent runtime only appends new messages); the cache holds no message alive.
 */
export interface PromptCache {
  readonly converted: WeakMap<object, PromptMessage | null>;
}

export function createPromptCache(): PromptCache {
  return { converted: new WeakMap() };
}

type Part = Record<string, unknown> & { type: string };

/** A tool result's output as the provider gets it; null for `content` outputs (media, URLs). */
function toolOutput(output: { type: string }): unknown {
  return output.type === 'content' ? null : output;
}

function toolResult(part: Part): Part | null {
  const output = toolOutput(part.output as { type: string });
  if (output === null) return null;
  return {
    type: 'tool-result',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output,
    providerOptions: part.providerOptions,
  };
}

function assistantPart(part: Part): Part | null {
  const providerOptions = part.providerOptions;
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { type: part.type, text: part.text, providerOptions };
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
        providerExecuted: part.providerExecuted,
        providerOptions,
      };
    case 'tool-result':
      return toolResult(part);
    default:
      return null; // files, tool approvals
  }
}

/** Parts mapped one by one; null as soon as one part cannot be. */
function mapParts(parts: Part[], map: (part: Part) => Part | null): Part[] | null {
  const out: Part[] = [];
  for (const part of parts) {
    const converted = map(part);
    if (converted === null) return null;
    out.push(converted);
  }
  return out;
}

/** Parts built field by field above: the spec's message type is their shape. */
const asMessage = (message: { role: string; content: Part[]; providerOptions: unknown }) =>
  message as unknown as PromptMessage;

/**
 * The branch of the SDK's `modelMessageSchema` union a message's role selects: the union accepts a
 * message iff that branch does, and checking it alone spares the issues the other branches raise.
 */
const SCHEMA_OF_ROLE: Record<string, { safeParse(value: unknown): { success: boolean } }> = {
  system: systemModelMessageSchema,
  user: userModelMessageSchema,
  assistant: assistantModelMessageSchema,
  tool: toolModelMessageSchema,
};

const TEXT_ROLES = new Set(['system', 'user', 'assistant']);

/** `{ role, content: string }` of these roles and nothing else: every branch of the schema takes it. */
function isPlainText(message: { role?: unknown; content?: unknown }): boolean {
  if (typeof message.content !== 'string' || !TEXT_ROLES.has(message.role as string)) return false;
  let keys = 0;
  for (const _ in message) keys++;
  return keys === 2;
}

function isModelMessage(message: unknown): boolean {
  if (message !== null && typeof message === 'object' && isPlainText(message)) return true; // most turns
  const role = (message as { role?: unknown } | null)?.role;
  const schema =
    typeof role === 'string' && Object.hasOwn(SCHEMA_OF_ROLE, role) ? SCHEMA_OF_ROLE[role] : undefined;
  return schema?.safeParse(message).success === true;
}

/** One message as `generateText` converts it (same fields, same order); null when it cannot be here. */
function convertMessage(message: ModelMessage): PromptMessage | null {
  if (!isModelMessage(message)) return null; // generateText throws its own error
  const { providerOptions } = message;
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content, providerOptions } as PromptMessage;
    case 'user': {
      if (typeof message.content === 'string')
        return { role: 'user', content: [{ type: 'text', text: message.content }], providerOptions };
      const content = mapParts(message.content as unknown as Part[], (p) =>
        p.type === 'text' ? { type: 'text', text: p.text, providerOptions: p.providerOptions } : null,
      );
      if (content === null) return null;
      return asMessage({ role: 'user', content: content.filter((p) => p.text !== ''), providerOptions });
    }
    case 'assistant': {
      if (typeof message.content === 'string')
        return { role: 'assistant', content: [{ type: 'text', text: message.content }], providerOptions };
      const kept = (message.content as unknown as Part[]).filter(
        // the SDK drops empty text parts that carry no provider options
        (p) => p.type !== 'text' || p.text !== '' || p.providerOptions != null,
      );
      const content = mapParts(kept, assistantPart);
      return content === null ? null : asMessage({ role: 'assistant', content, providerOptions });
    }
    case 'tool': {
      const content = mapParts(message.content as unknown as Part[], (p) =>
        p.type === 'tool-result' ? toolResult(p) : null,
      );
      // an empty tool message is dropped by the SDK: left to it
      if (content === null || content.length === 0) return null;
      return asMessage({ role: 'tool', content, providerOptions });
    }
    default:
      return null;
  }
}

function cachedMessage(message: ModelMessage, cache: PromptCache | undefined): PromptMessage | null {
  if (cache === undefined) return convertMessage(message);
  let converted = cache.converted.get(message);
  if (converted === undefined) {
    converted = convertMessage(message);
    cache.converted.set(message, converted);
  }
  return converted;
}

/**
 * The prompt `generateText({ system, messages, allowSystemInMessages: true })` gives the provider,
 * or null when this conversation must go through `generateText` (see the module comment). Per
 * message already in the cache, a lookup and a few set operations: no validation, no copies.
 */
export function providerPrompt(
  system: string | undefined,
  messages: readonly ModelMessage[],
  cache?: PromptCache,
): ProviderPrompt | null {
  if (messages.length === 0) return null;
  const prompt: PromptMessage[] = system === undefined ? [] : [{ role: 'system', content: system }];
  const open = new Set<string>(); // tool calls without a result yet
  let previousRole: string | undefined;
  for (const message of messages) {
    const converted = cachedMessage(message, cache);
    if (converted === null) return null;
    if (converted.role === 'tool' && previousRole === 'tool') return null; // the SDK merges them
    previousRole = converted.role;
    if (converted.role === 'assistant') {
      for (const part of converted.content)
        if (part.type === 'tool-call' && !part.providerExecuted) open.add(part.toolCallId);
    } else if (converted.role === 'tool') {
      for (const part of converted.content) if (part.type === 'tool-result') open.delete(part.toolCallId);
    } else if (open.size > 0) return null; // MissingToolResultsError, thrown by the SDK
    prompt.push(converted);
  }
  return open.size > 0 ? null : prompt;
}
