/** A retrieval test query: text and the indices of its relevant corpus documents. */
import type { RetrievalQuery } from '../../retrieval/index.js';
import { pyGet, pyString } from '../../shared/index.js';
import type { ToolBenchDoc } from './corpus.js';
import type { ToolBenchQuery } from './queries.js';

export interface RetrievalSet {
  queries: RetrievalQuery[];
  /** Queries dropped because a gold API is not in the corpus (ids). */
  dropped: string[];
}

const key = (...parts: string[]) => parts.join('\u0000');

/**
 * Maps each query's gold `[tool_name, api_name]` pairs to documents of a tool-environment corpus.
 * A gold pair is looked up with the category of the query's own ApiEntry for that pair
 * (relevance is judged within the query's `api_list`, docs/retrieval.md, "ToolBench query format"): candidates share
 * (category, tool, api); if several remain (tool names are not unique, and 177 tools repeat an
 * API name) the one whose description equals the entry's is taken, else the first.
 * Queries with any gold API missing from the corpus are dropped (and listed); identical query
 * texts are merged with the union of their relevant documents (docs/retrieval.md, "ToolBench query format").
 */
export function buildToolBenchRetrievalSet(
  queries: readonly ToolBenchQuery[],
  corpus: readonly ToolBenchDoc[],
  idPrefix = '',
): RetrievalSet {
  const byName = new Map<string, number[]>();
  corpus.forEach((d, i) => {
    const k = key(d.category, d.tool, d.api);
    const list = byName.get(k);
    if (list) list.push(i);
    else byName.set(k, [i]);
  });
  const byText = new Map<string, RetrievalQuery>();
  const out: RetrievalQuery[] = [];
  const dropped: string[] = [];
  for (const q of queries) {
    const relevant: number[] = [];
    let ok = q.relevant.length > 0;
    for (const [tool, api] of q.relevant) {
      const entry = q.apiList.find(
        (e) => pyString(pyGet(e, 'tool_name')) === tool && pyString(pyGet(e, 'api_name')) === api,
      );
      const category = entry ? (pyString(pyGet(entry, 'category_name')) ?? '') : undefined;
      let cands: number[] = [];
      if (category !== undefined) cands = byName.get(key(category, tool, api)) ?? [];
      if (!cands.length) {
        ok = false;
        break;
      }
      const desc = entry ? (pyString(pyGet(entry, 'api_description')) ?? '') : '';
      const doc = cands.find((i) => corpus[i]?.description === desc) ?? (cands[0] as number);
      if (!relevant.includes(doc)) relevant.push(doc);
    }
    const id = `${idPrefix}${q.queryId}`;
    if (!ok) {
      dropped.push(id);
      continue;
    }
    const prev = byText.get(q.query);
    if (prev) {
      for (const d of relevant) if (!prev.relevant.includes(d)) prev.relevant.push(d);
      continue;
    }
    const rq = { id, text: q.query, relevant };
    byText.set(q.query, rq);
    out.push(rq);
  }
  return { queries: out, dropped };
}
