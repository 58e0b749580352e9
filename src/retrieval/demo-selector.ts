import type { Embedder, Retriever } from './types.js';

/**
 * TPTU-v2's Demo Selector: pick in-context demonstrations for an instruction from a knowledge
 * base of task-level demos (whole instruction → plan pairs) and API-level demos (one per API).
 *
 * 1. Embed the instruction and compare it (cosine) with every task demo's instruction, leaving
 *    out demos whose instruction is the instruction itself (the sample being solved).
 * 2. If some score ≥ Δ (`threshold`), return the k best of those (ties: knowledge-base order).
 * 3. Otherwise fall back to API level: retrieve the APIs relevant to the instruction
 *    (`retrieveApis`, default: cosine against the API demos' texts) and return one example call
 *    of each, skipping examples taken from the instruction itself.
 */

/** A pair inserted as a user/assistant exchange before the real instruction. */
export interface AgentDemo {
  instruction: string;
  reply: string;
}

/** A solved task: the instruction and its gold plan reply in AppBench line format. */
export interface TaskDemo {
  /** Stable id (e.g. the AppBench sample id `sm-3`). */
  id: string;
  instruction: string;
  reply: string;
  /** Apps used, in first-use order. */
  apps: string[];
  /** Catalog ids (`App.api`) of the APIs used, in first-use order. */
  apis: string[];
}

/** One example call of an API. */
export interface ApiDemoExample {
  /** One line of AppBench call text, e.g. `Weather: [temperature = getweather(#city='Oslo')]`. */
  reply: string;
  /** `gold`: a step copied from a gold plan; `synthetic`: built from the catalog with placeholders. */
  source: 'gold' | 'synthetic';
  /** Instruction of the gold record the step comes from (never shown for that instruction). */
  from?: string;
}

/** The API-level demonstration of one API. */
export interface ApiDemo {
  /** Catalog id, `App.api`. */
  api: string;
  /** Text embedded by the default API retrieval (app, API name and description). */
  text: string;
  /** User turn of the demo pair. */
  instruction: string;
  /** Example calls, preferred first; the selector shows the first one not taken from the query. */
  examples: ApiDemoExample[];
}

export interface ApiHit {
  api: string;
  score: number;
}

/** Returns the catalog ids of the APIs relevant to an instruction, best first. */
export type RetrieveApis = (instruction: string, k: number) => Promise<ApiHit[]>;

export interface DemoSelectorOptions {
  embedder: Embedder;
  taskDemos: readonly TaskDemo[];
  apiDemos: readonly ApiDemo[];
  /** Δ: a task demo is eligible when its cosine similarity is ≥ threshold. */
  threshold: number;
  /** Number of task demos returned (default 3). */
  k?: number;
  /** Number of APIs retrieved on the fallback path (default: k). */
  apiK?: number;
  /** API retrieval for the fallback path (default: cosine between the instruction and `ApiDemo.text`). */
  retrieveApis?: RetrieveApis;
}

export interface DemoSelection {
  level: 'task' | 'api';
  demos: AgentDemo[];
  /** Similarity of each returned demo (task level) or score of its API (API level), same order. */
  scores: number[];
  /** Task demo ids (task level) or API ids (API level), same order as `demos`. */
  ids: string[];
  /** Best task-demo similarity seen (−1 when the knowledge base has no eligible task demo). */
  bestTaskScore: number;
}

export interface DemoSelector {
  select(instruction: string): Promise<DemoSelection>;
}

/** Instructions compare equal after trimming, collapsing spaces and lower-casing. */
export function normalizeInstruction(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Cosine similarity; 0 when either vector is all zeros. */
function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Indexes of the best `k` scores, ties broken by the lower index. */
function topK(scores: ArrayLike<number>, k: number, keep: (i: number) => boolean = () => true): number[] {
  const idx: number[] = [];
  for (let i = 0; i < scores.length; i++) if (keep(i)) idx.push(i);
  idx.sort((a, b) => scores[b]! - scores[a]! || a - b);
  return idx.slice(0, Math.max(0, k));
}

/** Default API retrieval: cosine between the instruction and each API demo's text. */
function embeddingApiRetriever(embedder: Embedder, apiDemos: readonly ApiDemo[]): RetrieveApis {
  let vectors: Promise<Float32Array[]> | undefined;
  return async (instruction, k) => {
    vectors ??= apiDemos.length ? embedder.embed(apiDemos.map((d) => d.text)) : Promise.resolve([]);
    const [docs, [query]] = await Promise.all([vectors, embedder.embed([instruction])]);
    const scores = docs.map((v) => cosine(query!, v));
    return topK(scores, k).map((i) => ({ api: apiDemos[i]!.api, score: scores[i]! }));
  };
}

/** Adapts a retriever built over a corpus of API ids (corpus order) to `retrieveApis`. */
export function retrieverApiRetriever(retriever: Retriever, apiIds: readonly string[]): RetrieveApis {
  return async (instruction, k) =>
    (await retriever.search(instruction, k)).map((h) => ({
      api: apiIds[h.doc] ?? `#${h.doc}`,
      score: h.score,
    }));
}

export function createDemoSelector(opts: DemoSelectorOptions): DemoSelector {
  const k = opts.k ?? 3;
  const apiK = opts.apiK ?? k;
  const { embedder, taskDemos, apiDemos, threshold } = opts;
  const retrieveApis = opts.retrieveApis ?? embeddingApiRetriever(embedder, apiDemos);
  const apiDemoById = new Map<string, ApiDemo>();
  for (const d of apiDemos) if (!apiDemoById.has(d.api)) apiDemoById.set(d.api, d);
  const taskKeys = taskDemos.map((d) => normalizeInstruction(d.instruction));
  let taskVectors: Promise<Float32Array[]> | undefined;

  return {
    async select(instruction) {
      const self = normalizeInstruction(instruction);
      const [query] = await embedder.embed([instruction]);
      taskVectors ??= taskDemos.length
        ? embedder.embed(taskDemos.map((d) => d.instruction))
        : Promise.resolve([]);
      const scores = (await taskVectors).map((v) => cosine(query!, v));
      const eligible = (i: number) => taskKeys[i] !== self;
      const ranked = topK(scores, taskDemos.length, eligible);
      const bestTaskScore = ranked.length ? scores[ranked[0]!]! : -1;
      const passing = ranked.filter((i) => scores[i]! >= threshold).slice(0, k);
      if (passing.length > 0)
        return {
          level: 'task',
          demos: passing.map((i) => ({ instruction: taskDemos[i]!.instruction, reply: taskDemos[i]!.reply })),
          scores: passing.map((i) => scores[i]!),
          ids: passing.map((i) => taskDemos[i]!.id),
          bestTaskScore,
        };
      const out: DemoSelection = { level: 'api', demos: [], scores: [], ids: [], bestTaskScore };
      for (const hit of await retrieveApis(instruction, apiK)) {
        const demo = apiDemoById.get(hit.api);
        const example = demo?.examples.find(
          (e) => e.from === undefined || normalizeInstruction(e.from) !== self,
        );
        if (!demo || !example || out.ids.includes(hit.api)) continue;
        out.demos.push({ instruction: demo.instruction, reply: example.reply });
        out.scores.push(hit.score);
        out.ids.push(hit.api);
      }
      return out;
    },
  };
}

/** Adapts a selector to the agents' `demos` option: `(instruction) => Promise<AgentDemo[]>`. */
export function asAgentDemos(selector: DemoSelector): (instruction: string) => Promise<AgentDemo[]> {
  return async (instruction) => (await selector.select(instruction)).demos;
}
