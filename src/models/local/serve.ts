import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { CONSTRAINT_PROVIDER_KEY } from '../grammar/constraint.js';
import type { LanguageModelV3 } from '../sampling.js';
import type { LocalLanguageModel } from './local-model.js';

type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type PromptMessage = CallOptions['prompt'][number];
type GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

/** Largest request body: a long conversation with many tool schemas fits; a runaway client does not. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** The response header that says how many requests were ahead of this one (waiting or running). */
export const QUEUE_DEPTH_HEADER = 'x-apiary-queue-depth';

const TextContent = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
  z.null(),
]);
const ChatMessage = z.discriminatedUnion('role', [
  z.looseObject({ role: z.enum(['system', 'developer']), content: TextContent }),
  z.looseObject({ role: z.literal('user'), content: TextContent }),
  z.looseObject({
    role: z.literal('assistant'),
    content: TextContent.optional(),
    tool_calls: z
      .array(
        z.looseObject({
          id: z.string(),
          type: z.literal('function').optional(),
          function: z.object({ name: z.string(), arguments: z.string() }),
        }),
      )
      .optional(),
  }),
  z.looseObject({ role: z.literal('tool'), tool_call_id: z.string(), content: TextContent }),
]);

/** A client's GBNF text: llama.cpp compiles it in native code, where no deadline can stop it. */
const MAX_REQUEST_GRAMMAR_CHARS = 65_536;
/**
 * llama.cpp expands `x{m,n}` into about max(m, n) copies of `x` (a group becomes one rule first, so
 * nesting adds rather than multiplies): a few KB of `x{1999}` would be gigabytes. Our own grammars
 * stay far below this.
 */
const MAX_REPEATED_ELEMENTS = 100_000;

/** The elements the repetitions of `grammar` expand to (counted everywhere, literals too: an upper bound). */
function repetitionElements(grammar: string): number {
  let total = 0;
  for (const m of grammar.matchAll(/\{\s*(\d+)\s*(?:,\s*(\d*)\s*)?\}/g)) {
    total += Math.max(Number(m[1]), m[2] ? Number(m[2]) : 0);
  }
  return total;
}

const ChatRequest = z.looseObject({
  model: z.string().optional(),
  messages: z.array(ChatMessage).min(1),
  tools: z
    .array(
      z.looseObject({
        type: z.literal('function'),
        function: z.looseObject({
          name: z.string().min(1),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .optional(),
  tool_choice: z
    .union([
      z.enum(['auto', 'none', 'required']),
      z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
    ])
    .optional(),
  response_format: z
    .union([
      z.object({ type: z.literal('text') }),
      z.object({ type: z.literal('json_object') }),
      z.object({
        type: z.literal('json_schema'),
        json_schema: z.looseObject({
          name: z.string().optional(),
          schema: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    ])
    .optional(),
  /** llama.cpp server's extension: a GBNF grammar the answer must follow (bounded: it is compiled in native code). */
  grammar: z
    .string()
    .max(MAX_REQUEST_GRAMMAR_CHARS)
    .superRefine((grammar, ctx) => {
      const elements = repetitionElements(grammar);
      if (elements > MAX_REPEATED_ELEMENTS)
        ctx.addIssue({
          code: 'custom',
          message: `repetitions expand to ${elements} grammar elements, over the limit of ${MAX_REPEATED_ELEMENTS}`,
        });
    })
    .optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  seed: z.number().int().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  stream: z.boolean().optional(),
});
type ChatRequest = z.infer<typeof ChatRequest>;

const textOf = (content: z.infer<typeof TextContent> | undefined): string =>
  content == null
    ? ''
    : typeof content === 'string'
      ? content
      : content.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');

/** OpenAI chat messages as the AI SDK prompt the model reads (tool results find their tool by call id). */
function promptOf(messages: ChatRequest['messages']): CallOptions['prompt'] {
  const toolNames = new Map<string, string>();
  return messages.map((m): PromptMessage => {
    switch (m.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: textOf(m.content) };
      case 'user':
        return { role: 'user', content: [{ type: 'text', text: textOf(m.content) }] };
      case 'assistant': {
        const text = textOf(m.content);
        const calls = (m.tool_calls ?? []).map((c) => {
          toolNames.set(c.id, c.function.name);
          let input: unknown;
          try {
            input = JSON.parse(c.function.arguments);
          } catch {
            input = c.function.arguments;
          }
          return { type: 'tool-call' as const, toolCallId: c.id, toolName: c.function.name, input };
        });
        return { role: 'assistant', content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls] };
      }
      default:
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: m.tool_call_id,
              toolName: toolNames.get(m.tool_call_id) ?? 'tool',
              output: { type: 'text', value: textOf(m.content) },
            },
          ],
        };
    }
  });
}

function callOptionsOf(body: ChatRequest, signal: AbortSignal): CallOptions {
  const choice = body.tool_choice;
  const stop = body.stop === undefined ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop;
  const format = body.response_format;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  return {
    prompt: promptOf(body.messages),
    ...(maxTokens !== undefined ? { maxOutputTokens: maxTokens } : {}),
    ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
    ...(body.top_p !== undefined ? { topP: body.top_p } : {}),
    ...(body.seed !== undefined ? { seed: body.seed } : {}),
    ...(stop ? { stopSequences: stop } : {}),
    ...(body.tools?.length
      ? {
          tools: body.tools.map((t) => ({
            type: 'function' as const,
            name: t.function.name,
            ...(t.function.description ? { description: t.function.description } : {}),
            inputSchema: (t.function.parameters ?? { type: 'object', properties: {} }) as never,
          })),
        }
      : {}),
    ...(choice === undefined
      ? {}
      : {
          toolChoice:
            typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.function.name },
        }),
    ...(format?.type === 'json_schema'
      ? {
          responseFormat: {
            type: 'json',
            ...(format.json_schema.schema ? { schema: format.json_schema.schema as never } : {}),
          },
        }
      : format?.type === 'json_object'
        ? { responseFormat: { type: 'json' } }
        : {}),
    ...(body.grammar !== undefined
      ? {
          providerOptions: {
            [CONSTRAINT_PROVIDER_KEY]: { grammar: body.grammar, constraintName: 'request' },
          },
        }
      : {}),
    abortSignal: signal,
  };
}

const FINISH: Record<string, string> = { stop: 'stop', length: 'length', 'tool-calls': 'tool_calls' };

function messageOf(result: GenerateResult) {
  const text = result.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
  const calls = result.content.flatMap((p) =>
    p.type === 'tool-call'
      ? [{ id: p.toolCallId, type: 'function' as const, function: { name: p.toolName, arguments: p.input } }]
      : [],
  );
  return {
    role: 'assistant' as const,
    content: calls.length && !text ? null : text,
    ...(calls.length ? { tool_calls: calls } : {}),
  };
}

function openAiError(message: string, type = 'invalid_request_error') {
  return { error: { message, type, param: null, code: null } };
}

/** The OpenAI-compatible app over one local model (exported for tests through `startModelServer`). */
function modelApp(model: LocalLanguageModel, log: (line: string) => void): Hono {
  const app = new Hono();
  const name = servedModelName(model);
  let served = 0;
  app.get('/v1/models', (c) =>
    c.json({
      object: 'list',
      data: [{ id: name, object: 'model', created: 0, owned_by: 'apiary' }],
    }),
  );
  app.get('/v1/queue', async (c) => c.json({ depth: (await model.load()).queue.depth, served }));
  app.post(
    '/v1/chat/completions',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json(openAiError(`request body larger than ${MAX_BODY_BYTES} bytes`), 413),
    }),
    async (c) => {
      let json: unknown;
      try {
        json = await c.req.json();
      } catch (error) {
        return c.json(openAiError(`request body is not JSON: ${(error as Error).message}`), 400);
      }
      const parsed = ChatRequest.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        return c.json(openAiError(`${issue.path.join('.') || 'body'}: ${issue.message}`), 400);
      }
      const body = parsed.data;
      const loaded = await model.load();
      const ahead = loaded.queue.depth;
      const started = Date.now();
      let result: GenerateResult;
      try {
        result = await model.doGenerate(callOptionsOf(body, c.req.raw.signal));
      } catch (error) {
        if (c.req.raw.signal.aborted) return c.body(null, 499 as never);
        return c.json(openAiError((error as Error).message, 'server_error'), 500);
      }
      served++;
      log(
        `chat completion ${served}: ${ahead} ahead in the queue, ${result.usage.inputTokens.total} in / ${result.usage.outputTokens.total} out, ${Date.now() - started} ms`,
      );
      c.header(QUEUE_DEPTH_HEADER, String(ahead));
      const id = `chatcmpl-${served}`;
      const created = Math.floor(Date.now() / 1000);
      const message = messageOf(result);
      const finish = FINISH[result.finishReason.unified] ?? 'stop';
      const usage = {
        prompt_tokens: result.usage.inputTokens.total ?? 0,
        completion_tokens: result.usage.outputTokens.total ?? 0,
        total_tokens: (result.usage.inputTokens.total ?? 0) + (result.usage.outputTokens.total ?? 0),
      };
      if (!body.stream)
        return c.json({
          id,
          object: 'chat.completion',
          created,
          model: name,
          choices: [{ index: 0, message, finish_reason: finish }],
          usage,
        });
      // streaming, cheaply: the whole answer as one delta, then the finish and usage
      const chunk = (choices: unknown[], extra: object = {}) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: name, choices, ...extra })}\n\n`;
      const delta = {
        role: 'assistant',
        ...(message.content ? { content: message.content } : {}),
        ...(message.tool_calls
          ? { tool_calls: message.tool_calls.map((t, index) => ({ index, ...t })) }
          : {}),
      };
      const stream =
        chunk([{ index: 0, delta, finish_reason: null }]) +
        chunk([{ index: 0, delta: {}, finish_reason: finish }], { usage }) +
        'data: [DONE]\n\n';
      return c.body(stream, 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    },
  );
  app.notFound((c) => c.json(openAiError(`no route ${c.req.method} ${c.req.path}`), 404));
  return app;
}

/**
 * The model name a served model answers to: the file name without `gguf:` (a client passes it with
 * `--base-url`, and `--model gguf:…` means "run in process"). Requests may name any model.
 */
function servedModelName(model: LocalLanguageModel): string {
  return model.modelId.replace(/^gguf:/, '');
}

export interface ModelServer {
  /** The model name clients pass (`--model`). */
  model: string;
  /** Base URL for OpenAI-compatible clients (`--base-url`), ending in `/v1`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves a local model as an OpenAI-compatible endpoint: `POST /v1/chat/completions` (tools,
 * tool_choice, response_format json_schema, llama.cpp's `grammar`, `stream`), `GET /v1/models`,
 * `GET /v1/queue`. Requests run one at a time on the model's context; each answer's
 * `x-apiary-queue-depth` header says how many were ahead of it, and `log` gets one line per answer.
 */
export async function startModelServer(
  model: LocalLanguageModel,
  opts: { host?: string; port?: number; log?: (line: string) => void } = {},
): Promise<ModelServer> {
  await model.load();
  const host = opts.host ?? '127.0.0.1';
  const app = modelApp(model, opts.log ?? (() => {}));
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port: opts.port ?? 0 }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    model: servedModelName(model),
    url: `http://${urlHost}:${port}/v1`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
