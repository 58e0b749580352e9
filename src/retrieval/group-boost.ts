import { topK } from './top-k.js';
import type { RetrievalHit, Retriever } from './types.js';

/**
 * Adds group-level evidence to document scores: score(d) = doc(d) + λ · group(g(d)), where
 * `groups` ranks group documents (e.g. one text per tool: its name, description and all its API
 * names and descriptions) and `groupOf[d]` is the group of document d. With BM25 on both levels
 * this is a two-field BM25 that rewards APIs of the tool the query is about (ToolBench G1 queries
 * ask for several APIs of one tool).
 */
export class GroupBoostRetriever implements Retriever {
  readonly name: string;
  constructor(
    private readonly docs: Retriever,
    private readonly groups: Retriever,
    private readonly groupOf: Uint32Array,
    private readonly lambda = 1,
    name?: string,
  ) {
    this.name = name ?? `${docs.name}+group(${groups.name})`;
  }

  async scoreAll(query: string): Promise<Float32Array> {
    const [d, g] = await Promise.all([this.docs.scoreAll(query), this.groups.scoreAll(query)]);
    const out = new Float32Array(d.length);
    for (let i = 0; i < d.length; i++)
      out[i] = (d[i] as number) + this.lambda * (g[this.groupOf[i] as number] as number);
    return out;
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return topK(await this.scoreAll(query), k);
  }
}

/** Groups documents by a key: returns the group of each document and each group's members. */
export function groupDocuments(keys: readonly string[]): { groupOf: Uint32Array; members: number[][] } {
  const ids = new Map<string, number>();
  const groupOf = new Uint32Array(keys.length);
  const members: number[][] = [];
  keys.forEach((k, i) => {
    let g = ids.get(k);
    if (g === undefined) {
      g = members.length;
      ids.set(k, g);
      members.push([]);
    }
    groupOf[i] = g;
    (members[g] as number[]).push(i);
  });
  return { groupOf, members };
}
