/**
 * The `fetch` the model provider posts chat requests with: node:http(s) over a shared keep-alive
 * pool instead of the global fetch. Over loopback at 64–256 requests in flight, the global fetch
 * (undici's spec machinery: Request/Response objects, web streams at each step, a WebAssembly
 * HTTP parser) was about a third of a sample's CPU (docs/harness.md, Throughput); the provider
 * (request body, headers, response schema, errors) is unchanged, only the transport differs.
 *
 * What the provider relies on is kept: the response is a real `Response` (status, headers, body),
 * a connection error rejects as fetch does (`TypeError('fetch failed')` with the socket error as
 * cause, which the provider turns into its "Cannot connect to API" error), an abort rejects with
 * the signal's reason. The body is read whole before the promise resolves (chat answers are small;
 * a streamed answer then arrives in one piece). Anything else — not a string body, not http(s), a
 * redirect — goes to the global fetch.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

export interface EndpointFetchOptions {
  /**
   * Sockets per origin (default: no limit, as the global fetch). Each request in flight holds one
   * socket (no pipelining: a slow answer must not hold up the next), so a run at concurrency C
   * opens at most C; a limit below that queues requests behind each other.
   */
  maxSockets?: number;
  /** How long an idle socket is kept for the next request (default 4,000 ms; less when the server's `Keep-Alive: timeout=` hint says so). */
  idleMs?: number;
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

/** What undici's fetch sends when the caller does not say otherwise. */
const DEFAULT_HEADERS: Record<string, string> = { accept: '*/*', 'accept-encoding': 'gzip, deflate, br' };

function decoded(res: IncomingMessage): NodeJS.ReadableStream {
  switch (res.headers['content-encoding']?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(createGunzip());
    case 'deflate':
      return res.pipe(createInflate());
    case 'br':
      return res.pipe(createBrotliDecompress());
    default:
      return res;
  }
}

export function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

export function requestHeaders(init: RequestInit, body: string): Record<string, string> {
  const out: Record<string, string> = { ...DEFAULT_HEADERS };
  const given = init.headers;
  if (given instanceof Headers) for (const [key, value] of given) out[key] = value;
  else if (Array.isArray(given)) for (const [key, value] of given) out[key!.toLowerCase()] = value!;
  else if (given)
    for (const [key, value] of Object.entries(given as Record<string, string>))
      out[key.toLowerCase()] = value;
  out['content-length'] = String(Buffer.byteLength(body));
  return out;
}

/** The abort reason as fetch rejects with it (a DOMException AbortError when none was given). */
const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

/** A whole HTTP answer: what `Response` is built from. */
export interface BufferedAnswer {
  status: number;
  statusText: string;
  /** Node's raw header list: name, value, name, value… */
  rawHeaders: string[];
  body: Buffer;
  /** A 3xx with a location: not followed here (the body is empty). */
  redirect: boolean;
}

/** Keep-alive sockets for http and https, and POSTs read whole over them. */
export interface EndpointPool {
  /**
   * POSTs `body` to `url`. Rejects as fetch does: `TypeError('fetch failed')` caused by the
   * socket error, or the signal's abort reason.
   */
  post(
    url: URL,
    headers: Record<string, string>,
    body: string | ReadonlyArray<string | Buffer>,
    signal?: AbortSignal,
  ): Promise<BufferedAnswer>;
}

export function createEndpointPool(options: EndpointFetchOptions = {}): EndpointPool {
  const idleMs = options.idleMs ?? 4000;
  const pool = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? Number.POSITIVE_INFINITY,
    // idle sockets close after `timeout` (or the server's hint, less a second): Node applies the
    // hint only below this
    timeout: idleMs,
    scheduling: 'lifo' as const,
  };
  const http = new HttpAgent(pool);
  const https = new HttpsAgent(pool);
  const post: EndpointPool['post'] = (url, headers, body, signal) => {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<BufferedAnswer>((resolve, reject) => {
      let settled = false;
      const settle = () => {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: unknown) => {
        if (settled) return;
        settle();
        reject(error);
      };
      const onAbort = () => {
        fail(abortReason(signal!));
        req.destroy();
      };
      const https_ = url.protocol === 'https:';
      const req = (https_ ? httpsRequest : httpRequest)(
        url,
        { method: 'POST', headers, agent: https_ ? https : http },
        (res) => {
          const status = res.statusCode ?? 0;
          const answer = (content: Buffer, redirect: boolean) => {
            if (settled) return;
            settle();
            resolve({
              status,
              statusText: res.statusMessage ?? '',
              rawHeaders: res.rawHeaders,
              body: content,
              redirect,
            });
          };
          if (status >= 300 && status < 400 && res.headers.location !== undefined) {
            res.resume();
            answer(Buffer.alloc(0), true);
            return;
          }
          const chunks: Buffer[] = [];
          const stream = decoded(res);
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          const cut = (error: unknown) => fail(new TypeError('fetch failed', { cause: error }));
          stream.on('error', cut);
          res.on('error', cut);
          // the server closed the socket before the whole body came
          res.on('close', () => {
            if (!res.complete) cut(Object.assign(new Error('other side closed'), { code: 'ECONNRESET' }));
          });
          stream.on('end', () => answer(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), false));
        },
      );
      req.on('error', (error) => fail(new TypeError('fetch failed', { cause: error })));
      signal?.addEventListener('abort', onAbort, { once: true });
      if (typeof body === 'string') req.end(body);
      else {
        for (const chunk of body) req.write(chunk);
        req.end();
      }
    });
  };
  return { post };
}

/** The `Response` fetch would have given for this answer. */
export function answerResponse(answer: BufferedAnswer): Response {
  return new Response(NULL_BODY_STATUS.has(answer.status) ? null : answer.body, {
    status: answer.status,
    statusText: answer.statusText,
    headers: responseHeaders(answer.rawHeaders),
  });
}

/**
 * A `fetch` for the model provider (`createOpenAICompatible({ fetch })`) over `pool`'s keep-alive
 * sockets (its own pool when none is given).
 */
export function createEndpointFetch(
  options: EndpointFetchOptions = {},
  pool: EndpointPool = createEndpointPool(options),
): typeof fetch {
  const endpointFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : null;
    const method = (init.method ?? 'GET').toUpperCase();
    if (
      url === null ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      typeof init.body !== 'string' ||
      method !== 'POST' ||
      (init.redirect !== undefined && init.redirect !== 'follow')
    )
      return fetch(input, init);
    const answer = await pool.post(url, requestHeaders(init, init.body), init.body, init.signal ?? undefined);
    // redirects are rare for an API: the global fetch follows them as it always did
    return answer.redirect ? fetch(input, init) : answerResponse(answer);
  };
  return endpointFetch as typeof fetch;
}

let shared: { pool: EndpointPool; fetch: typeof fetch } | undefined;

/** The process's one endpoint pool and its fetch: every model of `resolveModelSetup` shares its sockets. */
export function sharedEndpoint(): { pool: EndpointPool; fetch: typeof fetch } {
  if (!shared) {
    const pool = createEndpointPool();
    shared = { pool, fetch: createEndpointFetch({}, pool) };
  }
  return shared;
}
