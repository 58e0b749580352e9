import { TermTable } from './term-table.js';
import { stem, tokenize } from './tokenize.js';
import { topK } from './top-k.js';
import type { RetrievalHit, Retriever } from './types.js';

export interface Bm25Options {
  /** Term-frequency saturation (default 1.2). */
  k1?: number;
  /** Document-length normalisation, 0..1 (default 0.75). */
  b?: number;
  /** Analyzer of documents and text queries; default `bm25Analyze` (`tokenize` + `stem`, docs/retrieval.md). */
  analyze?: (text: string) => string[];
}

export const bm25Analyze = (text: string): string[] => tokenize(text).map(stem);

/**
 * The arrays of a built index (what an index file stores): the terms as `vocabulary` (term `id`
 * at `vocabulary[id]`) or as a `TermTable` (loaded from a file, no `Map` to build).
 */
export interface Bm25Parts {
  k1: number;
  b: number;
  size: number;
  vocabulary?: readonly string[];
  termTable?: TermTable;
  idf: Float32Array;
  offsets: Uint32Array;
  postDocs: Uint32Array;
  postWeights: Float32Array;
}

/**
 * Okapi BM25 over an inverted index built here (no external library):
 *   score(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
 *   idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))      (non-negative variant)
 * Repeated query terms count once per occurrence. Per-posting weights are precomputed at build
 * time, so a query is one pass over the postings of its terms.
 */
export class Bm25Index implements Retriever {
  readonly name = 'bm25';
  readonly size: number;
  readonly k1: number;
  readonly b: number;
  private readonly analyze: (text: string) => string[];
  private readonly termIds: Map<string, number> | TermTable;
  private readonly idf: Float32Array;
  private readonly offsets: Uint32Array;
  private readonly postDocs: Uint32Array;
  private readonly postWeights: Float32Array;
  private distinct?: Uint32Array;

  /** Indexes `texts`; or, given `parts` (from `toParts`, e.g. read from an index file), adopts them without re-analysis. */
  constructor(texts: readonly string[], opts?: Bm25Options);
  constructor(texts: null, opts: Bm25Options, parts: Bm25Parts);
  constructor(texts: readonly string[] | null, opts: Bm25Options = {}, parts?: Bm25Parts) {
    this.k1 = parts?.k1 ?? opts.k1 ?? 1.2;
    this.b = parts?.b ?? opts.b ?? 0.75;
    this.analyze = opts.analyze ?? bm25Analyze;
    if (!texts) {
      if (!parts) throw new RangeError('Bm25Index needs texts or parts');
      this.size = parts.size;
      if (parts.termTable) this.termIds = parts.termTable;
      else {
        const ids = new Map<string, number>();
        const vocab = parts.vocabulary ?? [];
        for (let i = 0; i < vocab.length; i++) ids.set(vocab[i] as string, i);
        this.termIds = ids;
      }
      this.idf = parts.idf;
      this.offsets = parts.offsets;
      this.postDocs = parts.postDocs;
      this.postWeights = parts.postWeights;
      return;
    }
    this.size = texts.length;
    const termIds = new Map<string, number>();
    this.termIds = termIds;
    // pass 1: per-document term counts, stored as (termId, tf) pairs
    const docTerms: Uint32Array[] = [];
    const docLen = new Float64Array(texts.length);
    const df: number[] = [];
    let total = 0;
    for (let d = 0; d < texts.length; d++) {
      const counts = new Map<number, number>();
      const toks = this.analyze(texts[d] as string);
      for (const t of toks) {
        let id = termIds.get(t);
        if (id === undefined) {
          id = termIds.size;
          termIds.set(t, id);
          df.push(0);
        }
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      const pairs = new Uint32Array(counts.size * 2);
      let j = 0;
      for (const [id, tf] of counts) {
        pairs[j++] = id;
        pairs[j++] = tf;
        df[id] = (df[id] as number) + 1;
      }
      docTerms.push(pairs);
      docLen[d] = toks.length;
      total += counts.size;
    }
    const n = texts.length;
    const avgdl = n ? docLen.reduce((a, x) => a + x, 0) / n || 1 : 1;
    const nTerms = df.length;
    this.idf = new Float32Array(nTerms);
    this.offsets = new Uint32Array(nTerms + 1);
    for (let t = 0; t < nTerms; t++) {
      const f = df[t] as number;
      this.idf[t] = Math.log(1 + (n - f + 0.5) / (f + 0.5));
      this.offsets[t + 1] = (this.offsets[t] as number) + f;
    }
    this.postDocs = new Uint32Array(total);
    this.postWeights = new Float32Array(total);
    const fill = this.offsets.slice(0, nTerms);
    const { k1, b } = this;
    for (let d = 0; d < n; d++) {
      const pairs = docTerms[d] as Uint32Array;
      const norm = k1 * (1 - b + (b * (docLen[d] as number)) / avgdl);
      for (let j = 0; j < pairs.length; j += 2) {
        const t = pairs[j] as number;
        const tf = pairs[j + 1] as number;
        const at = (fill[t] as number) + 0;
        fill[t] = at + 1;
        this.postDocs[at] = d;
        this.postWeights[at] = (tf * (k1 + 1)) / (tf + norm);
      }
    }
  }

  /** Number of distinct terms. */
  get vocabularySize(): number {
    return this.termIds.size;
  }

  /** The index's arrays (shared, not copied) and its vocabulary in term-id order. */
  toParts(): Bm25Parts {
    return {
      k1: this.k1,
      b: this.b,
      size: this.size,
      ...(this.termIds instanceof TermTable
        ? { termTable: this.termIds }
        : { vocabulary: [...this.termIds.keys()] }),
      idf: this.idf,
      offsets: this.offsets,
      postDocs: this.postDocs,
      postWeights: this.postWeights,
    };
  }

  /** Analyzes text with this index's analyzer (so one analysis can serve several indexes). */
  terms(text: string): string[] {
    return this.analyze(text);
  }

  /** Distinct terms of each document (counted from the postings once, on first use). */
  distinctTermsPerDoc(): Uint32Array {
    if (!this.distinct) {
      const n = new Uint32Array(this.size);
      for (let p = 0; p < this.postDocs.length; p++) {
        const d = this.postDocs[p] as number;
        n[d] = (n[d] as number) + 1;
      }
      this.distinct = n;
    }
    return this.distinct;
  }

  /** Adds 1 to `hits[d]` for each given term present in document d (pass distinct terms). */
  countMatches(terms: Iterable<string>, hits: Uint32Array): void {
    for (const t of terms) {
      const id = this.termIds.get(t);
      if (id === undefined) continue;
      const end = this.offsets[id + 1] as number;
      for (let p = this.offsets[id] as number; p < end; p++) {
        const d = this.postDocs[p] as number;
        hits[d] = (hits[d] as number) + 1;
      }
    }
  }

  /** Like `scoreTermsSync`, into a caller's buffer (zeroed first): no allocation per query. */
  scoreTermsInto(terms: Iterable<string>, out: Float32Array): Float32Array {
    out.fill(0);
    this.accumulate(terms, out);
    return out;
  }

  /** Adds the BM25 scores of already-analyzed query terms into `out` (length = corpus size). */
  private accumulate(terms: Iterable<string>, out: Float32Array): void {
    for (const t of terms) {
      const id = this.termIds.get(t);
      if (id === undefined) continue;
      const w = this.idf[id] as number;
      const end = this.offsets[id + 1] as number;
      for (let p = this.offsets[id] as number; p < end; p++) {
        const d = this.postDocs[p] as number;
        out[d] = (out[d] as number) + w * (this.postWeights[p] as number);
      }
    }
  }

  scoreAllSync(query: string): Float32Array {
    return this.scoreTermsSync(this.analyze(query));
  }

  /**
   * Scores of query terms the caller analyzed itself (e.g. with synonyms added), each occurrence
   * counting; pass distinct terms to count each once.
   */
  scoreTermsSync(terms: Iterable<string>): Float32Array {
    const out = new Float32Array(this.size);
    this.accumulate(terms, out);
    return out;
  }

  searchSync(query: string, k: number): RetrievalHit[] {
    return topK(this.scoreAllSync(query), k);
  }

  async scoreAll(query: string): Promise<Float32Array> {
    return this.scoreAllSync(query);
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return this.searchSync(query, k);
  }
}
