import { ApiaryError, redactSecrets } from '../../shared/index.js';
import { type SearchProvider, type SearchResults, SearchResultsSchema } from './results.js';

export const SERPER_BASE_URL = 'https://google.serper.dev';

export interface SerperOptions {
  /** The Serper.dev API key (`SERPER_API_KEY`, the variable AgentLego reads); unset: unavailable. */
  apiKey: string | undefined;
  /** Default `https://google.serper.dev`; tests point it at a loopback server. */
  baseURL?: string;
  /** Per-request timeout (default 5000 ms, AgentLego's). */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

/** The start of an answer for an error message (the key the request carried taken out). */
const excerpt = (text: string): string => redactSecrets(text.length > 300 ? `${text.slice(0, 300)}…` : text);

/**
 * Google results through Serper.dev (the API AgentLego's GoogleSearch calls): `POST <base>/search`
 * with `{q, num}` and the key in `X-API-KEY`. An HTTP error, a body that is not JSON or not
 * Serper's shape, a timeout or a network failure is a `TOOL_FAILED` error naming the cause.
 */
export function serperSearchProvider(opts: SerperOptions): SearchProvider {
  const base = (opts.baseURL ?? SERPER_BASE_URL).replace(/\/+$/, '');
  const doFetch = opts.fetch ?? globalThis.fetch;
  const fail = (problem: string, cause?: unknown): never => {
    throw new ApiaryError('TOOL_FAILED', `GoogleSearch (serper): ${problem}`, cause ? { cause } : undefined);
  };
  return {
    name: 'serper',
    unavailable: () =>
      opts.apiKey
        ? undefined
        : 'set SERPER_API_KEY to a Serper.dev key for web search, or APIARY_SEARCH_CORPUS to a .jsonl file or Markdown folder for offline search',
    async search(query: string, k: number, signal?: AbortSignal): Promise<SearchResults> {
      if (!opts.apiKey) return fail('no API key (set SERPER_API_KEY)');
      const timeout = AbortSignal.timeout(opts.timeoutMs ?? 5000);
      let response: Response;
      try {
        response = await doFetch(`${base}/search`, {
          method: 'POST',
          headers: { 'X-API-KEY': opts.apiKey, 'Content-Type': 'application/json' },
          body: JSON.stringify({ q: query, num: k }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        return fail(`request to ${base}/search failed: ${(error as Error).message}`, error);
      }
      const text = await response.text();
      if (!response.ok) return fail(`HTTP ${response.status} from ${base}/search: ${excerpt(text)}`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (error) {
        return fail(`the answer of ${base}/search is not JSON: ${excerpt(text)}`, error);
      }
      const parsed = SearchResultsSchema.safeParse(body);
      if (!parsed.success)
        return fail(`unexpected answer shape from ${base}/search: ${parsed.error.issues[0]?.message ?? ''}`);
      return parsed.data;
    },
  };
}
