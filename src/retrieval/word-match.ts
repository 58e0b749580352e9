import type { DenseEncoder } from './dense-encoder.js';
import { type BlockDotKernel, createBlockDotKernel } from './simd-kernel.js';
import { denseWords } from './tokenize.js';
import { VectorIndex } from './vector-index.js';

/**
 * Each document's distinct words, as ids into one word list shared by the corpus (compressed rows:
 * document i's words are `ids[offsets[i] .. offsets[i+1])`). Late interaction compares a query's
 * words with these, so an index file stores them beside the document vectors.
 */
export interface DocWordLists {
  words: string[];
  offsets: Uint32Array;
  ids: Uint32Array;
}

/** The word lists of a corpus (words as the dense encoder sees them: tokenized and stemmed). */
export function docWordLists(texts: readonly string[]): DocWordLists {
  const idOf = new Map<string, number>();
  const words: string[] = [];
  const offsets = new Uint32Array(texts.length + 1);
  const ids: number[] = [];
  texts.forEach((t, i) => {
    for (const w of new Set(denseWords(t))) {
      let id = idOf.get(w);
      if (id === undefined) {
        id = words.length;
        idOf.set(w, id);
        words.push(w);
      }
      ids.push(id);
    }
    offsets[i + 1] = ids.length;
  });
  return { words, offsets, ids: Uint32Array.from(ids) };
}

/** Why a set of word lists cannot belong to a corpus of `size` documents (undefined: it can). */
export function docWordListsProblem(lists: DocWordLists, size: number): string | undefined {
  const { offsets, ids, words } = lists;
  if (offsets.length !== size + 1) return `${offsets.length} word-list offsets for ${size} documents (+1)`;
  if (offsets[0] !== 0 || offsets[size] !== ids.length)
    return `word-list offsets run ${offsets[0]}..${offsets[size]} over ${ids.length} word ids`;
  for (let i = 0; i < size; i++)
    if ((offsets[i] as number) > (offsets[i + 1] as number))
      return `word-list offsets decrease at document ${i}`;
  for (const id of ids)
    if (id >= words.length) return `word id ${id} outside the ${words.length} corpus words`;
  return undefined;
}

/**
 * Late interaction over the dense encoder's word vectors (ColBERT's MaxSim on single words): for
 * each distinct query word, the best cosine with any word of the document, averaged with the
 * encoder's pooling weights (IDF). A rare name in the request finds itself (cosine 1) in the
 * APIs that contain it, which the mean of 30 word vectors blurs; a near word (another form,
 * a synonym the training brought close) scores in between.
 */
export class WordMatcher {
  private readonly dim: number;
  /** Vectors of corpus words, made on first use (a query touches the words of its candidates only). */
  private readonly vectors: Array<Float32Array | undefined>;
  /** Scores a query's block of candidate words (SIMD; undefined: the JavaScript loop). */
  private readonly kernel: BlockDotKernel | undefined;

  constructor(
    private readonly enc: DenseEncoder,
    private readonly table: Float32Array,
    private readonly lists: DocWordLists,
  ) {
    this.dim = enc.config.dim;
    this.vectors = new Array(lists.words.length);
    this.kernel = createBlockDotKernel(this.dim);
  }

  private corpusWord(id: number): Float32Array {
    let v = this.vectors[id];
    if (!v) {
      v = this.enc.wordVector(this.table, this.lists.words[id] as string);
      this.vectors[id] = v;
    }
    return v;
  }

  /**
   * The match score in [0, 1] of each of `docs` for `query` (0 for a query without words):
   * Σ_w weight(w) · max(0, max_u cos(w, u)) / Σ_w weight(w) over the query's distinct words w and
   * the document's words u.
   */
  scores(query: string, docs: readonly number[]): Float64Array {
    const out = new Float64Array(docs.length);
    const qWords = [...new Set(denseWords(query))];
    if (qWords.length === 0 || docs.length === 0) return out;
    const q = qWords.length;
    const d = this.dim;
    const weights = qWords.map((w) => this.enc.wordWeight(w));
    const total = weights.reduce((a, b) => a + b, 0);
    // the distinct words of the candidates, one block of vectors, each scored against every query
    // word in one exact scan (the SIMD kernel): cos[k][slot of u]
    const { offsets, ids } = this.lists;
    const slotOf = new Map<number, number>();
    for (const doc of docs)
      for (let p = offsets[doc] as number, end = offsets[doc + 1] as number; p < end; p++)
        if (!slotOf.has(ids[p] as number)) slotOf.set(ids[p] as number, slotOf.size);
    const block = new Float32Array(slotOf.size * d);
    for (const [id, slot] of slotOf) block.set(this.corpusWord(id), slot * d);
    const qVec = new Float32Array(d);
    let scan: (query: Float32Array) => Float32Array;
    if (this.kernel) {
      this.kernel.load(block);
      scan = (query) => (this.kernel as BlockDotKernel).scoreAll(query);
    } else {
      const index = new VectorIndex(d, block, { simd: false });
      scan = (query) => index.scoreAll(query);
    }
    const cos = qWords.map((w) => scan(this.enc.wordVector(this.table, w, qVec)));
    const best = new Float64Array(q);
    docs.forEach((doc, j) => {
      best.fill(0);
      for (let p = offsets[doc] as number, end = offsets[doc + 1] as number; p < end; p++) {
        const slot = slotOf.get(ids[p] as number) as number;
        for (let k = 0; k < q; k++) {
          const c = (cos[k] as Float32Array)[slot] as number;
          if (c > (best[k] as number)) best[k] = c;
        }
      }
      let sum = 0;
      for (let k = 0; k < q; k++) sum += (weights[k] as number) * (best[k] as number);
      out[j] = sum / total;
    });
    return out;
  }
}
