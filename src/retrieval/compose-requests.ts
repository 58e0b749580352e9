import { mulberry32 } from '../shared/index.js';
import type { RetrievalQuery } from './types.js';

export interface ComposeOptions {
  /** Requests joined into one (default 2). */
  parts?: number;
  /** Seed of the partner draw (default 1). */
  seed?: number;
  /**
   * Family of each document (e.g. its tool's category): when given, partners are drawn only
   * among requests whose relevant documents share the family of the request's first relevant
   * document, as ToolBench's G2 requests (several tools of one category) are made.
   */
  familyOf?: ArrayLike<number>;
}

/**
 * Multi-tool requests made from single-tool ones: each query is followed by `parts − 1` other
 * queries of the list whose relevant documents belong to other groups (tools), drawn with a
 * seeded generator; the text is the parts joined by a space and the relevant documents are their
 * union. ToolBench's G2/G3 requests (several tools, one sentence or two per API) have this shape,
 * and G1 has none: the ranker learns from these how to rank when no single tool covers a request,
 * and the bench scores held-out ones. A query gets no composition when no partner with other
 * groups is found in 50 draws (200 within a family); queries without relevant documents are skipped.
 */
export function composeMultiToolRequests(
  queries: readonly RetrievalQuery[],
  groupOf: ArrayLike<number>,
  opts: ComposeOptions = {},
): RetrievalQuery[] {
  const parts = opts.parts ?? 2;
  const random = mulberry32(opts.seed ?? 1);
  const groupsOf = (q: RetrievalQuery) => new Set(q.relevant.map((d) => groupOf[d] as number));
  const familyOf = opts.familyOf;
  const inFamily = (q: RetrievalQuery, family: number | undefined) =>
    !familyOf || q.relevant.every((d) => familyOf[d] === family);
  const out: RetrievalQuery[] = [];
  for (const q of queries) {
    if (!q.relevant.length) continue;
    const used = groupsOf(q);
    const family = familyOf?.[q.relevant[0] as number];
    const picked = [q];
    // a family holds fewer partners: more draws before giving up (50 kept the old compositions)
    for (let draws = 0; picked.length < parts && draws < (familyOf ? 200 : 50); draws++) {
      const o = queries[Math.floor(random() * queries.length)] as RetrievalQuery;
      const og = groupsOf(o);
      if (!o.relevant.length || [...og].some((g) => used.has(g)) || !inFamily(o, family)) continue;
      for (const g of og) used.add(g);
      picked.push(o);
    }
    if (picked.length < parts) continue;
    out.push({
      id: picked.map((p) => p.id).join('+'),
      text: picked.map((p) => p.text).join(' '),
      relevant: [...new Set(picked.flatMap((p) => p.relevant))],
    });
  }
  return out;
}

/** Rounds of composition in a multi-tool test set (`composedTestRequests`): requests per request. */
export const COMPOSED_TEST_ROUNDS = 5;

/**
 * The multi-tool test set of a query list: `compositions` rounds of `composeMultiToolRequests`
 * with seeds fixed per round and per `parts` (100 + 10 · parts + round), so `retrieve eval
 * --compose-tools`, perf/retrieval-scale.ts and any caller score the same requests. The seeds
 * differ from the ranker's training compositions (1, 2, …).
 */
export function composedTestRequests(
  queries: readonly RetrievalQuery[],
  groupOf: ArrayLike<number>,
  parts: number,
  compositions = COMPOSED_TEST_ROUNDS,
): RetrievalQuery[] {
  return Array.from({ length: compositions }, (_, i) =>
    composeMultiToolRequests(queries, groupOf, { parts, seed: 100 + 10 * parts + i }),
  ).flat();
}
