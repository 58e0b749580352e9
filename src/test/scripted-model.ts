import { APICallError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type {
  ScriptedChatMessage,
  ScriptedChatRequest,
  ScriptedReply,
  ScriptedWireToolCall,
} from './scripted-openai-server.js';

type DoGenerate = Exclude<ConstructorParameters<typeof MockLanguageModelV3>[0], undefined>['doGenerate'];
type DoGenerateFn = Extract<DoGenerate, (...args: never[]) => unknown>;
type CallOptions = Parameters<DoGenerateFn>[0];

/** The prompt as OpenAI-style messages: one `tool` message per tool result, like the HTTP wire. */
function promptToMessages(prompt: CallOptions['prompt']): ScriptedChatMessage[] {
  return prompt.flatMap((m): ScriptedChatMessage[] => {
    if (typeof m.content === 'string') return [{ role: m.role, content: m.content }];
    if (m.role === 'tool') {
      return m.content.flatMap((p) =>
        p.type === 'tool-result'
          ? [
              {
                role: 'tool',
                tool_call_id: p.toolCallId,
                content:
                  p.output.type === 'text' || p.output.type === 'error-text'
                    ? p.output.value
                    : JSON.stringify('value' in p.output ? p.output.value : p.output),
              },
            ]
          : [],
      );
    }
    const text = m.content.map((p) => ('text' in p && typeof p.text === 'string' ? p.text : '')).join('');
    const toolCalls: ScriptedWireToolCall[] = m.content.flatMap((p) =>
      p.type === 'tool-call'
        ? [
            {
              id: p.toolCallId,
              type: 'function',
              function: { name: p.toolName, arguments: JSON.stringify(p.input) },
            },
          ]
        : [],
    );
    return [
      toolCalls.length > 0
        ? { role: m.role, content: text, tool_calls: toolCalls }
        : { role: m.role, content: text },
    ];
  });
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((w) => w.length > 0).length;
}

function faultError(fault: 'http429' | 'http500' | 'invalid-json' | 'empty-choices', url: string): Error {
  switch (fault) {
    case 'http429':
      return new APICallError({
        message: 'rate limited (scripted)',
        url,
        requestBodyValues: {},
        statusCode: 429,
        isRetryable: true,
      });
    case 'http500':
      return new APICallError({
        message: 'internal error (scripted)',
        url,
        requestBodyValues: {},
        statusCode: 500,
        isRetryable: true,
      });
    case 'invalid-json':
      return new APICallError({
        message: 'Invalid JSON response (scripted)',
        url,
        requestBodyValues: {},
        statusCode: 200,
        responseBody: '{"choices": [',
        cause: new SyntaxError('Unexpected end of JSON input'),
      });
    case 'empty-choices':
      return new APICallError({
        message: 'Invalid response: empty choices (scripted)',
        url,
        requestBodyValues: {},
        statusCode: 200,
        responseBody: '{"choices": []}',
      });
  }
}

export interface ScriptedModel extends MockLanguageModelV3 {
  /** The requests seen, as flattened chat messages, in order. */
  readonly scriptedRequests: ScriptedChatRequest[];
}

/**
 * An in-process AI SDK language model (no HTTP) driven by the same script type as
 * {@link startScriptedOpenAiServer}. Faults are thrown as the errors a provider would raise:
 * `timeout` waits until the call's abort signal fires, `http429`/`http500` throw `APICallError`
 * with that status, `invalid-json`/`empty-choices` throw a non-retryable `APICallError`.
 */
export function scriptedLanguageModel(
  respond: (req: ScriptedChatRequest) => ScriptedReply | Promise<ScriptedReply>,
  opts: { modelId?: string; provider?: string } = {},
): ScriptedModel {
  const modelId = opts.modelId ?? 'scripted-model';
  const scriptedRequests: ScriptedChatRequest[] = [];
  const doGenerate: DoGenerateFn = async (options) => {
    const messages = promptToMessages(options.prompt);
    const req: ScriptedChatRequest = { messages, model: modelId, body: options };
    // tools and tool choice in the OpenAI wire shape, as the HTTP server shows them
    if (options.tools) {
      req.tools = options.tools.map((t) =>
        t.type === 'function'
          ? {
              type: 'function',
              function: { name: t.name, description: t.description, parameters: t.inputSchema },
            }
          : t,
      );
    }
    const choice = options.toolChoice;
    if (choice) {
      req.tool_choice =
        choice.type === 'tool' ? { type: 'function', function: { name: choice.toolName } } : choice.type;
    }
    scriptedRequests.push(req);
    const reply = await respond(req);
    if (typeof reply === 'object' && 'fault' in reply) {
      if (reply.fault === 'timeout') {
        await new Promise<never>((_, reject) => {
          const signal = options.abortSignal;
          if (!signal) return; // never settles without a signal, like a hung server
          if (signal.aborted) reject(signal.reason);
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }
      throw faultError(reply.fault as Exclude<typeof reply.fault, 'timeout'>, 'scripted://model');
    }
    if (typeof reply === 'object' && reply.latencyMs)
      await new Promise((r) => setTimeout(r, reply.latencyMs));
    const text = typeof reply === 'string' ? reply : (reply.text ?? '');
    const toolCalls =
      typeof reply === 'object' && 'toolCalls' in reply
        ? reply.toolCalls.map((call, index) => ({
            type: 'tool-call' as const,
            toolCallId: call.id ?? `call_${scriptedRequests.length}_${index}`,
            toolName: call.name,
            input: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
          }))
        : [];
    const usage =
      typeof reply === 'object' && reply.usage
        ? reply.usage
        : {
            prompt_tokens: messages.reduce((s, m) => s + wordCount(m.content), 0),
            completion_tokens:
              wordCount(text) + toolCalls.reduce((s, c) => s + wordCount(c.toolName) + wordCount(c.input), 0),
          };
    const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    return {
      content: [
        ...(text === '' && toolCalls.length > 0 ? [] : [{ type: 'text' as const, text }]),
        ...toolCalls,
      ],
      finishReason: { unified: finish === 'stop' ? 'stop' : 'tool-calls', raw: finish },
      usage: {
        inputTokens: {
          total: usage.prompt_tokens,
          noCache: usage.prompt_tokens,
          cacheRead: 0,
          cacheWrite: 0,
        },
        outputTokens: { total: usage.completion_tokens, text: usage.completion_tokens, reasoning: 0 },
      },
      warnings: [],
    };
  };
  const model = new MockLanguageModelV3({ provider: opts.provider ?? 'scripted', modelId, doGenerate });
  return Object.assign(model, { scriptedRequests });
}
