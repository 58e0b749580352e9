import { z } from 'zod';

/**
 * Search results in the shape of Serper.dev's `/search` answer (what AgentLego's GoogleSearch
 * renders): an optional answer box and knowledge graph, then the organic hits. Every provider
 * answers in this shape so that one formatter renders them all.
 */
const AttributesSchema = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

const SearchHitSchema = z.looseObject({
  title: z.string().nullish(),
  link: z.string().nullish(),
  snippet: z.string().nullish(),
  attributes: AttributesSchema.nullish(),
});

export const SearchResultsSchema = z.looseObject({
  answerBox: z
    .looseObject({
      answer: z.string().nullish(),
      snippet: z.string().nullish(),
      snippetHighlighted: z.union([z.string(), z.array(z.string())]).nullish(),
    })
    .nullish(),
  knowledgeGraph: z
    .looseObject({
      title: z.string().nullish(),
      type: z.string().nullish(),
      description: z.string().nullish(),
      attributes: AttributesSchema.nullish(),
    })
    .nullish(),
  organic: z.array(SearchHitSchema).default([]),
});
export type SearchResults = z.infer<typeof SearchResultsSchema>;

/** One search backend of the GoogleSearch tool (a web search API, an offline corpus). */
export interface SearchProvider {
  /** Shown in messages, e.g. `serper` or `offline(corpus.jsonl)`. */
  readonly name: string;
  /** What to configure before this provider can answer; `undefined` when it is ready. */
  unavailable?(): string | undefined;
  /** The first `k` results for `query`; throws an ApiaryError (`TOOL_FAILED`) on failure. */
  search(query: string, k: number, signal?: AbortSignal): Promise<SearchResults>;
}

export interface FormatSearchOptions {
  /** Organic hits rendered (the tool's `k`). */
  k: number;
  /** Put each hit's URL after its title (AgentLego's `with_url`, default false). */
  withUrl?: boolean;
  /** Longer output is cut here and ends with `...` (AgentLego's `max_out_len`, default 1500). */
  maxOutLen?: number;
}

const NO_SEARCH_RESULT = 'No good Google Search Result was found';

const attributeText = (attrs: Record<string, string | number | boolean>): string =>
  Object.entries(attrs)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ');

/**
 * The text AgentLego's GoogleSearch returns (GTA's tool server): `Answer box: …`, then
 * `<title> knowledge graph: <type>. <description>(<attributes>)`, then one `<title>: <snippet>`
 * per organic hit; each entry numbered `i - …` (newlines inside made spaces) and followed by a
 * blank line; cut at `maxOutLen` characters plus `...`.
 */
export function formatSearchResults(results: SearchResults, opts: FormatSearchOptions): string {
  const entries: string[] = [];
  const box = results.answerBox;
  if (box && Object.keys(box).length > 0) {
    const highlighted = Array.isArray(box.snippetHighlighted)
      ? box.snippetHighlighted.join(' ')
      : box.snippetHighlighted;
    entries.push(`Answer box: ${box.answer || box.snippet || highlighted || ''}`);
  }
  const kg = results.knowledgeGraph;
  if (kg && Object.keys(kg).length > 0) {
    let text = kg.title ? `${kg.title} knowledge graph: ` : 'Knowledge graph: ';
    if (kg.type) text += `${kg.type}. `;
    if (kg.description) text += kg.description;
    if (kg.attributes && Object.keys(kg.attributes).length > 0) text += `(${attributeText(kg.attributes)})`;
    entries.push(text);
  }
  for (const hit of results.organic.slice(0, Math.max(0, opts.k))) {
    let text = '';
    if (hit.title) text += `${hit.title}: `;
    if (hit.link && opts.withUrl) text += `(${hit.link})`;
    if (hit.snippet) text += hit.snippet;
    if (hit.attributes && Object.keys(hit.attributes).length > 0)
      text += `(${attributeText(hit.attributes)})`;
    entries.push(text);
  }
  if (entries.length === 0) return NO_SEARCH_RESULT;
  // Python's str.strip() then replace('\n', ' ')
  const out = entries.map((e, i) => `${i + 1} - ${e.trim().replaceAll('\n', ' ')}\n\n`).join('');
  const max = opts.maxOutLen ?? 1500;
  // Python measures and slices in code points, not UTF-16 units
  const chars = Array.from(out);
  return chars.length > max ? `${chars.slice(0, max).join('')}...` : out;
}
