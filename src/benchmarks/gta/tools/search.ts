import { ApiaryError } from '../../../shared/index.js';
import type { ExecutableTool, SearchProvider } from '../../../tools/index.js';
import {
  formatSearchResults,
  offlineSearchProvider,
  SERPER_BASE_URL,
  serperSearchProvider,
} from '../../../tools/index.js';

export interface GoogleSearchToolOptions {
  provider: SearchProvider;
  /** Put each hit's URL after its title (AgentLego's `with_url`, default false as in GTA). */
  withUrl?: boolean;
  /** Output cut length (AgentLego's `max_out_len`, default 1500). */
  maxOutLen?: number;
}

/** The `k` argument: an int in toolmeta, but models send `3.0` or `"3"` too. */
function kArg(value: unknown): number {
  if (value === undefined || value === null) return 10;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw new ApiaryError(
      'TOOL_FAILED',
      `GoogleSearch: argument "k" must be a number, got ${JSON.stringify(value)}`,
    );
  return Math.max(0, Math.trunc(n));
}

/**
 * GTA's GoogleSearch (`query`, `k` = 10): the provider's results rendered as AgentLego renders
 * Serper's (`1 - <title>: <snippet>` entries), so a model sees the text GTA's tool server gives.
 */
export function googleSearchTool(opts: GoogleSearchToolOptions): ExecutableTool {
  return {
    name: 'GoogleSearch',
    unavailable: () => opts.provider.unavailable?.(),
    async run(args, ctx) {
      const query = args.query;
      if (typeof query !== 'string' || query.trim() === '')
        throw new ApiaryError('TOOL_FAILED', 'GoogleSearch: argument "query" must be a non-empty string');
      const k = kArg(args.k);
      const results = await opts.provider.search(query, k, ctx.signal);
      const text = formatSearchResults(results, {
        k,
        ...(opts.withUrl === undefined ? {} : { withUrl: opts.withUrl }),
        ...(opts.maxOutLen === undefined ? {} : { maxOutLen: opts.maxOutLen }),
      });
      return [{ type: 'text', text }];
    },
  };
}

export interface SearchProviderFlags {
  /** `--search-corpus`: a `.jsonl` file or Markdown folder (offline search). */
  corpus?: string;
  /** `--search-provider`: `offline` or `serper` (default: offline when a corpus is set, else serper). */
  provider?: string;
}

/**
 * The search provider a run configured, flags before environment: `APIARY_SEARCH_PROVIDER`
 * (`offline` | `serper`), `APIARY_SEARCH_CORPUS` (offline corpus), `SERPER_API_KEY` and
 * `APIARY_SERPER_BASE_URL` (web search). With nothing set, a Serper provider without a key: its
 * `unavailable()` says what to set.
 */
export function searchProviderFromEnv(
  env: Record<string, string | undefined>,
  flags: SearchProviderFlags = {},
): SearchProvider {
  const corpus = flags.corpus ?? env.APIARY_SEARCH_CORPUS;
  const kind = flags.provider ?? env.APIARY_SEARCH_PROVIDER ?? (corpus ? 'offline' : 'serper');
  if (kind === 'offline') {
    if (!corpus)
      return {
        name: 'offline',
        unavailable: () =>
          'set APIARY_SEARCH_CORPUS (or --search-corpus) to a .jsonl file or a folder of Markdown files',
        search: () =>
          Promise.reject(new ApiaryError('TOOL_FAILED', 'GoogleSearch: no offline corpus configured')),
      };
    return offlineSearchProvider({ corpus });
  }
  if (kind !== 'serper')
    throw new ApiaryError('USAGE', `unknown search provider "${kind}" (expected "offline" or "serper")`);
  return serperSearchProvider({
    apiKey: env.SERPER_API_KEY || undefined,
    baseURL: env.APIARY_SERPER_BASE_URL || SERPER_BASE_URL,
  });
}
