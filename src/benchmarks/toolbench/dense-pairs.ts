import { type DensePair, type RetrievalQuery, shuffleInPlace, tokenize } from '../../retrieval/index.js';
import { mulberry32, pyGet, pyString } from '../../shared/index.js';
import type { ToolBenchDoc } from './corpus.js';

/** Parameter names and descriptions of an API ("name: description", required then optional). */
export function toolBenchParameterText(d: ToolBenchDoc): string {
  const out: string[] = [];
  for (const k of ['required_parameters', 'optional_parameters']) {
    const list = pyGet(d.entry, k);
    if (!Array.isArray(list)) continue;
    for (const p of list) {
      const name = pyString(pyGet(p, 'name')) ?? '';
      const desc = pyString(pyGet(p, 'description')) ?? '';
      out.push(desc ? `${name}: ${desc}` : name);
    }
  }
  return out.filter(Boolean).join('. ');
}

/** Each document's category as a small integer, numbered in order of first appearance (the pairs' groups). */
export function toolBenchCategoryIds(docs: readonly ToolBenchDoc[]): Uint32Array {
  const ids = new Map<string, number>();
  return Uint32Array.from(docs, (d) => {
    let id = ids.get(d.category);
    if (id === undefined) {
      id = ids.size;
      ids.set(d.category, id);
    }
    return id;
  });
}

const join = (...parts: Array<string | undefined>) => parts.filter(Boolean).join('. ');
const wordy = (s: string, n: number) => tokenize(s).length >= n;

/**
 * Training pairs for the dense encoder made from the catalog alone (no benchmark query), each a
 * view of an API and the rest of it, so the encoder learns which words go together rather than
 * copying: description ↔ the API without it (category, tool, tool description, API name);
 * API name ↔ description; parameter names/descriptions ↔ tool, API name and description;
 * tool and category names ↔ API name and description; and a synthetic request joining the
 * descriptions of two APIs of one tool ↔ the first API's full text (G1 requests name several
 * APIs of a tool). Each pair's group is the API's category (batches of one category make harder
 * negatives). Shuffled with `seed`; at most `limit` pairs.
 */
export function toolBenchDensePairs(
  docs: readonly ToolBenchDoc[],
  texts: readonly string[],
  toolOf: Uint32Array,
  opts: { seed?: number; limit?: number } = {},
): DensePair[] {
  const rand = mulberry32(opts.seed ?? 42);
  const members = new Map<number, number[]>();
  toolOf.forEach((t, i) => {
    const m = members.get(t);
    if (m) m.push(i);
    else members.set(t, [i]);
  });
  const category = toolBenchCategoryIds(docs);
  const pairs: DensePair[] = [];
  docs.forEach((d, i) => {
    const group = category[i] as number;
    const n = pairs.length;
    const hasDesc = wordy(d.description, 3);
    if (hasDesc) {
      pairs.push({ query: d.description, doc: join(d.category, d.tool, d.toolDescription, d.api) });
      pairs.push({ query: join(d.tool, d.api), doc: d.description });
    }
    const params = toolBenchParameterText(d);
    if (wordy(params, 2)) pairs.push({ query: params, doc: join(d.tool, d.api, d.description) });
    pairs.push({ query: join(d.category, d.tool), doc: join(d.api, d.description) });
    const mates = members.get(toolOf[i] as number) ?? [];
    if (hasDesc && mates.length > 1) {
      const j = mates[Math.floor(rand() * mates.length)] as number;
      const other = docs[j] as ToolBenchDoc;
      if (j !== i && other.description)
        pairs.push({ query: `${d.description} and ${other.description}`, doc: texts[i] as string });
    }
    for (let k = n; k < pairs.length; k++) (pairs[k] as DensePair).group = group;
  });
  shuffleInPlace(pairs, rand);
  return opts.limit !== undefined ? pairs.slice(0, opts.limit) : pairs;
}

/** An API name as words, without a leading "get" ("stock/calendar-events" → "stock calendar events"). */
const namePhrase = (api: string) => tokenize(api).join(' ').replace(/^get /, '');

/** The first string parameter default of an API that reads as a value (a ticker, an id, a city), if any. */
function firstDefault(d: ToolBenchDoc): string | undefined {
  for (const k of ['required_parameters', 'optional_parameters']) {
    const list = pyGet(d.entry, k);
    if (!Array.isArray(list)) continue;
    for (const p of list) {
      const text = pyString(pyGet(p, 'default'));
      if (text && text.length >= 2 && text.length <= 40 && !/^(true|false|none|null)$/i.test(text))
        return text;
    }
  }
  return undefined;
}

const OPENERS = [
  'Can you get me',
  'I need',
  'Please provide',
  "I'd like to know",
  'Could you fetch',
  'Show me',
];

/**
 * Request-like training queries made from the catalog alone: for each tool with 2+ APIs,
 * `perTool` times, 2–4 of its APIs named in one request the way users list what they want
 * ("Can you get me the calendar events, cashflow statement and recommendation trend for AAPL?"),
 * each API by its name's words or its description, with a parameter default as the object.
 * Each is a query whose relevant documents are the named APIs (ids `synthetic:<n>`), so it trains
 * through `toolBenchQueryPairs` like a benchmark request, hard negatives included.
 */
export function toolBenchSyntheticRequests(
  docs: readonly ToolBenchDoc[],
  toolOf: Uint32Array,
  opts: { perTool?: number; seed?: number } = {},
): RetrievalQuery[] {
  const rand = mulberry32((opts.seed ?? 42) + 7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const members = new Map<number, number[]>();
  toolOf.forEach((t, i) => {
    const m = members.get(t);
    if (m) m.push(i);
    else members.set(t, [i]);
  });
  const out: RetrievalQuery[] = [];
  for (let r = 0; r < (opts.perTool ?? 1); r++)
    for (const mates of members.values()) {
      if (mates.length < 2) continue;
      const k = Math.min(mates.length, 2 + Math.floor(rand() * 3));
      const chosen = shuffleInPlace([...mates], rand).slice(0, k);
      const phrases = chosen.map((i) => {
        const d = docs[i] as ToolBenchDoc;
        const desc = d.description.split(/(?<=[.?!])\s/)[0]?.replace(/[.?!]+$/, '') ?? '';
        return wordy(desc, 2) && rand() < 0.5
          ? desc.charAt(0).toLowerCase() + desc.slice(1)
          : `the ${namePhrase(d.api)}`;
      });
      const list =
        phrases.length > 1 ? `${phrases.slice(0, -1).join(', ')} and ${phrases.at(-1)}` : phrases[0];
      const value = firstDefault(docs[chosen[0] as number] as ToolBenchDoc);
      out.push({
        id: `synthetic:${out.length}`,
        text: `${pick(OPENERS)} ${list}${value ? ` for ${value}` : ''}?`,
        relevant: chosen,
      });
    }
  return out;
}

/**
 * Defaults of the dense encoder's ToolBench training (`retrieve train --retriever dense`,
 * perf/dense-retrieval.ts): repeats of each (request, API) pair, hard negatives mined per request,
 * the weight of the tool's vector in an API's, the share of a known word's weight on its own row,
 * the weight of the best query sentence, the weight of word matching (late interaction), the MNR
 * softmax scale of the cosines, and the synthetic requests per tool with the hard negatives mined
 * for each (docs/retrieval.md, "Offline dense retriever").
 */
export const TOOLBENCH_DENSE_DEFAULTS = {
  oversample: 8,
  negatives: 4,
  toolContext: 0.5,
  wordRowShare: 0.5,
  sentenceWeight: 0.5,
  wordMatchWeight: 0.5,
  scale: 12,
  syntheticRequests: 4,
  syntheticNegatives: 2,
} as const;

export interface QueryPairOptions {
  /** Each (query, relevant API) pair is repeated this many times (default `TOOLBENCH_DENSE_DEFAULTS`). */
  oversample?: number;
  /** Mined hard negatives per query id (`mineHardNegatives`); the repeats take them in turn. */
  negatives?: ReadonlyMap<string, readonly number[]>;
}

/**
 * Training pairs from benchmark queries (TPTU-v2's API retriever learns from exactly these):
 * (request, each relevant API's text), repeated `oversample` times. The group is the API's
 * category (as in `toolBenchDensePairs`), the key the request (its pairs never share a batch:
 * they would be each other's false negatives), and with `negatives` the r-th repeat of the j-th
 * relevant API carries the query's hard negative number (r·|relevant| + j) mod |negatives|.
 */
export function toolBenchQueryPairs(
  suite: { docs: readonly ToolBenchDoc[]; texts: readonly string[] },
  queries: readonly RetrievalQuery[],
  opts: QueryPairOptions = {},
): DensePair[] {
  const category = toolBenchCategoryIds(suite.docs);
  const pairs: DensePair[] = [];
  for (let r = 0; r < (opts.oversample ?? TOOLBENCH_DENSE_DEFAULTS.oversample); r++)
    for (const q of queries) {
      const negs = opts.negatives?.get(q.id) ?? [];
      q.relevant.forEach((d, j) => {
        const pair: DensePair = {
          query: q.text,
          doc: suite.texts[d] as string,
          group: category[d] as number,
          key: q.text,
        };
        if (negs.length)
          pair.negative = suite.texts[negs[(r * q.relevant.length + j) % negs.length] as number];
        pairs.push(pair);
      });
    }
  return pairs;
}
