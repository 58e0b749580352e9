import { ApiaryError, redactSecrets } from '../shared/index.js';

export interface EndpointToCheck {
  /** OpenAI-compatible base URL ending in `/v1`. */
  baseURL: string;
  modelId: string;
  apiKey?: string;
}

export interface CheckEndpointDeps {
  fetch?: typeof fetch;
  /** Per request (default 10 s): a server that accepts connections but never answers is dead too. */
  timeoutMs?: number;
}

const SKIP_HINT = '(--no-endpoint-check skips this check)';

/** The innermost cause's message: `connect ECONNREFUSED …` rather than fetch's `fetch failed`. */
function rootCause(error: unknown): string {
  let e = error as { cause?: unknown; message?: string; name?: string } | undefined;
  for (let depth = 0; depth < 5 && e?.cause; depth++) e = e.cause as typeof e;
  if (e?.name === 'TimeoutError') return 'no answer before the timeout';
  return e?.message || String(e);
}

async function bodySnippet(res: Response): Promise<string> {
  const text = redactSecrets((await res.text().catch(() => '')).replace(/\s+/g, ' ').trim());
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * One cheap request before a run, so that a dead endpoint stops the run at once with its URL and
 * the cause instead of showing up as a table of failed samples. `GET <baseURL>/models` (free, lists
 * models) first; servers that do not serve it (any status but 2xx, 401, 403) get a chat call for
 * one token instead. A connection error, a timeout, a refused key or a failed chat call throws
 * `MODEL_UNREACHABLE`. Returns which request proved the endpoint alive.
 */
export async function checkModelEndpoint(
  endpoint: EndpointToCheck,
  deps: CheckEndpointDeps = {},
): Promise<{ via: 'models' | 'chat' }> {
  const doFetch = deps.fetch ?? fetch;
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const base = endpoint.baseURL.replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const request = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> => {
    try {
      return await doFetch(`${base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new ApiaryError(
        'MODEL_UNREACHABLE',
        `model endpoint ${base} did not answer: ${method} ${base}${path}: ${rootCause(error)}; ` +
          `check --base-url and that the server is running ${SKIP_HINT}`,
        { cause: error },
      );
    }
  };
  const refused = async (what: string, res: Response, hint: string) =>
    new ApiaryError(
      'MODEL_UNREACHABLE',
      `model endpoint ${base} refused the request: ${what}: HTTP ${res.status} ${await bodySnippet(res)}; ${hint} ${SKIP_HINT}`,
    );

  const list = await request('GET', '/models');
  if (list.ok) {
    await list.body?.cancel();
    return { via: 'models' };
  }
  if (list.status === 401 || list.status === 403)
    throw await refused(`GET ${base}/models`, list, 'check the API key (--api-key-env)');
  await list.body?.cancel();
  const chat = await request('POST', '/chat/completions', {
    model: endpoint.modelId,
    messages: [{ role: 'user', content: 'ping' }],
    max_tokens: 1,
  });
  if (!chat.ok) throw await refused(`POST ${base}/chat/completions`, chat, 'check --base-url and --model');
  await chat.body?.cancel();
  return { via: 'chat' };
}
