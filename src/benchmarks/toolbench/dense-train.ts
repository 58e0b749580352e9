import {
  Bm25Index,
  type DenseModel,
  type DensePair,
  type DenseTrainOptions,
  mineHardNegatives,
  type RetrievalQuery,
  type Retriever,
  trainDenseEncoder,
} from '../../retrieval/index.js';
import {
  TOOLBENCH_DENSE_DEFAULTS,
  toolBenchDensePairs,
  toolBenchQueryPairs,
  toolBenchSyntheticRequests,
} from './dense-pairs.js';
import type { ToolBenchSuite } from './suite.js';

/** How the ToolBench dense encoder is trained (defaults: `TOOLBENCH_DENSE_DEFAULTS`, then the encoder's). */
export interface ToolBenchDenseOptions {
  /** The G1 query files whose requests become training pairs (the held-out file is not among them). */
  trainOn: readonly string[];
  seed?: number;
  epochs?: number;
  oversample?: number;
  /** Hard negatives mined per request (0: none). */
  negatives?: number;
  toolContext?: number;
  /** Share of a known word's weight on its own row; 'mean' = no own row (plain n-gram mean). */
  wordRowShare?: number | 'mean';
  sentenceWeight?: number;
  /** Late interaction weight β (`DenseEncoderConfig.wordMatchWeight`; 0: none). */
  wordMatchWeight?: number;
  scale?: number;
  dim?: number;
  buckets?: number;
  lr?: number;
  /** Learning-rate schedule (`trainDenseEncoder`'s; default constant). */
  lrSchedule?: DenseTrainOptions['lrSchedule'];
  minCount?: number;
  batchSize?: number;
  /** Synthetic multi-API requests per tool (`toolBenchSyntheticRequests`; 0: none), each paired once with each API it names. */
  syntheticRequests?: number;
  /** Hard negatives mined per synthetic request (0: none). */
  syntheticNegatives?: number;
  /** Keep only this many catalog pairs (a cut-down run). */
  catalogLimit?: number;
  /** The retriever that mines the hard negatives (default: `bm25` over the suite's texts). */
  miner?: Retriever;
  onBatch?: DenseTrainOptions['onBatch'];
}

/** Where an encoder's pairs came from: the training files and how many pairs each source gave. */
export interface ToolBenchDenseCounts {
  trainOn: readonly string[];
  requests: number;
  catalogPairs: number;
  /** Synthetic requests made from the catalog, and their (request, API) pairs. */
  syntheticRequests: number;
  syntheticPairs: number;
  queryPairs: number;
}

/** The pairs an encoder learns from, and where they came from. */
export interface ToolBenchDenseSet extends ToolBenchDenseCounts {
  /** Catalog pairs first, then the synthetic requests', then the benchmark requests'. */
  pairs: DensePair[];
  /** The corpus texts the vocabulary is fitted on. */
  texts: readonly string[];
}

/**
 * The training pairs: the catalog's (`toolBenchDensePairs`), the synthetic requests made from the
 * catalog (`toolBenchSyntheticRequests`) and the requests of `trainOn`, both through
 * `toolBenchQueryPairs` with hard negatives mined by `opts.miner` (default bm25). Holds no
 * reference to the suite, so a caller that drops it frees the parsed catalog before training.
 */
export async function toolBenchDenseSet(
  suite: ToolBenchSuite,
  opts: ToolBenchDenseOptions,
): Promise<ToolBenchDenseSet> {
  const queries = opts.trainOn.flatMap((f) => suite.sets.get(f)?.queries ?? []);
  // one bm25 index for both minings, built only when needed
  let bm25: Retriever | undefined;
  const miner = (): Retriever => {
    if (opts.miner) return opts.miner;
    bm25 ??= new Bm25Index(suite.texts);
    return bm25;
  };
  /** (request, API) pairs of `list`, each request with its `k` mined hard negatives (none for k = 0). */
  const requestPairs = async (list: readonly RetrievalQuery[], oversample: number, k: number) => {
    const negatives = k > 0 && list.length ? await mineHardNegatives(miner(), list, k) : undefined;
    return toolBenchQueryPairs(suite, list, { oversample, ...(negatives ? { negatives } : {}) });
  };
  const D = TOOLBENCH_DENSE_DEFAULTS;
  const queryPairs = await requestPairs(
    queries,
    opts.oversample ?? D.oversample,
    opts.negatives ?? D.negatives,
  );
  const catalog = toolBenchDensePairs(suite.docs, suite.texts, suite.toolOf, {
    seed: opts.seed ?? 42,
    ...(opts.catalogLimit !== undefined ? { limit: opts.catalogLimit } : {}),
  });
  const perTool = opts.syntheticRequests ?? D.syntheticRequests;
  const requests = perTool
    ? toolBenchSyntheticRequests(suite.docs, suite.toolOf, { perTool, seed: opts.seed ?? 42 })
    : [];
  const synthetic = await requestPairs(requests, 1, opts.syntheticNegatives ?? D.syntheticNegatives);
  return {
    pairs: [...catalog, ...synthetic, ...queryPairs],
    texts: suite.texts,
    trainOn: [...opts.trainOn],
    requests: queries.length,
    catalogPairs: catalog.length,
    syntheticRequests: requests.length,
    syntheticPairs: synthetic.length,
    queryPairs: queryPairs.length,
  };
}

/** A trained encoder and what it learnt from. */
export interface ToolBenchDenseResult extends ToolBenchDenseCounts {
  model: DenseModel;
  epochLosses: number[];
  /** Wall time of the training proper (not of building the pairs). */
  seconds: number;
}

/** Trains the encoder on a set from `toolBenchDenseSet` (deterministic for a seed). */
export function trainToolBenchDenseSet(
  set: ToolBenchDenseSet,
  opts: Omit<ToolBenchDenseOptions, 'trainOn'>,
): ToolBenchDenseResult {
  const D = TOOLBENCH_DENSE_DEFAULTS;
  const share = opts.wordRowShare ?? D.wordRowShare;
  const t = performance.now();
  const { model, epochLosses } = trainDenseEncoder(set.pairs, {
    epochs: opts.epochs ?? 1,
    seed: opts.seed ?? 42,
    scale: opts.scale ?? D.scale,
    ...(opts.lr !== undefined ? { lr: opts.lr } : {}),
    ...(opts.lrSchedule !== undefined ? { lrSchedule: opts.lrSchedule } : {}),
    ...(opts.minCount !== undefined ? { minCount: opts.minCount } : {}),
    ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
    // key order as `retrieve train` always wrote it: the saved model's bytes depend on it
    config: {
      ...(opts.dim !== undefined ? { dim: opts.dim } : {}),
      ...(opts.buckets !== undefined ? { buckets: opts.buckets } : {}),
      toolContext: opts.toolContext ?? D.toolContext,
      ...(share !== 'mean' ? { wordRowShare: share } : {}),
      sentenceWeight: opts.sentenceWeight ?? D.sentenceWeight,
      wordMatchWeight: opts.wordMatchWeight ?? D.wordMatchWeight,
    },
    vocabularyTexts: set.texts,
    ...(opts.onBatch ? { onBatch: opts.onBatch } : {}),
  });
  const { pairs: _pairs, texts: _texts, ...counts } = set;
  return { model, epochLosses, ...counts, seconds: (performance.now() - t) / 1000 };
}

/**
 * The ToolBench dense encoder: trained with the MNR loss on the catalog pairs, the synthetic
 * requests and the requests of `opts.trainOn` (hard negatives mined with bm25). The CLI's `retrieve train --retriever dense`,
 * perf/dense-retrieval.ts and perf/retrieval-scale.ts all train through here.
 */
export async function trainToolBenchDense(
  suite: ToolBenchSuite,
  opts: ToolBenchDenseOptions,
): Promise<ToolBenchDenseResult> {
  return trainToolBenchDenseSet(await toolBenchDenseSet(suite, opts), opts);
}
