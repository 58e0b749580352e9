import { Bm25Index, type Bm25Options, bm25Analyze } from './bm25.js';

/**
 * A corpus seen through several fields, at two levels: documents (APIs) and optional groups
 * (the tool or app each API belongs to). Missing fields simply give zero features.
 */
export interface FieldedCorpus {
  /** Main text of each document (e.g. category, tool, tool description, API name, description). */
  texts: readonly string[];
  /** A second, fuller text per document (ToolBench: the spec §3 text with parameters). */
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
 * - `group.log-size`, `group.single`: ln(members) and 1 for single-API groups (priors);
 * - `doc.name.coverage`, `group.name.coverage`: share of the name's words (BM25 analyzer) that
 *   occur in the query, so "Shazam" beats "ShazamAPI" when the query says "Shazam".
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
] as const;
export type FieldFeatureName = (typeof FIELD_FEATURES)[number];

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

/** Share of each document's distinct name words present in the query (words counted through the name index). */
function nameCoverage(index: Bm25Index, queryWords: ReadonlySet<string>): Float32Array {
  const hits = new Uint32Array(index.size);
  index.countMatches(queryWords, hits);
  const distinct = index.distinctTermsPerDoc();
  const out = new Float32Array(index.size);
  for (let i = 0; i < out.length; i++) if (hits[i]) out[i] = (hits[i] as number) / (distinct[i] as number);
  return out;
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
  private readonly group?: FieldIndexes['group'] & { logSize: Float32Array };

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
      this.group = { ...g, logSize: size.map((s) => (s > 0 ? Math.log(s) : 0)) };
    }
  }

  /** doc.text + doc.second: the document score the coverage features are built on. */
  private docScore(query: string): Float32Array {
    const s = this.text.scoreAllSync(query);
    if (this.second) {
      const t = this.second.scoreAllSync(query);
      for (let i = 0; i < s.length; i++) s[i] = (s[i] as number) + (t[i] as number);
    }
    return s;
  }

  compute(query: string): Map<FieldFeatureName, Float32Array> {
    const n = this.size;
    const out = new Map<FieldFeatureName, Float32Array>();
    const zero = () => new Float32Array(n);
    out.set('doc.text', this.text.scoreAllSync(query));
    out.set('doc.second', this.second?.scoreAllSync(query) ?? zero());
    out.set('doc.name', this.name?.scoreAllSync(query) ?? zero());
    out.set('doc.description', this.description?.scoreAllSync(query) ?? zero());
    const queryWords = new Set(bm25Analyze(query));
    out.set('doc.name.coverage', this.name ? nameCoverage(this.name, queryWords) : zero());
    const sentences = splitSentences(query);
    const docSentence = zero();
    const g = this.group;
    const groupLevel = new Map<FieldFeatureName, Float32Array>();
    const cover = g ? new Float32Array(g.count) : undefined;
    const coverText = g ? new Float32Array(g.count) : undefined;
    for (const s of sentences) {
      const ds = this.docScore(s);
      const m = maxOf(ds);
      for (let i = 0; i < n; i++) {
        const r = (ds[i] as number) / m;
        if (r > (docSentence[i] as number)) docSentence[i] = r;
      }
      if (g && cover && coverText) {
        const best = new Float32Array(g.count);
        for (let i = 0; i < n; i++) {
          const k = g.groupOf[i] as number;
          if ((ds[i] as number) > (best[k] as number)) best[k] = ds[i] as number;
        }
        const ts = g.text.scoreAllSync(s);
        const mt = maxOf(ts);
        for (let k = 0; k < g.count; k++) {
          cover[k] = (cover[k] as number) + (best[k] as number) / m / sentences.length;
          coverText[k] = (coverText[k] as number) + (ts[k] as number) / mt / sentences.length;
        }
      }
    }
    out.set('doc.sentence', docSentence);
    if (g && cover && coverText) {
      // doc.text + doc.second, already computed above
      const d = (out.get('doc.text') as Float32Array).map(
        (x, i) => x + ((out.get('doc.second') as Float32Array)[i] as number),
      );
      const top1 = new Float32Array(g.count);
      const top2 = new Float32Array(g.count);
      for (let i = 0; i < n; i++) {
        const k = g.groupOf[i] as number;
        const x = d[i] as number;
        if (x > (top1[k] as number)) {
          top2[k] = top1[k] as number;
          top1[k] = x;
        } else if (x > (top2[k] as number)) top2[k] = x;
      }
      groupLevel.set('group.text', g.text.scoreAllSync(query));
      groupLevel.set('group.text.b03', g.textB03.scoreAllSync(query));
      groupLevel.set('group.text.k2b05', g.textK2.scoreAllSync(query));
      groupLevel.set('group.name', g.name?.scoreAllSync(query) ?? new Float32Array(g.count));
      groupLevel.set('group.description', g.description?.scoreAllSync(query) ?? new Float32Array(g.count));
      groupLevel.set('group.coverage', cover);
      groupLevel.set('group.coverage.text', coverText);
      groupLevel.set(
        'group.top2',
        top1.map((x, k) => x + (top2[k] as number)),
      );
      groupLevel.set('group.log-size', g.logSize);
      if (g.name) groupLevel.set('group.name.coverage', nameCoverage(g.name, queryWords));
      groupLevel.set(
        'group.single',
        g.logSize.map((x) => (x === 0 ? 1 : 0)),
      );
    }
    for (const f of FIELD_FEATURES) {
      if (out.has(f)) continue;
      const gv = groupLevel.get(f);
      if (!gv || !g) {
        out.set(f, zero());
        continue;
      }
      const v = zero();
      for (let i = 0; i < n; i++) v[i] = gv[g.groupOf[i] as number] as number;
      out.set(f, v);
    }
    return out;
  }
}
