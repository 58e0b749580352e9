import { Bm25Index, type Bm25Options, bm25Analyze } from './bm25.js';

/**
 * A corpus seen through several fields, at two levels: documents (APIs) and optional groups
 * (the tool or app each API belongs to). Missing fields simply give zero features.
 */
export interface FieldedCorpus {
  /** Main text of each document (e.g. category, tool, tool description, API name, description). */
  texts: readonly string[];
  /** A second, fuller text per document (ToolBench: docs/retrieval.md, "ToolBench document text"). */
  second?: readonly string[];
  /** Document names and descriptions as separate fields. */
  names?: readonly string[];
  descriptions?: readonly string[];
  groups?: {
    /** One text per group (name, description, every member's name and description). */
    texts: readonly string[];
    names?: readonly string[];
    descriptions?: readonly string[];
    /** Group of each document. */
    groupOf: Uint32Array;
    /**
     * Family of each group, one level up (ToolBench: the tool's category). Multi-tool requests
     * ask for tools of one family (ToolBench G2 is intra-category), so `family.coverage` asks
     * how well one family answers every sentence. Without it the feature is 0.
     */
    familyOf?: Uint32Array;
  };
}

/**
 * The ranking features, each a score per document (group features are copied to every member):
 * - `doc.text`, `doc.second`, `doc.name`, `doc.description`: BM25 of the query against each field;
 * - `group.text` (BM25, b = 0.75), `group.text.b03` (b = 0.3), `group.text.k2b05` (k1 = 2, b = 0.5):
 *   the group text under three length normalisations (long tool texts are not all alike);
 *   `group.name`, `group.description`;
 * - `group.coverage`: the query is cut into sentences; for each sentence, the best member's
 *   doc score (doc.text + doc.second) relative to the best in the corpus, averaged over sentences.
 *   A tool that answers every sentence of a multi-part request scores 1;
 * - `group.coverage.text`: the same with the group text;
 * - `group.top2`: sum of the two best member doc scores (G1 queries ask for 2+ APIs of one tool);
 * - `doc.sentence`: the document's best relative score against any single sentence;
 * - `group.sentence`: the best `doc.sentence` of the group's members — the tool's best share of
 *   any one sentence. A request that needs two tools (ToolBench G2/G3) gives each of them a
 *   `group.coverage` of about 1/2 but a `group.sentence` of 1;
 * - `group.log-size`, `group.single`: ln(members) and 1 for single-API groups (priors);
 * - `doc.name.coverage`, `group.name.coverage`: share of the name's words (BM25 analyzer) that
 *   occur in the query, so "Shazam" beats "ShazamAPI" when the query says "Shazam";
 * - `family.coverage`: `group.coverage` one level up — per sentence, the best member's relative doc
 *   score within the group's family (e.g. the tool's category), averaged over sentences. A
 *   request whose parts need different tools of one category gives that category 1 while each
 *   tool covers only its part; a tool of another category that matches one part scores less.
 */
export const FIELD_FEATURES = [
  'doc.text',
  'doc.second',
  'doc.name',
  'doc.description',
  'group.text',
  'group.text.b03',
  'group.text.k2b05',
  'group.name',
  'group.description',
  'group.coverage',
  'group.coverage.text',
  'group.top2',
  'doc.sentence',
  'group.log-size',
  'group.single',
  'doc.name.coverage',
  'group.name.coverage',
  'group.sentence',
  'family.coverage',
] as const;
export type FieldFeatureName = (typeof FIELD_FEATURES)[number];

/** The features of a document's group or family (zero without groups). */
const GROUP_FEATURES = FIELD_FEATURES.filter((f) => f.startsWith('group.') || f.startsWith('family.'));

/** Features whose scale depends on the query (raw BM25 sums); the others are shares in [0, 1] or priors. */
export const UNBOUNDED_FIELD_FEATURES: readonly FieldFeatureName[] = FIELD_FEATURES.filter(
  (f) => !/coverage|sentence|log-size|single/.test(f),
);

/** Splits a request into sentences (at . ? ! followed by space); the whole text if none is longer than 3 characters. */
export function splitSentences(text: string): string[] {
  const parts = text
    .split(/(?<=[.?!])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 3);
  return parts.length ? parts : [text];
}

/**
 * Share of each document's distinct name words present in the query (words counted through the
 * name index), into `out`; `hits` is scratch of the index's size.
 */
function nameCoverage(
  index: Bm25Index,
  queryWords: ReadonlySet<string>,
  hits: Uint32Array,
  out: Float32Array,
): Float32Array {
  hits.fill(0);
  index.countMatches(queryWords, hits);
  const distinct = index.distinctTermsPerDoc();
  out.fill(0);
  for (let i = 0; i < out.length; i++) if (hits[i]) out[i] = (hits[i] as number) / (distinct[i] as number);
  return out;
}

/**
 * Each group's largest member value, into `out` (one entry per group; 0 for a group whose values
 * are all ≤ 0): a tool's best API score per sentence (`group.coverage`), its best `doc.sentence`
 * (`group.sentence`). Shared by `FieldFeatures` and `FieldRankScorer`.
 */
export function groupMaxInto(
  values: ArrayLike<number>,
  groupOf: Uint32Array,
  out: Float32Array,
): Float32Array {
  out.fill(0);
  for (let i = 0; i < groupOf.length; i++) {
    const k = groupOf[i] as number;
    if ((values[i] as number) > (out[k] as number)) out[k] = values[i] as number;
  }
  return out;
}

/** Number of families of a group → family map (largest id + 1). */
export function familyCount(familyOf: Uint32Array): number {
  let m = -1;
  for (const f of familyOf) if (f > m) m = f;
  return m + 1;
}

const maxOf = (a: Float32Array): number => {
  let m = 0;
  for (let i = 0; i < a.length; i++) if ((a[i] as number) > m) m = a[i] as number;
  return m || 1;
};

/** The BM25 indexes behind the field features (what an index file stores). */
export interface FieldIndexes {
  text: Bm25Index;
  second?: Bm25Index;
  name?: Bm25Index;
  description?: Bm25Index;
  group?: {
    groupOf: Uint32Array;
    count: number;
    /** Family of each group (see `FieldedCorpus`). */
    familyOf?: Uint32Array;
    text: Bm25Index;
    textB03: Bm25Index;
    textK2: Bm25Index;
    name?: Bm25Index;
    description?: Bm25Index;
  };
}

/** Builds the field indexes of a corpus (the costly step: 9 BM25 indexes on ToolBench). */
export function buildFieldIndexes(corpus: FieldedCorpus, onIndex?: (name: string) => void): FieldIndexes {
  const size = corpus.texts.length;
  const check = (field: string, v?: readonly unknown[] | Uint32Array) => {
    if (v && v.length !== size)
      throw new RangeError(`field "${field}" has ${v.length} entries for ${size} documents`);
  };
  check('second', corpus.second);
  check('names', corpus.names);
  check('descriptions', corpus.descriptions);
  check('groups.groupOf', corpus.groups?.groupOf);
  const familyOf = corpus.groups?.familyOf;
  if (familyOf && familyOf.length !== corpus.groups?.texts.length)
    throw new RangeError(
      `field "groups.familyOf" has ${familyOf.length} entries for ${corpus.groups?.texts.length} groups`,
    );
  const bm25 = (name: string, texts: readonly string[], opts?: Bm25Options) => {
    const ix = new Bm25Index(texts, opts);
    onIndex?.(name);
    return ix;
  };
  const g = corpus.groups;
  return {
    text: bm25('text', corpus.texts),
    ...(corpus.second ? { second: bm25('second', corpus.second) } : {}),
    ...(corpus.names ? { name: bm25('name', corpus.names) } : {}),
    ...(corpus.descriptions ? { description: bm25('description', corpus.descriptions) } : {}),
    ...(g
      ? {
          group: {
            groupOf: g.groupOf,
            count: g.texts.length,
            ...(g.familyOf ? { familyOf: g.familyOf } : {}),
            text: bm25('group.text', g.texts),
            textB03: bm25('group.text.b03', g.texts, { b: 0.3 }),
            textK2: bm25('group.text.k2b05', g.texts, { k1: 2, b: 0.5 }),
            ...(g.names ? { name: bm25('group.name', g.names) } : {}),
            ...(g.descriptions ? { description: bm25('group.description', g.descriptions) } : {}),
          },
        }
      : {}),
  };
}

/** Computes every `FIELD_FEATURES` vector for a query; indexes are built once per corpus. */
export class FieldFeatures {
  readonly size: number;
  readonly indexes: FieldIndexes;
  private readonly text: Bm25Index;
  private readonly second?: Bm25Index;
  private readonly name?: Bm25Index;
  private readonly description?: Bm25Index;
  private readonly group?: FieldIndexes['group'] & {
    logSize: Float32Array;
    single: Float32Array;
    families: number;
  };
  private scratch?: {
    a: Float32Array;
    b: Float32Array;
    hits: Uint32Array;
    group?: {
      a: Float32Array;
      b: Float32Array;
      cover: Float32Array;
      coverText: Float32Array;
      hits: Uint32Array;
      /** Per family: best of one sentence, and the coverage summed over sentences. */
      familyBest: Float32Array;
      familyCover: Float32Array;
    };
  };

  /** From a corpus (builds the indexes) or from indexes built or loaded before. */
  constructor(source: FieldedCorpus | FieldIndexes) {
    const ix = 'texts' in source ? buildFieldIndexes(source) : source;
    this.indexes = ix;
    this.size = ix.text.size;
    this.text = ix.text;
    if (ix.second) this.second = ix.second;
    if (ix.name) this.name = ix.name;
    if (ix.description) this.description = ix.description;
    const g = ix.group;
    if (g) {
      const size = new Float32Array(g.count);
      for (const k of g.groupOf) size[k] = (size[k] as number) + 1;
      const logSize = size.map((s) => (s > 0 ? Math.log(s) : 0));
      const families = g.familyOf ? familyCount(g.familyOf) : 0;
      this.group = { ...g, logSize, single: logSize.map((x) => (x === 0 ? 1 : 0)), families };
    }
  }

  /**
   * One zeroed vector per `FIELD_FEATURES` name, for `compute(query, into)`: a caller computing
   * many queries in turn (ranker training) reuses them instead of 18 new corpus-sized vectors
   * (and their garbage, ~3 MB on ToolBench) per query.
   */
  vectors(): Map<FieldFeatureName, Float32Array> {
    return new Map(FIELD_FEATURES.map((f) => [f, new Float32Array(this.size)]));
  }

  /**
   * Every `FIELD_FEATURES` vector of a query: new vectors, or written over `into` (from
   * `vectors()`; the same map is returned, so its vectors hold this query's features until the
   * next call). Scratch vectors are kept by the instance, so calls must not interleave (they
   * are synchronous).
   */
  compute(query: string, into?: Map<FieldFeatureName, Float32Array>): Map<FieldFeatureName, Float32Array> {
    const n = this.size;
    const out = into ?? this.vectors();
    const vec = (f: FieldFeatureName): Float32Array => {
      const v = out.get(f);
      if (v?.length !== n) throw new RangeError(`feature vector "${f}" missing or not of length ${n}`);
      return v;
    };
    const bm25 = (index: Bm25Index | undefined, text: string, v: Float32Array): Float32Array =>
      index ? index.scoreTermsInto(index.terms(text), v) : v.fill(0);
    bm25(this.text, query, vec('doc.text'));
    bm25(this.second, query, vec('doc.second'));
    bm25(this.name, query, vec('doc.name'));
    bm25(this.description, query, vec('doc.description'));
    const queryWords = new Set(bm25Analyze(query));
    const scratch = this.scratchVectors();
    if (this.name) nameCoverage(this.name, queryWords, scratch.hits, vec('doc.name.coverage'));
    else vec('doc.name.coverage').fill(0);
    const sentences = splitSentences(query);
    const docSentence = vec('doc.sentence').fill(0);
    const g = this.group;
    const gs = scratch.group;
    const cover = gs?.cover.fill(0);
    const coverText = gs?.coverText.fill(0);
    const familyCover = gs?.familyCover.fill(0);
    for (const s of sentences) {
      // doc.text + doc.second of the sentence: the document score the coverage features are built on
      const ds = bm25(this.text, s, scratch.a);
      if (this.second) {
        const t = bm25(this.second, s, scratch.b);
        for (let i = 0; i < n; i++) ds[i] = (ds[i] as number) + (t[i] as number);
      }
      const m = maxOf(ds);
      for (let i = 0; i < n; i++) {
        const r = (ds[i] as number) / m;
        if (r > (docSentence[i] as number)) docSentence[i] = r;
      }
      if (g && gs && cover && coverText) {
        const best = groupMaxInto(ds, g.groupOf, gs.a);
        const ts = bm25(g.text, s, gs.b);
        const mt = maxOf(ts);
        for (let k = 0; k < g.count; k++) {
          cover[k] = (cover[k] as number) + (best[k] as number) / m / sentences.length;
          coverText[k] = (coverText[k] as number) + (ts[k] as number) / mt / sentences.length;
        }
        if (g.familyOf && familyCover) {
          // a family's best document is the best of its groups' best documents
          const fb = groupMaxInto(best, g.familyOf, gs.familyBest);
          for (let c = 0; c < g.families; c++)
            familyCover[c] = (familyCover[c] as number) + (fb[c] as number) / m / sentences.length;
        }
      }
    }
    if (!g || !gs || !cover || !coverText) {
      for (const f of GROUP_FEATURES) vec(f).fill(0);
      return out;
    }
    // group-level features: one value per group, copied to every member
    const spread = (f: FieldFeatureName, gv: Float32Array) => {
      const v = vec(f);
      for (let i = 0; i < n; i++) v[i] = gv[g.groupOf[i] as number] as number;
    };
    spread('group.sentence', groupMaxInto(docSentence, g.groupOf, gs.a));
    // doc.text + doc.second of the whole query, already computed above
    const d = scratch.a;
    const docText = vec('doc.text');
    const docSecond = vec('doc.second');
    for (let i = 0; i < n; i++) d[i] = (docText[i] as number) + (docSecond[i] as number);
    const top1 = gs.a.fill(0);
    const top2 = gs.b.fill(0);
    for (let i = 0; i < n; i++) {
      const k = g.groupOf[i] as number;
      const x = d[i] as number;
      if (x > (top1[k] as number)) {
        top2[k] = top1[k] as number;
        top1[k] = x;
      } else if (x > (top2[k] as number)) top2[k] = x;
    }
    for (let k = 0; k < g.count; k++) top1[k] = (top1[k] as number) + (top2[k] as number);
    spread('group.top2', top1);
    spread('group.text', bm25(g.text, query, gs.a));
    spread('group.text.b03', bm25(g.textB03, query, gs.a));
    spread('group.text.k2b05', bm25(g.textK2, query, gs.a));
    spread('group.name', bm25(g.name, query, gs.a));
    spread('group.description', bm25(g.description, query, gs.a));
    spread('group.coverage', cover);
    spread('group.coverage.text', coverText);
    {
      const v = vec('family.coverage');
      if (g.familyOf && familyCover)
        for (let i = 0; i < n; i++)
          v[i] = familyCover[g.familyOf[g.groupOf[i] as number] as number] as number;
      else v.fill(0);
    }
    spread('group.log-size', g.logSize);
    spread('group.single', g.single);
    if (g.name) spread('group.name.coverage', nameCoverage(g.name, queryWords, gs.hits, gs.a));
    else vec('group.name.coverage').fill(0);
    return out;
  }

  /** The instance's scratch vectors (made on first use: a `FieldFeatures` that only builds indexes needs none). */
  private scratchVectors() {
    if (!this.scratch) {
      const g = this.group;
      const count = g?.count ?? 0;
      this.scratch = {
        a: new Float32Array(this.size),
        b: new Float32Array(this.size),
        hits: new Uint32Array(this.size),
        ...(g
          ? {
              group: {
                a: new Float32Array(count),
                b: new Float32Array(count),
                cover: new Float32Array(count),
                coverText: new Float32Array(count),
                hits: new Uint32Array(count),
                familyBest: new Float32Array(g.families),
                familyCover: new Float32Array(g.families),
              },
            }
          : {}),
      };
    }
    return this.scratch;
  }
}
