import { mulberry32 } from '../shared/index.js';
import { splitSentences } from './field-features.js';
import { Adam, mnrLossAndGrad, type Projection } from './mnr.js';
import { type SparseVector, shuffleInPlace } from './sparse.js';
import { denseWords } from './tokenize.js';
import { topK } from './top-k.js';
import type { RetrievalHit, Retriever } from './types.js';
import { VectorIndex } from './vector-index.js';
import { type DocWordLists, docWordLists, docWordListsProblem, WordMatcher } from './word-match.js';

/**
 * A fastText/StarSpace-style text encoder trained from scratch: each word is its own row (when in
 * the vocabulary) plus its character n-grams of `<word>` hashed into `buckets` rows; a word's
 * vector is the mean of its rows, a text's vector the mean of its words', L2-normalised. The rows
 * are one `Projection` (dIn = vocabulary + buckets) so `mnrLossAndGrad` and `Adam` train it.
 */
export interface DenseEncoderConfig {
  dim: number;
  /** Hash buckets for character n-grams. */
  buckets: number;
  minN: number;
  maxN: number;
  /**
   * Weight γ of the tool's vector in a document's: v(API) = norm(ê(API text) + γ ê(tool text)),
   * applied when the corpus is encoded with its tools (0 or absent: the API text alone).
   */
  toolContext?: number;
  /**
   * Share of a vocabulary word's weight on its own row (the rest split among its n-gram rows);
   * absent: every row of the word weighs the same (fastText's mean).
   */
  wordRowShare?: number;
  /**
   * Weight w of the best single sentence: score(d) = cos(query, d) + w · max over the query's
   * sentences of cos(sentence, d), for queries of 2+ sentences (a request naming several APIs,
   * one per sentence, blurs into one mean vector). 0 or absent: the whole query only.
   */
  sentenceWeight?: number;
  /**
   * Weight β of late interaction (`WordMatcher`): the `WORD_MATCH_DEPTH` best documents by the
   * score above get + β · (IDF-weighted mean over the query's words of the best cosine with one of
   * the document's words); the others keep their score, which is below all of those. 0 or absent:
   * no word matching.
   */
  wordMatchWeight?: number;
}

/**
 * Documents re-scored by word matching: on ToolBench (G1_tool held out, β 0.5) NDCG@5 was the
 * same for 50, 200 and 500 (the relevant APIs that gain are already near the top).
 */
export const WORD_MATCH_DEPTH = 100;

/** 128-d and 65,536 buckets: on ToolBench 128-d beat 48-d by 7–9 NDCG@5 points, 256-d added 1–3 more at 5× the query time. */
export const DENSE_DEFAULTS: DenseEncoderConfig = { dim: 128, buckets: 1 << 16, minN: 3, maxN: 5 };

/**
 * Divides a vector by its L2 norm in place (zeros stay zeros). Not `l2NormalizeInPlace`, which
 * multiplies by the inverse: dividing keeps every encoded vector bit-identical to the saved ones.
 */
function divideByNorm(v: Float32Array): Float32Array {
  let n = 0;
  for (let r = 0; r < v.length; r++) n += (v[r] as number) ** 2;
  n = Math.sqrt(n);
  if (n > 0) for (let r = 0; r < v.length; r++) v[r] = (v[r] as number) / n;
  return v;
}

/** 32-bit FNV-1a over UTF-16 code units (stable across runs and platforms). */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Character n-grams (minN..maxN) of `<word>`, in order of length then position. */
export function charNgrams(word: string, minN: number, maxN: number): string[] {
  const w = `<${word}>`;
  const out: string[] = [];
  for (let n = minN; n <= maxN; n++) for (let i = 0; i + n <= w.length; i++) out.push(w.slice(i, i + n));
  return out;
}

/** The trained encoder: vocabulary, config and the row table (float32, row-major: row·dim + r). */
export interface DenseModel {
  config: DenseEncoderConfig;
  vocabulary: string[];
  /** Pooling weight of each vocabulary word, then one for words outside it (`denseWordWeights`). */
  weights: Float32Array;
  table: Float32Array;
  info: Record<string, unknown>;
}

export class DenseEncoder {
  private readonly wordId: Map<string, number>;
  private readonly rowCache = new Map<string, number[]>();
  /**
   * `weights` (vocabulary + 1 entries, the last for unknown words) make the pooling a weighted
   * mean (IDF: rare words carry the meaning); without them every word weighs the same.
   */
  constructor(
    readonly config: DenseEncoderConfig,
    readonly vocabulary: readonly string[],
    private readonly weights?: Float32Array,
  ) {
    this.wordId = new Map(vocabulary.map((w, i) => [w, i]));
    if (weights && weights.length !== vocabulary.length + 1)
      throw new RangeError(`${weights.length} word weights for ${vocabulary.length} words (+1 unknown)`);
  }

  /** Pooling weight of a word (1 without weights). */
  wordWeight(word: string): number {
    if (!this.weights) return 1;
    return this.weights[this.wordId.get(word) ?? this.vocabulary.length] as number;
  }

  get rows(): number {
    return this.vocabulary.length + this.config.buckets;
  }

  /** Rows of one word: its own (if in the vocabulary), then its n-gram buckets (memoised: words repeat). */
  wordRows(word: string): readonly number[] {
    let rows = this.rowCache.get(word);
    if (!rows) {
      const { minN, maxN, buckets } = this.config;
      const v = this.vocabulary.length;
      const own = this.wordId.get(word);
      const grams = charNgrams(word, minN, maxN).map((g) => v + (fnv1a(g) % buckets));
      rows = own === undefined ? grams : [own, ...grams];
      if (this.rowCache.size < 500_000) this.rowCache.set(word, rows);
    }
    return rows;
  }

  /**
   * Weighted mean pooling as a sparse vector: word w weighs weight(w)/Σweight, shared equally by
   * its rows (or `wordRowShare` of it on its own row and the rest on its n-grams).
   */
  features(text: string): SparseVector {
    const words = denseWords(text);
    const acc = new Map<number, number>();
    const own = this.config.wordRowShare;
    const v = this.vocabulary.length;
    let total = 0;
    for (const w of words) total += this.wordWeight(w);
    for (const w of words) {
      const rows = this.wordRows(w);
      const weight = this.wordWeight(w) / total;
      if (own !== undefined && rows.length > 1 && (rows[0] as number) < v) {
        acc.set(rows[0] as number, (acc.get(rows[0] as number) ?? 0) + weight * own);
        const share = (weight * (1 - own)) / (rows.length - 1);
        for (let k = 1; k < rows.length; k++)
          acc.set(rows[k] as number, (acc.get(rows[k] as number) ?? 0) + share);
        continue;
      }
      const share = this.wordWeight(w) / (total * rows.length);
      for (const r of rows) acc.set(r, (acc.get(r) ?? 0) + share);
    }
    return { idx: Int32Array.from(acc.keys()), val: Float32Array.from(acc.values()) };
  }

  /**
   * The L2-normalised vector of one word already analysed by `denseWords` (its rows weighed as in
   * `features`), for late interaction (`WordMatcher`).
   */
  wordVector(
    table: Float32Array,
    word: string,
    out: Float32Array = new Float32Array(this.config.dim),
  ): Float32Array {
    const rows = this.wordRows(word);
    const own = this.config.wordRowShare;
    const d = this.config.dim;
    const ownRow = own !== undefined && rows.length > 1 && (rows[0] as number) < this.vocabulary.length;
    out.fill(0);
    rows.forEach((row, k) => {
      const w = ownRow ? (k === 0 ? own : (1 - own) / (rows.length - 1)) : 1 / rows.length;
      const base = row * d;
      for (let r = 0; r < d; r++) out[r] = (out[r] as number) + w * (table[base + r] as number);
    });
    return divideByNorm(out);
  }

  /** The L2-normalised vector of a text under `table` (zero for a text without words). */
  encode(
    table: Float32Array,
    text: string,
    out: Float32Array = new Float32Array(this.config.dim),
  ): Float32Array {
    const x = this.features(text);
    const d = this.config.dim;
    out.fill(0);
    for (let k = 0; k < x.idx.length; k++) {
      const base = (x.idx[k] as number) * d;
      const v = x.val[k] as number;
      for (let r = 0; r < d; r++) out[r] = (out[r] as number) + v * (table[base + r] as number);
    }
    return divideByNorm(out);
  }
}

/**
 * Words kept as their own rows: those in at least `minCount` of the texts, most frequent first
 * (ties alphabetical), at most `maxWords`. Rare words still get their n-gram rows.
 */
export function denseVocabulary(texts: readonly string[], minCount = 2, maxWords = 100_000): string[] {
  const df = new Map<string, number>();
  for (const t of texts) for (const w of new Set(denseWords(t))) df.set(w, (df.get(w) ?? 0) + 1);
  return [...df]
    .filter(([, c]) => c >= minCount)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, maxWords)
    .map(([w]) => w);
}

/**
 * IDF pooling weights for a vocabulary fitted on `texts`: ln(1 + N/df) per word, and ln(1 + N)
 * (df = 1) for words outside the vocabulary.
 */
export function denseWordWeights(vocabulary: readonly string[], texts: readonly string[]): Float32Array {
  const id = new Map(vocabulary.map((w, i) => [w, i]));
  const df = new Float64Array(vocabulary.length);
  for (const t of texts)
    for (const w of new Set(denseWords(t))) {
      const i = id.get(w);
      if (i !== undefined) df[i] = (df[i] as number) + 1;
    }
  const n = texts.length;
  const out = new Float32Array(vocabulary.length + 1);
  df.forEach((c, i) => {
    out[i] = Math.log(1 + n / Math.max(1, c));
  });
  out[vocabulary.length] = Math.log(1 + n);
  return out;
}

/** One training pair: a text and the text it should land next to (in-batch negatives for the rest). */
export interface DensePair {
  query: string;
  doc: string;
  /** A group (e.g. the API's category): batches are filled from one group at a time (harder negatives). */
  group?: number;
  /**
   * A text the query must rank below `doc` (a mined hard negative); it joins the batch's documents,
   * so it is a negative for every query of the batch.
   */
  negative?: string;
  /**
   * Pairs with the same key never share a batch (e.g. the query text: the pairs of one query with
   * each of its relevant documents, or its repeats, would be each other's false negatives).
   */
  key?: string;
}

/**
 * The batches of one epoch (pair indices): pairs shuffled; with groups, the groups in a random
 * order each holding its shuffled pairs, cut into batches whose order is shuffled again (so most
 * in-batch negatives share the positive's group and training sees the groups interleaved). A
 * final batch smaller than `batchSize` is dropped.
 */
export function epochBatches(pairs: readonly DensePair[], batchSize: number, rand: () => number): number[][] {
  const order = shuffleInPlace(
    pairs.map((_, i) => i),
    rand,
  );
  // in order, except that a pair whose key is already in the batch waits for the next batch it fits
  const cut = () => {
    const out: number[][] = [];
    let batch: number[] = [];
    let keys = new Set<string>();
    const waiting: number[] = [];
    const fits = (i: number) => {
      const k = pairs[i]?.key;
      return k === undefined || !keys.has(k);
    };
    const place = (i: number) => {
      batch.push(i);
      const k = pairs[i]?.key;
      if (k !== undefined) keys.add(k);
      if (batch.length === batchSize) {
        out.push(batch);
        batch = [];
        keys = new Set();
      }
    };
    for (const i of order) {
      for (let w = 0; w < waiting.length; )
        if (fits(waiting[w] as number)) place(waiting.splice(w, 1)[0] as number);
        else w++;
      if (fits(i)) place(i);
      else waiting.push(i);
    }
    return out;
  };
  if (!pairs.some((p) => p.group !== undefined)) return cut();
  const rank = new Map<number, number>();
  const groups = shuffleInPlace([...new Set(pairs.map((p) => p.group ?? -1))], rand);
  groups.forEach((g, i) => {
    rank.set(g, i);
  });
  const key = (i: number) => rank.get(pairs[i]?.group ?? -1) as number;
  order.sort((a, b) => key(a) - key(b)); // stable: pairs stay shuffled within a group
  return shuffleInPlace(cut(), rand);
}

/**
 * The documents of a batch for the MNR loss: each pair's document (its positive, in pair order),
 * then the pairs' hard negatives, once each and never one that is a positive of the batch.
 */
export function batchDocuments(batch: readonly DensePair[]): string[] {
  const docs = batch.map((x) => x.doc);
  const seen = new Set(docs);
  for (const x of batch)
    if (x.negative !== undefined && !seen.has(x.negative)) {
      seen.add(x.negative);
      docs.push(x.negative);
    }
  return docs;
}

export interface DenseTrainOptions {
  config?: Partial<DenseEncoderConfig>;
  epochs?: number;
  batchSize?: number;
  lr?: number;
  /** Learning-rate schedule: `constant`, or `linear` decay from `lr` to 0 over all batches. */
  lrSchedule?: 'constant' | 'linear';
  /** Softmax scale of the cosines (MNR). */
  scale?: number;
  seed?: number;
  /** Texts to fit the vocabulary on (default: both sides of the pairs). */
  vocabularyTexts?: readonly string[];
  minCount?: number;
  /** IDF-weighted pooling (default true; false = plain mean). */
  idf?: boolean;
  onBatch?: (info: { epoch: number; batch: number; batches: number; loss: number }) => void;
}

/**
 * Trains the encoder with the MNR loss (in-batch negatives) and lazy Adam, deterministically for
 * a seed: rows start uniform in ±1/√dim from a seeded generator; pairs are shuffled per epoch.
 */
export function trainDenseEncoder(
  pairs: readonly DensePair[],
  opts: DenseTrainOptions = {},
): { model: DenseModel; epochLosses: number[] } {
  const config = { ...DENSE_DEFAULTS, ...opts.config };
  const rand = mulberry32(opts.seed ?? 42);
  const vocabTexts = opts.vocabularyTexts ?? pairs.flatMap((p) => [p.query, p.doc]);
  const vocabulary = denseVocabulary(vocabTexts, opts.minCount ?? 2);
  const weights =
    opts.idf === false
      ? new Float32Array(vocabulary.length + 1).fill(1)
      : denseWordWeights(vocabulary, vocabTexts);
  const enc = new DenseEncoder(config, vocabulary, weights);
  const dIn = enc.rows;
  const p: Projection = { dIn, dOut: config.dim, w: new Float64Array(dIn * config.dim) };
  const a = 1 / Math.sqrt(config.dim);
  for (let i = 0; i < p.w.length; i++) p.w[i] = (2 * rand() - 1) * a;
  const adam = new Adam(p, opts.lr ?? 5e-3);
  const grad = new Float64Array(p.w.length);
  const epochs = opts.epochs ?? 1;
  const batchSize = opts.batchSize ?? 64;
  const scale = opts.scale ?? 20;
  const epochLosses: number[] = [];
  const linear = opts.lrSchedule === 'linear';
  let step = 0;
  for (let e = 0; e < epochs; e++) {
    const list = epochBatches(pairs, batchSize, rand);
    const batches = list.length;
    const total = batches * epochs;
    let sum = 0;
    for (let b = 0; b < batches; b++) {
      const batch = (list[b] as number[]).map((i) => pairs[i] as DensePair);
      const { loss, touched } = mnrLossAndGrad(
        p,
        batch.map((x) => enc.features(x.query)),
        batchDocuments(batch).map((t) => enc.features(t)),
        scale,
        grad,
      );
      adam.step(grad, touched, linear ? 1 - step / total : 1);
      step++;
      sum += loss;
      opts.onBatch?.({ epoch: e, batch: b, batches, loss });
    }
    epochLosses.push(batches ? sum / batches : 0);
  }
  return {
    model: {
      config,
      vocabulary,
      weights,
      table: Float32Array.from(p.w),
      info: {
        pairs: pairs.length,
        epochs,
        batchSize,
        lr: opts.lr ?? 5e-3,
        ...(linear ? { lrSchedule: 'linear' } : {}),
        scale,
        seed: opts.seed ?? 42,
        epochLosses,
      },
    },
    epochLosses,
  };
}

/** The tools of a corpus: one text per tool and each document's tool (e.g. `FieldedCorpus.groups`). */
export interface DenseToolContext {
  texts: readonly string[];
  groupOf: ArrayLike<number>;
}

/**
 * The document vectors of a corpus (row-major, n × dim, each L2-normalised). With `tools` and a
 * model whose `toolContext` γ is > 0, each is norm(ê(text) + γ ê(its tool's text)): the tool's
 * other APIs speak for it (G1 requests name several APIs of one tool).
 */
export function encodeCorpus(
  model: DenseModel,
  texts: readonly string[],
  tools?: DenseToolContext,
): Float32Array {
  const enc = new DenseEncoder(model.config, model.vocabulary, model.weights);
  const d = model.config.dim;
  const out = new Float32Array(texts.length * d);
  texts.forEach((t, i) => {
    enc.encode(model.table, t, out.subarray(i * d, (i + 1) * d));
  });
  const gamma = model.config.toolContext ?? 0;
  if (!tools || gamma <= 0) return out;
  const toolVectors = new Float32Array(tools.texts.length * d);
  tools.texts.forEach((t, g) => {
    enc.encode(model.table, t, toolVectors.subarray(g * d, (g + 1) * d));
  });
  for (let i = 0; i < texts.length; i++) {
    const v = out.subarray(i * d, (i + 1) * d);
    const g = (tools.groupOf[i] as number) * d;
    let n = 0;
    for (let r = 0; r < d; r++) {
      v[r] = (v[r] as number) + gamma * (toolVectors[g + r] as number);
      n += (v[r] as number) ** 2;
    }
    n = Math.sqrt(n);
    if (n > 0) for (let r = 0; r < d; r++) v[r] = (v[r] as number) / n;
  }
  return out;
}

/** `dense`: cosine between the encoded query and the stored document vectors (+ word matching). */
export class DenseRetriever implements Retriever {
  readonly name = 'dense';
  private readonly enc: DenseEncoder;
  private readonly q: Float32Array;
  /** Exact dot products (a Wasm SIMD kernel when the dimension allows). */
  private readonly index: VectorIndex;
  private readonly sentenceWeight: number;
  private readonly wordMatchWeight: number;
  private readonly matcher: WordMatcher | undefined;
  /**
   * `sentenceWeight` and `wordMatchWeight` override the model's config; `docWords` (the corpus
   * texts' `docWordLists`) is required when word matching is on.
   */
  constructor(
    private readonly model: DenseModel,
    docs: Float32Array,
    opts: { sentenceWeight?: number; wordMatchWeight?: number; docWords?: DocWordLists } = {},
  ) {
    this.enc = new DenseEncoder(model.config, model.vocabulary, model.weights);
    this.q = new Float32Array(model.config.dim);
    this.index = new VectorIndex(model.config.dim, docs);
    this.sentenceWeight = opts.sentenceWeight ?? model.config.sentenceWeight ?? 0;
    this.wordMatchWeight = opts.wordMatchWeight ?? model.config.wordMatchWeight ?? 0;
    if (this.wordMatchWeight > 0) {
      if (!opts.docWords)
        throw new RangeError(
          `this encoder matches words (wordMatchWeight ${this.wordMatchWeight}): pass the documents' word lists`,
        );
      const problem = docWordListsProblem(opts.docWords, this.index.size);
      if (problem) throw new RangeError(problem);
      this.matcher = new WordMatcher(this.enc, model.table, opts.docWords);
    }
  }

  /** Encodes `texts` (with their tools' context) and, when the model matches words, lists their words. */
  static build(model: DenseModel, texts: readonly string[], tools?: DenseToolContext): DenseRetriever {
    return new DenseRetriever(model, encodeCorpus(model, texts, tools), {
      ...((model.config.wordMatchWeight ?? 0) > 0 ? { docWords: docWordLists(texts) } : {}),
    });
  }

  get size(): number {
    return this.index.size;
  }

  async scoreAll(query: string): Promise<Float32Array> {
    const whole = this.index.scoreAll(this.enc.encode(this.model.table, query, this.q));
    const sentences = this.sentenceWeight > 0 ? splitSentences(query) : [];
    if (sentences.length >= 2) {
      let best: Float32Array | undefined;
      for (const s of sentences) {
        const x = this.index.scoreAll(this.enc.encode(this.model.table, s, this.q));
        if (!best) best = x;
        else
          for (let i = 0; i < x.length; i++)
            if ((x[i] as number) > (best[i] as number)) best[i] = x[i] as number;
      }
      const w = this.sentenceWeight;
      const b = best as Float32Array;
      for (let i = 0; i < whole.length; i++) whole[i] = (whole[i] as number) + w * (b[i] as number);
    }
    if (this.matcher) {
      // match scores are ≥ 0, so the re-scored documents stay above the rest
      const top = topK(whole, WORD_MATCH_DEPTH).map((h) => h.doc);
      const m = this.matcher.scores(query, top);
      top.forEach((doc, j) => {
        whole[doc] = (whole[doc] as number) + this.wordMatchWeight * (m[j] as number);
      });
    }
    return whole;
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return topK(await this.scoreAll(query), k);
  }
}
