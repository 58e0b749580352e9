import type { AppCallContext, AppCallResult, AppHandler, ContentPart } from '../apps/index.js';
import { isContentResult } from '../apps/index.js';
import type { Api, App, Catalog, HttpSecurity } from '../catalog/index.js';
import { MediaFolder } from '../mcp/index.js';
import { ApiaryError, NotFoundError, parseJsonWithinDepth, registerSecret } from '../shared/index.js';

export interface OpenApiHandlerOptions {
  /** Base URLs by app id, overriding the catalog's (e.g. a staging server). */
  baseUrls?: Readonly<Record<string, string>>;
  /** Where secrets are read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Time limit of one HTTP attempt in ms (default 30 000). */
  timeoutMs?: number;
  /** Retries after a 429 (any method) or a 5xx / network failure (read-only calls only); default 2. */
  maxRetries?: number;
  /** First backoff delay when the server gives no Retry-After, doubled on each retry (default 500 ms). */
  retryDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the call fails at once (default 10 000 ms). */
  maxRetryDelayMs?: number;
  /** Where images and binary responses are written (default a temp folder, deleted by `close`/at exit). */
  media?: MediaFolder;
  fetch?: typeof globalThis.fetch;
}

const RETRYABLE_5XX = new Set([500, 502, 503, 504]);
/** A response body quoted in an error is cut here: enough to say what the server objected to. */
const MAX_QUOTED_CHARS = 500;
/** Largest response body read (a hostile or broken server could send gigabytes): 16 MiB. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/** The body, read up to MAX_RESPONSE_BYTES; a longer one is refused (TOOL_FAILED) without reading the rest. */
async function boundedBody(response: Response, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await response.body?.cancel().catch(() => {});
      throw new ApiaryError(
        'TOOL_FAILED',
        `${what}: the response is over ${MAX_RESPONSE_BYTES} bytes (the limit of a response read)`,
      );
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

/** The delay a Retry-After header asks for, in ms (seconds or an HTTP date), or undefined. */
function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A query or header value as text: lists are handled by the caller, objects sent as JSON. */
const asText = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

interface Request {
  url: URL;
  init: RequestInit & { headers: Record<string, string> };
}

/** The request an API call is: path filled in (each value encoded), query, headers and JSON body. */
function buildRequest(app: App, api: Api, baseUrl: string, args: Record<string, unknown>): Request {
  const http = api.http!;
  const headers: Record<string, string> = { accept: 'application/json, text/*;q=0.9, */*;q=0.8' };
  const query: Array<[string, string]> = [];
  let body: Record<string, unknown> | undefined;
  let wholeBody: { value: unknown } | undefined;
  let path = http.path;
  for (const [param, value] of Object.entries(args)) {
    const where = http.arguments[param];
    if (!where || value === undefined || value === null) continue;
    const name = where.name ?? param;
    switch (where.in) {
      case 'path':
        path = path.replaceAll(`{${name}}`, encodeURIComponent(asText(value)));
        break;
      case 'query':
        for (const v of Array.isArray(value) ? value : [value]) query.push([name, asText(v)]);
        break;
      case 'header':
        headers[name.toLowerCase()] = asText(value);
        break;
      case 'body':
        body = { ...body, [name]: value };
        break;
      case 'whole-body':
        wholeBody = { value };
        break;
    }
  }
  const unfilled = path.match(/\{[^}]+\}/);
  if (unfilled)
    throw new ApiaryError('INPUT_INVALID', `${app.id}.${api.name}: path parameter ${unfilled[0]} is missing`);
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  for (const [k, v] of query) url.searchParams.append(k, v);
  const init: Request['init'] = { method: http.method, headers };
  const payload = wholeBody ? wholeBody.value : body;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(payload);
  }
  return { url, init };
}

/**
 * Adds the credentials of the first security alternative whose secrets are all set; an API that
 * needs credentials none of which are set fails naming the variables to set.
 */
function authenticate(app: App, api: Api, req: Request, env: OpenApiHandlerOptions['env']): void {
  const alternatives = api.http!.security ?? [];
  if (!alternatives.length || alternatives.some((alt) => alt.length === 0)) return;
  const schemes = new Map((app.http?.security ?? []).map((s) => [s.name, s]));
  const secret = (s: HttpSecurity) => env?.[s.env] || undefined;
  for (const alt of alternatives) {
    const used = alt.map((name) => schemes.get(name));
    if (!used.every((s): s is HttpSecurity => s !== undefined && secret(s) !== undefined)) continue;
    for (const s of used) {
      const value = secret(s)!;
      registerSecret(value);
      if (s.type === 'bearer') req.init.headers.authorization = `Bearer ${value}`;
      else if (s.type === 'basic')
        req.init.headers.authorization = `Basic ${Buffer.from(value).toString('base64')}`;
      else if (s.in === 'query') req.url.searchParams.set(s.paramName!, value);
      else if (s.in === 'cookie')
        req.init.headers.cookie = `${req.init.headers.cookie ? `${req.init.headers.cookie}; ` : ''}${s.paramName}=${encodeURIComponent(value)}`;
      else req.init.headers[s.paramName!.toLowerCase()] = value;
    }
    return;
  }
  const wanted = alternatives
    .map((alt) => alt.map((n) => schemes.get(n)?.env ?? `(unknown scheme "${n}")`).join(' and '))
    .join(', or ');
  throw new ApiaryError('USAGE', `${app.id}.${api.name} needs credentials: set ${wanted}`);
}

/** A response as a result: JSON objects as records, lists of objects as rows, other JSON, text and media as content parts. */
async function responseResult(response: Response, media: MediaFolder, stem: string): Promise<AppCallResult> {
  const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const bytes = await boundedBody(response, stem);
  if (/^application\/([\w.+-]*\+)?json$/.test(type)) {
    const text = bytes.toString('utf8');
    if (!text.trim()) return { status: response.status };
    // nested deeper than MAX_JSON_DEPTH is refused: what records and prints the result recurses.
    // The server's fault, not the caller's: TOOL_FAILED, not the repairable INPUT_INVALID.
    let value: unknown;
    try {
      value = parseJsonWithinDepth(text, { file: `${stem} response` });
    } catch (error) {
      throw new ApiaryError('TOOL_FAILED', `${stem}: ${(error as Error).message}`, { cause: error });
    }
    const isObject = (v: unknown): v is Record<string, unknown> =>
      v !== null && typeof v === 'object' && !Array.isArray(v);
    if (isObject(value) && !isContentResult(value)) return value;
    if (Array.isArray(value) && value.length > 0 && value.every(isObject)) return value;
    return { content: [{ type: 'json', value }] };
  }
  if (bytes.length === 0) return { status: response.status };
  if (type.startsWith('text/') || type === 'application/xml' || type === '')
    return { content: [{ type: 'text', text: bytes.toString('utf8') }] };
  const path = media.write(stem, bytes.toString('base64'), type);
  const part: ContentPart = type.startsWith('image/')
    ? { type: 'image', path, mediaType: type }
    : { type: 'file', path, mediaType: type };
  return { content: [part] };
}

/** A failed response as the error agents see: 400/422 repairable input, 401/403 permission, 404 not found. */
async function statusError(response: Response, what: string): Promise<ApiaryError> {
  const text = (await response.text().catch(() => '')).slice(0, MAX_QUOTED_CHARS);
  const message = `${what}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${text ? `: ${text}` : ''}`;
  const code =
    response.status === 400 || response.status === 422
      ? 'INPUT_INVALID'
      : response.status === 401 || response.status === 403
        ? 'PERMISSION_DENIED'
        : response.status === 404
          ? 'NOT_FOUND'
          : 'TOOL_FAILED';
  return new ApiaryError(code, message);
}

function appHandler(
  app: App,
  apis: readonly Api[],
  opts: OpenApiHandlerOptions,
  media: MediaFolder,
): AppHandler {
  const byName = new Map(apis.map((a) => [a.name, a]));
  const fetchFn = opts.fetch ?? globalThis.fetch;
  const env = opts.env ?? process.env;
  const maxRetries = Math.max(0, opts.maxRetries ?? 2);
  const baseUrl = opts.baseUrls?.[app.id] ?? app.http?.baseUrl ?? '';
  return {
    appId: app.id,
    owner: app.owner,
    async call(name: string, args: Record<string, unknown>, ctx: AppCallContext): Promise<AppCallResult> {
      if (ctx.caller !== app.owner)
        throw new ApiaryError(
          'PERMISSION_DENIED',
          `${app.id}: call to "${name}" refused: caller "${ctx.caller}" is not the app's owner "${app.owner}"`,
        );
      const api = byName.get(name);
      if (!api?.http) throw new NotFoundError(`HTTP API of ${app.id}`, name, [...byName.keys()]);
      if (!/^https?:\/\//i.test(baseUrl))
        throw new ApiaryError(
          'USAGE',
          `${app.id} has no absolute base URL (${JSON.stringify(baseUrl)}): give one (catalog import openapi --base-url)`,
        );
      const what = `${api.http.method} ${api.http.path} (${app.id}.${name})`;
      for (let attempt = 0; ; attempt++) {
        const req = buildRequest(app, api, baseUrl, args);
        authenticate(app, api, req, env);
        const signal = AbortSignal.any([
          AbortSignal.timeout(opts.timeoutMs ?? 30_000),
          ...(ctx.signal ? [ctx.signal] : []),
        ]);
        let response: Response;
        try {
          response = await fetchFn(req.url, { ...req.init, signal });
        } catch (error) {
          if (ctx.signal?.aborted) throw error;
          const timedOut = (error as Error)?.name === 'TimeoutError';
          // a request that was sent may have taken effect: only read-only calls are sent again
          if (api.transactional || attempt >= maxRetries)
            throw new ApiaryError(
              'TOOL_FAILED',
              `${what}: ${timedOut ? `no answer within ${opts.timeoutMs ?? 30_000} ms` : `request failed: ${(error as Error)?.message ?? error}`}`,
              { cause: error },
            );
          await pause((opts.retryDelayMs ?? 500) * 2 ** attempt, ctx.signal);
          continue;
        }
        if (response.ok) return responseResult(response, media, `${app.id}-${name}`);
        // 429: the server refused before doing anything, so even a transactional call is sent again
        const retryable =
          response.status === 429 || (!api.transactional && RETRYABLE_5XX.has(response.status));
        if (retryable && attempt < maxRetries) {
          const delay =
            retryAfterMs(response.headers.get('retry-after')) ?? (opts.retryDelayMs ?? 500) * 2 ** attempt;
          const limit = opts.maxRetryDelayMs ?? 10_000;
          if (delay <= limit) {
            await response.body?.cancel().catch(() => undefined);
            await pause(delay, ctx.signal);
            continue;
          }
          const error = await statusError(response, what);
          throw new ApiaryError(
            error.code,
            `${error.message} (Retry-After ${Math.ceil(delay / 1000)} s is over the ${limit} ms limit)`,
          );
        }
        throw await statusError(response, what);
      }
    },
  };
}

/** The handlers of a catalog's HTTP apps, and the media folder their images are written to. */
export interface OpenApiHandlers {
  handlers: AppHandler[];
  /** Deletes the images and files responses were written to. */
  close(): void;
}

/**
 * One handler per app of `catalog` that has `http` (imported by `openApiToCatalog` or `catalog
 * import openapi`), each executing its APIs as HTTP requests under the app's owner identity.
 */
export function openApiHandlers(catalog: Catalog, opts: OpenApiHandlerOptions = {}): OpenApiHandlers {
  const media = opts.media ?? new MediaFolder();
  const handlers = catalog.apps
    .filter((app) => app.http)
    .map((app) =>
      appHandler(
        app,
        catalog.apis.filter((a) => a.app === app.id && a.http),
        opts,
        media,
      ),
    );
  return { handlers, close: () => media.remove() };
}
