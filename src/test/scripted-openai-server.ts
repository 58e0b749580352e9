import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fnv1a32 } from '../shared/index.js';

/** A fault the scripted server can inject instead of a normal completion. */
export type ScriptedFault = 'timeout' | 'http429' | 'http500' | 'invalid-json' | 'empty-choices';

/**
 * What the script returns for one chat request: a plain reply text, a fault, or a text with
 * explicit token usage (otherwise usage is estimated as whitespace-separated word counts).
 */
export type ScriptedReply =
  | string
  | { fault: ScriptedFault }
  | { text: string; usage?: { prompt_tokens: number; completion_tokens: number } };

export interface ScriptedChatMessage {
  role: string;
  content: string;
}

export interface ScriptedChatRequest {
  messages: ScriptedChatMessage[];
  model: string;
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
}

export interface ScriptedOpenAiServer {
  /** Base URL ending in `/v1`, e.g. `http://127.0.0.1:43123/v1`. */
  url: string;
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

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Starts a real OpenAI-compatible HTTP server on loopback whose chat answers come from a script.
 * Implements `POST /v1/chat/completions` (non-streaming, with usage) and `POST /v1/embeddings`.
 * Faults: `timeout` never answers (the client must time out; `close()` drops the socket),
 * `http429`/`http500` answer with that status, `invalid-json` sends a broken body,
 * `empty-choices` sends a valid body with `choices: []`.
 */
export async function startScriptedOpenAiServer(
  opts: ScriptedOpenAiServerOptions,
): Promise<ScriptedOpenAiServer> {
  const host = opts.host ?? '127.0.0.1';
  const dimension = opts.embeddingDimension ?? 64;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let counter = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '').split('?')[0] ?? '';
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
      requests.push({ path, model: String(body.model ?? ''), messages: [], body, headers: req.headers });
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
      (m: { role?: unknown; content?: unknown }) => ({
        role: String(m.role ?? ''),
        content: contentText(m.content),
      }),
    );
    const model = String(body.model ?? '');
    const record: RecordedRequest = { path, model, messages, body, headers: req.headers };
    requests.push(record);
    const reply = await opts.respond({ messages, model, body });
    record.reply = reply;

    if (typeof reply === 'object' && 'fault' in reply) {
      switch (reply.fault) {
        case 'timeout':
          return; // never answer; the socket is destroyed by the client abort or by close()
        case 'http429':
          sendJson(res, 429, { error: { message: 'rate limited (scripted)', type: 'rate_limit' } });
          return;
        case 'http500':
          sendJson(res, 500, { error: { message: 'internal error (scripted)', type: 'server_error' } });
          return;
        case 'invalid-json':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"id": "broken", "choices": [');
          return;
        case 'empty-choices':
          sendJson(res, 200, {
            id: `chatcmpl-scripted-${++counter}`,
            object: 'chat.completion',
            created: 0,
            model,
            choices: [],
            usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
          });
          return;
      }
    }
    const text = typeof reply === 'string' ? reply : reply.text;
    const usage =
      typeof reply === 'object' && 'usage' in reply && reply.usage
        ? reply.usage
        : {
            prompt_tokens: messages.reduce((s, m) => s + wordCount(m.content), 0),
            completion_tokens: wordCount(text),
          };
    sendJson(res, 200, {
      id: `chatcmpl-scripted-${++counter}`,
      object: 'chat.completion',
      created: 0,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
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
