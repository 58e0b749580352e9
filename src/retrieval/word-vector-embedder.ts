import { tokenize } from './tokenize.js';
import type { Embedder } from './types.js';
import { l2NormalizeInPlace } from './vector-index.js';
import type { WordVectors } from './word-vectors.js';

export type WordWeighting = 'idf' | 'sif' | 'uniform';

export interface WordVectorEmbedderOptions {
  /**
   * Word weights in the mean: `idf` (fitted on a corpus with `fitIdf`, ln((N+1)/(df+1)) + 1;
   * words unseen in the corpus get the maximum), `sif` (a/(a+p(w)) with p(w) from the table's
   * frequency rank by Zipf's law, a = 1e-3; needs no corpus), or `uniform`. Default `idf`,
   * which falls back to `sif` until `fitIdf` is called.
   */
  weighting?: WordWeighting;
  name?: string;
}

/**
 * Sentence vectors from word vectors: tokens (`tokenize`, stopwords kept so IDF decides) are
 * looked up in the table, weighted, summed and L2-normalised. Unknown tokens are skipped; a text
 * with no known token gets the zero vector (cosine 0 with everything).
 */
export class WordVectorEmbedder implements Embedder {
  readonly name: string;
  readonly dimension: number;
  private readonly weighting: WordWeighting;
  private idf: Map<number, number> | undefined;
  private idfDefault = 1;

  constructor(
    readonly table: WordVectors,
    opts: WordVectorEmbedderOptions = {},
  ) {
    this.dimension = table.dimension;
    this.weighting = opts.weighting ?? 'idf';
    this.name = opts.name ?? `word-vectors(${this.weighting})`;
  }

  /** Fits IDF weights on a corpus (document frequency of each known word). */
  fitIdf(texts: readonly string[]): this {
    const df = new Map<number, number>();
    for (const text of texts) {
      const seen = new Set<number>();
      for (const t of tokenize(text, { keepStopwords: true })) {
        const row = this.table.lookup(t);
        if (row >= 0) seen.add(row);
      }
      for (const r of seen) df.set(r, (df.get(r) ?? 0) + 1);
    }
    const n = texts.length;
    this.idf = new Map();
    for (const [r, f] of df) this.idf.set(r, Math.log((n + 1) / (f + 1)) + 1);
    this.idfDefault = Math.log(n + 1) + 1;
    return this;
  }

  /** Weight of a table row. */
  weight(row: number): number {
    if (this.weighting === 'uniform') return 1;
    if (this.weighting === 'idf' && this.idf) return this.idf.get(row) ?? this.idfDefault;
    // SIF with Zipf frequencies: p(rank r) = 1 / ((r+1) · H_N)
    const h = Math.log(this.table.size) + 0.5772;
    const p = 1 / ((row + 1) * h);
    return 1e-3 / (1e-3 + p);
  }

  /** Row indices and weights of a text's known tokens. */
  terms(text: string): { rows: number[]; weights: number[] } {
    const rows: number[] = [];
    const weights: number[] = [];
    for (const t of tokenize(text, { keepStopwords: true })) {
      const row = this.table.lookup(t);
      if (row < 0) continue;
      rows.push(row);
      weights.push(this.weight(row));
    }
    return { rows, weights };
  }

  embedOne(text: string): Float32Array {
    const dim = this.dimension;
    const out = new Float32Array(dim);
    const { rows, weights } = this.terms(text);
    const vec = this.table.vectors;
    for (let i = 0; i < rows.length; i++) {
      const o = (rows[i] as number) * dim;
      const w = weights[i] as number;
      for (let d = 0; d < dim; d++) out[d] = (out[d] as number) + w * (vec[o + d] as number);
    }
    return l2NormalizeInPlace(out);
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }
}
