import { fnv1a32 } from '../shared/index.js';
import { bm25Analyze } from './bm25.js';
import type { SparseVector } from './sparse.js';
import { WordVectorEmbedder } from './word-vector-embedder.js';
import type { WordVectors } from './word-vectors.js';

/**
 * Frozen text features for the trainable retriever (all serialisable in the model file):
 *   x = [ α · dense ; β · hashed ]
 * - dense (D = table dimension, optional): SIF-weighted mean of word vectors, minus the corpus
 *   mean vector (removes the common direction all sentence means share), L2-normalised;
 * - hashed (H buckets): BM25 analyzer tokens (tokenize + stem) hashed with FNV-1a, weight
 *   (1 + ln tf) · idf(bucket) with bucket IDFs fitted on the corpus, L2-normalised.
 * With α² + β² = 1 the feature vector has unit length, and cos(x_q, x_d) = α²·cos_dense + β²·cos_hashed.
 */
export interface FeatureConfig {
  hashDim: number;
  /** Weight of the dense part (0 = no word vectors). */
  alpha: number;
  beta: number;
  /** Corpus mean of the dense sentence vectors (length = dense dimension, or empty). */
  denseMean: number[];
  /** Per-bucket IDF (length hashDim). */
  bucketIdf: number[];
}

export class FeatureExtractor {
  readonly denseDim: number;
  readonly dimension: number;
  private readonly embedder: WordVectorEmbedder | undefined;
  private readonly mean: Float32Array;
  private readonly idf: Float32Array;

  constructor(
    readonly config: FeatureConfig,
    table?: WordVectors,
  ) {
    this.denseDim = config.alpha > 0 ? config.denseMean.length : 0;
    if (this.denseDim > 0) {
      if (!table) throw new RangeError('these features need word vectors (alpha > 0)');
      if (table.dimension !== this.denseDim)
        throw new RangeError(
          `word vectors have dimension ${table.dimension}, model expects ${this.denseDim}`,
        );
      this.embedder = new WordVectorEmbedder(table, { weighting: 'sif' });
    }
    this.mean = Float32Array.from(config.denseMean);
    this.idf = Float32Array.from(config.bucketIdf);
    this.dimension = this.denseDim + config.hashDim;
  }

  /** Fits the corpus statistics (dense mean, bucket IDF) and returns the extractor. */
  static fit(
    corpus: readonly string[],
    opts: { hashDim?: number; alpha?: number; table?: WordVectors } = {},
  ): FeatureExtractor {
    const hashDim = opts.hashDim ?? 512;
    const alpha = opts.table ? (opts.alpha ?? Math.sqrt(0.3)) : 0;
    const beta = Math.sqrt(1 - alpha * alpha);
    const df = new Float64Array(hashDim);
    for (const text of corpus) {
      const seen = new Set<number>();
      for (const t of bm25Analyze(text)) seen.add(fnv1a32(t) % hashDim);
      for (const b of seen) df[b] = (df[b] as number) + 1;
    }
    const n = corpus.length;
    const bucketIdf = Array.from(df, (f) => Math.log((n + 1) / (f + 1)) + 1);
    let denseMean: number[] = [];
    if (alpha > 0 && opts.table) {
      const emb = new WordVectorEmbedder(opts.table, { weighting: 'sif' });
      const m = new Float64Array(opts.table.dimension);
      for (const text of corpus) {
        const v = emb.embedOne(text);
        for (let d = 0; d < m.length; d++) m[d] = (m[d] as number) + (v[d] as number) / Math.max(1, n);
      }
      denseMean = Array.from(m);
    }
    return new FeatureExtractor({ hashDim, alpha, beta, denseMean, bucketIdf }, opts.table);
  }

  extract(text: string): SparseVector {
    const idx: number[] = [];
    const val: number[] = [];
    if (this.embedder && this.denseDim > 0) {
      const v = this.embedder.embedOne(text);
      let s = 0;
      let known = false;
      for (let d = 0; d < this.denseDim; d++) {
        if (v[d] !== 0) known = true;
        v[d] = (v[d] as number) - (this.mean[d] as number);
        s += (v[d] as number) ** 2;
      }
      if (known && s > 0) {
        const f = this.config.alpha / Math.sqrt(s);
        for (let d = 0; d < this.denseDim; d++) {
          idx.push(d);
          val.push((v[d] as number) * f);
        }
      }
    }
    const tf = new Map<number, number>();
    for (const t of bm25Analyze(text)) {
      const b = fnv1a32(t) % this.config.hashDim;
      tf.set(b, (tf.get(b) ?? 0) + 1);
    }
    let s = 0;
    const hv: Array<[number, number]> = [];
    for (const [b, c] of tf) {
      const w = (1 + Math.log(c)) * (this.idf[b] as number);
      hv.push([b, w]);
      s += w * w;
    }
    if (s > 0) {
      const f = this.config.beta / Math.sqrt(s);
      for (const [b, w] of hv) {
        idx.push(this.denseDim + b);
        val.push(w * f);
      }
    }
    return { idx: Int32Array.from(idx), val: Float32Array.from(val) };
  }
}
