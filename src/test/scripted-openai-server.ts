import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fnv1a32 } from '../shared/index.js';

/** A fault the scripted server can inject instead of a normal completion. */
export type ScriptedFault = 'timeout' | 'http429' | 'http500' | 'invalid-json' | 'empty-choices';

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * One tool call the scripted model makes. `arguments` that are not a string are JSON-stringified;
 * a string is sent verbatim (so a test can send malformed JSON). `id` defaults to
 * `call_<response number>_<index>`.
 */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments: unknown;
}

/**
 * What the script returns for one chat request: a plain reply text, a fault, a text with explicit
 * token usage, or tool calls (optionally with text beside them; `finish_reason: 'tool_calls'`).
 * Usage defaults to whitespace-separated word counts (tool calls count the words of their name and
 * argument text). `latencyMs` delays that one answer; `headers` are extra response headers (e.g.
 * `retry-after` on an `http429` fault).
 */
export type ScriptedReply =
  | string
  | { fault: ScriptedFault; headers?: Record<string, string>; latencyMs?: number }
  | { text: string; usage?: ScriptedUsage; latencyMs?: number }
  | { text?: string; toolCalls: ScriptedToolCall[]; usage?: ScriptedUsage; latencyMs?: number };

/** A tool call as it travels in OpenAI chat messages. */
export interface ScriptedWireToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}

/**
 * A request message: `content` is the flattened text (empty when absent); assistant messages carry
 * their `tool_calls`, tool messages their `tool_call_id`, exactly as sent.
 */
export interface ScriptedChatMessage {
  role: string;
  content: string;
  tool_calls?: ScriptedWireToolCall[];
  tool_call_id?: string;
}

export interface ScriptedChatRequest {
  messages: ScriptedChatMessage[];
  model: string;
  /** The request's `tools` (OpenAI function tools with JSON Schema parameters), when sent. */
  // biome-ignore lint/suspicious/noExplicitAny: raw request JSON, inspected freely by tests
  tools?: any[];
  /** The request's `tool_choice`, when sent. */
  // biome-ignore lint/suspicious/noExplicitAny: raw request JSON, inspected freely by tests
  tool_choice?: any;
  /** The raw JSON body as received (any shape: tests read fields such as `top_p`). */
  // biome-ignore lint/suspicious/noExplicitAny: raw request JSON, inspected freely by tests
  body: any;
}

/** One request the server received (chat or embeddings), in arrival order. */
export interface RecordedRequest {
  path: string;
  model: string;
  /** Chat messages (empty for embeddings). */
  messages: ScriptedChatMessage[];
  // biome-ignore lint/suspicious/noExplicitAny: raw request JSON, inspected freely by tests
  body: any;
  headers: Record<string, string | string[] | undefined>;
  /** What the script answered (chat only). */
  reply?: ScriptedReply;
}

export interface ScriptedOpenAiServerOptions {
  respond: (req: ScriptedChatRequest) => ScriptedReply | Promise<ScriptedReply>;
  /** Delay before every answer (ms). */
  latencyMs?: number;
  host?: '127.0.0.1';
  /** Dimension of the hashed bag-of-words vectors served by /v1/embeddings (default 64). */
  embeddingDimension?: number;
  /** Model ids listed by `GET /v1/models` (default `['scripted']`); null: that route answers 404. */
  modelIds?: readonly string[] | null;
  /**
   * Keep every request in `requests` (default true). A load test turns it off: 40,000 requests
   * with a 33 KB prompt each are 1.4 GB of retained bodies, and the server's garbage collector
   * then costs more than its answers.
   */
  recordRequests?: boolean;
}

export interface ScriptedOpenAiServer {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:43123/v1`. */
  url: string;
  /** The requests received, in order (empty with `recordRequests: false`). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Flattens OpenAI message content (string or array of parts) to a string. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) =>
        part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join('');
  }
  return content == null ? '' : String(content);
}

function wordCount(text: string): number {
  const words = text.split(/\s+/).filter((w) => w.length > 0);
  return words.length;
}

/**
 * Deterministic hashed bag-of-words embedding: lowercase word tokens hashed into `dimension`
 * buckets with a hash-derived sign, then L2-normalised (all-zero for text without words).
 */
export function hashedBagOfWords(text: string, dimension: number): number[] {
  const vec = new Array<number>(dimension).fill(0);
  for (const token of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const h = fnv1a32(token);
    const idx = h % dimension;
    vec[idx] = (vec[idx] ?? 0) + ((h >>> 31) & 1 ? -1 : 1);
  }
  const norm = Math.sqrt(vec.reduce((s, v) => s + v * v, 0));
  return norm === 0 ? vec : vec.map((v) => v / norm);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A request message as scripts see it: flattened content plus the tool fields, when present. */
function toScriptedMessage(m: {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}): ScriptedChatMessage {
  const message: ScriptedChatMessage = { role: String(m.role ?? ''), content: contentText(m.content) };
  if (Array.isArray(m.tool_calls)) message.tool_calls = m.tool_calls as ScriptedWireToolCall[];
  if (m.tool_call_id !== undefined) message.tool_call_id = String(m.tool_call_id);
  return message;
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a real OpenAI-compatible HTTP server on loopback whose chat answers come from a script.
 * Implements `POST /v1/chat/completions` (non-streaming, with usage), `POST /v1/embeddings` and
 * `GET /v1/models`.
 * Faults: `timeout` never answers (the client must time out; `close()` drops the socket),
 * `http429`/`http500` answer with that status, `invalid-json` sends a broken body,
 * `empty-choices` sends a valid body with `choices: []`. A `toolCalls` reply answers with
 * `message.tool_calls` and `finish_reason: 'tool_calls'` (content `null` when there is no text).
 */
export async function startScriptedOpenAiServer(
  opts: ScriptedOpenAiServerOptions,
): Promise<ScriptedOpenAiServer> {
  const host = opts.host ?? '127.0.0.1';
  const dimension = opts.embeddingDimension ?? 64;
  const requests: RecordedRequest[] = [];
  const record = (r: RecordedRequest) => {
    if (opts.recordRequests !== false) requests.push(r);
  };
  const sockets = new Set<Socket>();
  let counter = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    // The model list (what `apiary eval` checks before a run); not recorded in `requests`.
    if (req.method === 'GET' && path.endsWith('/models')) {
      const ids = opts.modelIds === undefined ? ['scripted'] : opts.modelIds;
      if (ids === null) sendJson(res, 404, { error: { message: `no route ${path}` } });
      else sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model' })) });
      return;
    }
    if (req.method !== 'POST') {
      sendJson(res, 405, { error: { message: 'method not allowed' } });
      return;
    }
    const raw = await readBody(req);
    // biome-ignore lint/suspicious/noExplicitAny: untrusted JSON, fields are checked where read
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      sendJson(res, 400, { error: { message: 'request body is not JSON' } });
      return;
    }
    if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));

    if (path.endsWith('/embeddings')) {
      const inputs: string[] = Array.isArray(body.input)
        ? body.input.map(String)
        : [String(body.input ?? '')];
      record({ path, model: String(body.model ?? ''), messages: [], body, headers: req.headers });
      sendJson(res, 200, {
        object: 'list',
        model: body.model ?? 'scripted-embedding',
        data: inputs.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: hashedBagOfWords(text, dimension),
        })),
        usage: { prompt_tokens: inputs.reduce((s, t) => s + wordCount(t), 0), total_tokens: 0 },
      });
      return;
    }
    if (!path.endsWith('/chat/completions')) {
      sendJson(res, 404, { error: { message: `no route ${path}` } });
      return;
    }

    const messages: ScriptedChatMessage[] = (Array.isArray(body.messages) ? body.messages : []).map(
      toScriptedMessage,
    );
    const model = String(body.model ?? '');
    const recorded: RecordedRequest = { path, model, messages, body, headers: req.headers };
    record(recorded);
    const request: ScriptedChatRequest = { messages, model, body };
    if (body.tools !== undefined) request.tools = body.tools;
    if (body.tool_choice !== undefined) request.tool_choice = body.tool_choice;
    const reply = await opts.respond(request);
    recorded.reply = reply;
    if (typeof reply === 'object' && reply.latencyMs) await delay(reply.latencyMs);

    if (typeof reply === 'object' && 'fault' in reply) {
      const headers = reply.headers ?? {};
      switch (reply.fault) {
        case 'timeout':
          return; // never answer; the socket is destroyed by the client abort or by close()
        case 'http429':
          sendJson(res, 429, { error: { message: 'rate limited (scripted)', type: 'rate_limit' } }, headers);
          return;
        case 'http500':
          sendJson(
            res,
            500,
            { error: { message: 'internal error (scripted)', type: 'server_error' } },
            headers,
          );
          return;
        case 'invalid-json':
          res.writeHead(200, { ...headers, 'content-type': 'application/json' });
          res.end('{"id": "broken", "choices": [');
          return;
        case 'empty-choices':
          sendJson(
            res,
            200,
            {
              id: `chatcmpl-scripted-${++counter}`,
              object: 'chat.completion',
              created: 0,
              model,
              choices: [],
              usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
            },
            headers,
          );
          return;
      }
    }
    const id = ++counter;
    const text = typeof reply === 'string' ? reply : (reply.text ?? '');
    const toolCalls: ScriptedWireToolCall[] | undefined =
      typeof reply === 'object' && 'toolCalls' in reply
        ? reply.toolCalls.map((call, index) => ({
            id: call.id ?? `call_${id}_${index}`,
            type: 'function',
            function: {
              name: call.name,
              arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
            },
          }))
        : undefined;
    const usage =
      typeof reply === 'object' && 'usage' in reply && reply.usage
        ? reply.usage
        : {
            prompt_tokens: messages.reduce((s, m) => s + wordCount(m.content), 0),
            completion_tokens:
              wordCount(text) +
              (toolCalls ?? []).reduce(
                (s, c) => s + wordCount(c.function.name) + wordCount(c.function.arguments),
                0,
              ),
          };
    const message = toolCalls
      ? { role: 'assistant', content: text === '' ? null : text, tool_calls: toolCalls }
      : { role: 'assistant', content: text };
    sendJson(res, 200, {
      id: `chatcmpl-scripted-${id}`,
      object: 'chat.completion',
      created: 0,
      model,
      choices: [{ index: 0, message, finish_reason: toolCalls ? 'tool_calls' : 'stop' }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `script failed: ${String(err)}` } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
