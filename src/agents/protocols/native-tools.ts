import type { ModelMessage } from 'ai';
import type { AgentProtocol, AgentTool, Decision, ProposedCall } from '../runtime/types.js';

export interface NativeToolsOptions {
  /** System text (default: a short instruction to use the tools and answer in plain text). */
  system?: string;
  /** Offer an `ask_user` tool; calling it ends the turn with an ask-user decision (default true). */
  askUser?: boolean;
}

const ASK_USER_TOOL = 'ask_user';

const DEFAULT_SYSTEM =
  'You are an assistant that acts through tools. Call the tools you need (several at once when they ' +
  'do not depend on each other), read their results, and when the request is done answer in plain text. ' +
  `If information only the user can give is missing, call ${ASK_USER_TOOL}.`;

/**
 * Native tool calling: tools go to the provider as JSON Schemas, the model answers with tool calls
 * (run in parallel) or with text (the final answer). Tool results go back as tool messages.
 */
export function nativeToolsProtocol(opts: NativeToolsOptions = {}): AgentProtocol {
  const askUser = opts.askUser ?? true;
  return {
    name: 'native-tools',
    start: ({ instruction, history }) => ({
      system: opts.system ?? DEFAULT_SYSTEM,
      messages: [...history, { role: 'user', content: instruction }],
    }),
    nativeTools(tools: readonly AgentTool[]) {
      const specs: Record<string, { description: string; inputSchema: Record<string, unknown> }> = {};
      for (const t of tools) specs[t.name] = { description: t.description, inputSchema: t.inputSchema };
      if (askUser)
        specs[ASK_USER_TOOL] = {
          description: 'Ask the user a question when the request lacks information only they have.',
          inputSchema: {
            type: 'object',
            properties: { question: { type: 'string' } },
            required: ['question'],
            additionalProperties: false,
          },
        };
      return specs;
    },
    parse(reply): Decision {
      if (reply.toolCalls.length === 0) {
        if (reply.text.trim()) return { kind: 'final', answer: reply.text };
        return { kind: 'decode-failure', message: 'the reply had neither tool calls nor text' };
      }
      const ask = reply.toolCalls.find((c) => c.name === ASK_USER_TOOL);
      if (askUser && ask) {
        const q = (ask.input as { question?: unknown } | null)?.question;
        return { kind: 'ask-user', question: typeof q === 'string' ? q : ask.inputText, callId: ask.id };
      }
      const calls: ProposedCall[] = reply.toolCalls.map((c) => {
        const isObject = c.input !== null && typeof c.input === 'object' && !Array.isArray(c.input);
        if (c.invalid || !isObject)
          return {
            id: c.id,
            tool: c.name,
            invalid: c.invalid ?? 'the arguments must be a JSON object',
            rawInput: c.inputText,
          };
        return { id: c.id, tool: c.name, args: c.input as Record<string, unknown> };
      });
      return { kind: 'calls', calls, ...(reply.text.trim() ? { thought: reply.text } : {}) };
    },
    continueWith(reply, decision, observations): ModelMessage[] {
      const text = reply.text ? [{ type: 'text' as const, text: reply.text }] : [];
      if (decision.kind === 'decode-failure')
        return [
          ...(reply.text ? [{ role: 'assistant' as const, content: reply.text }] : []),
          {
            role: 'user',
            content: `Your reply could not be used (${decision.message}). Call a tool or answer.`,
          },
        ];
      if (decision.kind === 'ask-user')
        return [
          {
            role: 'assistant',
            content: [{ type: 'text', text: `${reply.text ? `${reply.text}\n` : ''}${decision.question}` }],
          },
        ];
      const assistant: ModelMessage = {
        role: 'assistant',
        content: [
          ...text,
          ...observations.map((o) => ({
            type: 'tool-call' as const,
            toolCallId: o.call.id,
            toolName: o.call.tool,
            input: o.call.args ?? {},
          })),
        ],
      };
      const results: ModelMessage = {
        role: 'tool',
        content: observations.map((o) => ({
          type: 'tool-result' as const,
          toolCallId: o.call.id,
          toolName: o.call.tool,
          output: o.outcome.ok
            ? { type: 'text' as const, value: o.text }
            : {
                type: 'error-text' as const,
                value: o.call.invalid
                  ? `invalid arguments (${o.call.invalid}): ${o.call.rawInput ?? ''}`.trim()
                  : o.text,
              },
        })),
      };
      return [assistant, results];
    },
  };
}
