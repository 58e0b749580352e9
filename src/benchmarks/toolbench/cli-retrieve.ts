import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { resolveDataDir } from '../../catalog/index.js';
import { EXIT_INTERRUPTED, trapSigint } from '../../cli/interrupt.js';
import { parseChoice, parseInteger, parseList, parseNumber, parseOutputPath } from '../../cli/options.js';
import { printJson } from '../../cli/output.js';
import { openCliIndex, trainProgress } from '../../cli/retrieval-index.js';
import type { RetrievalDataset } from '../../plugins/index.js';
import {
  COMPOSED_TEST_ROUNDS,
  cachedIndexFiles,
  composedTestRequests,
  configMismatch,
  DENSE_DEFAULTS,
  type DenseModel,
  loadTrainCheckpoint,
  loadWordVectors,
  type OpenedIndex,
  saveDenseModel,
  saveTrainCheckpoint,
  saveTrainedModel,
  type TrainedModel,
  type TrainState,
  useFieldIndexes,
} from '../../retrieval/index.js';
import { ApiaryError, NotFoundError } from '../../shared/index.js';
import {
  buildToolBenchIndex,
  fitToolBenchFeatures,
  loadToolBenchEvalSuite,
  loadToolBenchSuite,
  RANKER_MULTI_TOOL_REQUESTS,
  TOOLBENCH_DENSE_DEFAULTS,
  TOOLBENCH_GROUPS,
  type ToolBenchSuite,
  toolBenchCatalogHash,
  toolBenchCatalogHashFast,
  toolBenchCorpus,
  toolBenchDenseSet,
  trainToolBenchDenseSet,
  trainToolBenchModelUntil,
  trainToolBenchRanker,
} from './index.js';

const log = (msg: string) => process.stderr.write(`${msg}\n`);

/** The ToolBench index (loaded, or built from the suite on first use). */
function toolBenchIndex(
  dataDir: string,
  index: { path?: string; quiet: boolean },
  suite: () => ToolBenchSuite,
): OpenedIndex {
  const catalogHash = toolBenchCatalogHashFast(
    dataDir,
    index.path ? [index.path] : cachedIndexFiles('toolbench'),
  );
  return openCliIndex({
    ...(index.path ? { path: index.path } : {}),
    catalog: 'toolbench',
    catalogHash,
    corpus: () => toolBenchCorpus(suite()),
    build: (_corpus, onStep) => buildToolBenchIndex(suite(), catalogHash, { onStep, dataDir }),
    quiet: index.quiet,
  });
}

/**
 * `retrieve train --retriever dense`: the encoder learns from pairs made of the catalog
 * (`toolBenchDensePairs`, and the synthetic requests of `toolBenchSyntheticRequests`) and from
 * the (request, API) pairs of the query files not held out
 * (`toolBenchQueryPairs`, each with hard negatives: the APIs `bm25` ranks highest that are not
 * relevant); `--holdout all` trains on the catalog alone.
 */
async function trainDenseCommand(
  dataDir: string,
  out: string,
  opts: {
    holdout: string;
    epochs: number;
    seed: number;
    dim: number;
    buckets: number;
    oversample: number;
    negatives: number;
    toolContext: number;
    wordRowShare: number;
    sentenceWeight: number;
    scale: number;
    syntheticRequests: number;
    json: boolean;
  },
): Promise<void> {
  // only the pairs and the corpus texts outlive this: the parsed catalog (~350 MB) and the BM25
  // index of the mining are garbage before the training arrays are allocated
  const { set, heldOut } = await (async () => {
    const suite = loadToolBenchSuite(dataDir, TOOLBENCH_GROUPS);
    const files = [...suite.sets.keys()];
    const heldOut =
      opts.holdout === 'all'
        ? files
        : opts.holdout === 'none'
          ? []
          : (parseList('--holdout', opts.holdout) ?? []);
    for (const h of heldOut)
      if (!suite.sets.has(h)) throw new NotFoundError('query file', h, [...files, 'all', 'none']);
    const trainOn = files.filter((f) => !heldOut.includes(f));
    return { set: await toolBenchDenseSet(suite, { ...opts, trainOn }), heldOut };
  })();
  const { trainOn, pairs } = set;
  log(
    `dense encoder: ${pairs.length} pairs (${set.queryPairs} from ${trainOn.length ? trainOn.join(', ') : 'no query file'}, ${set.syntheticPairs} from ${set.syntheticRequests} synthetic requests, the rest from the catalog); held out: ${heldOut.join(', ') || 'none'}; ${opts.epochs} epoch(s)`,
  );
  const t0 = performance.now();
  const progress = trainProgress('dense', opts.json);
  let model: DenseModel;
  try {
    model = trainToolBenchDenseSet(set, {
      ...opts,
      onBatch: (info) => progress.batch(info, opts.epochs),
    }).model;
  } finally {
    progress.stop();
  }
  model.info.benchmark = 'toolbench';
  model.info.trainOn = [...trainOn];
  model.info.heldOut = heldOut;
  model.info.queryPairs = set.queryPairs;
  model.info.oversample = opts.oversample;
  model.info.negatives = opts.negatives;
  model.info.syntheticRequests = set.syntheticRequests;
  model.info.seconds = Math.round((performance.now() - t0) / 1000);
  saveDenseModel(out, model);
  if (opts.json) printJson({ out, ...model.info });
  else
    process.stdout.write(
      `wrote ${out}: ${model.vocabulary.length} words + ${model.config.buckets} n-gram buckets → ${model.config.dim}-d, ${pairs.length} pairs, epoch losses ${(model.info.epochLosses as number[]).map((l) => l.toFixed(4)).join(' ')}, ${model.info.seconds} s\n`,
    );
}

/** `apiary retrieve train`: the projection retriever and its ranker, or the dense encoder, on ToolBench. */
function registerTrain(retrieve: Command): void {
  retrieve
    .command('train')
    .description(
      'train the projection retriever (MNR loss) and the ranker (listwise softmax over field features) on ToolBench; the holdout file is never trained on',
    )
    .option('--data <dir>', 'data folder with toolbench/tools.jsonl and toolbench/queries/')
    .option(
      '--retriever <kind>',
      'trained (projection + ranker) | dense (the offline encoder: catalog pairs, synthetic requests and the requests of the files not held out)',
      'trained',
    )
    .option(
      '--out <file>',
      'model file to write (default retriever.aprm, or dense.apdm with --retriever dense)',
    )
    .option('--overwrite', 'replace an existing --out file')
    .option(
      '--holdout <names>',
      'query files kept out of training (comma-separated; "all" for synthetic pairs only; "none" to train on every file)',
      'G1_tool',
    )
    .option('--epochs <n>', 'epochs (default 3, or 1 with --retriever dense)')
    .option('--dim <n>', `dense: vector size (default ${DENSE_DEFAULTS.dim})`)
    .option('--buckets <n>', `dense: character n-gram hash buckets (default ${DENSE_DEFAULTS.buckets})`)
    .option(
      '--oversample <n>',
      `dense: repeats of each (request, relevant API) pair (default ${TOOLBENCH_DENSE_DEFAULTS.oversample})`,
    )
    .option(
      '--negatives <n>',
      `dense: hard negatives mined with bm25 per request, 0 for none (default ${TOOLBENCH_DENSE_DEFAULTS.negatives})`,
    )
    .option(
      '--word-row-share <x>',
      `dense: share of a known word's weight on its own row, the rest on its n-grams (default ${TOOLBENCH_DENSE_DEFAULTS.wordRowShare})`,
    )
    .option(
      '--scale <s>',
      `dense: softmax scale of the cosines in the MNR loss (default ${TOOLBENCH_DENSE_DEFAULTS.scale})`,
    )
    .option(
      '--sentence-weight <w>',
      `dense: weight of the best query sentence's cosine beside the whole query's (default ${TOOLBENCH_DENSE_DEFAULTS.sentenceWeight})`,
    )
    .option(
      '--tool-context <w>',
      `dense: weight of the tool's vector in each API's (default ${TOOLBENCH_DENSE_DEFAULTS.toolContext})`,
    )
    .option(
      '--synthetic-requests <n>',
      `dense: synthetic multi-API requests per tool made from the catalog (default ${TOOLBENCH_DENSE_DEFAULTS.syntheticRequests})`,
    )
    .option(
      '--synthetic <n>',
      'trained: synthetic (description → API) pairs (default 0, or 8000 with --holdout all)',
    )
    .option('--seed <n>', 'random seed', '42')
    .option('--no-word-vectors', 'hashed lexical features only (no GloVe)')
    .option('--no-ranker', 'train the projection only (no weights for `ranked`)')
    .option(
      '--ranker-trained-feature',
      "the ranker also weighs the projection's cosine (one more projection training per training file when there are 2+; measured no gain on G1, and `ranked` then needs the corpus at query time)",
    )
    .option('--ranker-fields-only', 'the default since the trained cosine stopped helping (kept for scripts)')
    .option(
      '--ranker-multi-tool <n>',
      `ranker: two-tool requests composed per training request, learned beside them (default ${RANKER_MULTI_TOOL_REQUESTS}; 0: the files' requests alone)`,
    )
    .option(
      '--checkpoint-every <n>',
      'save a checkpoint every n batches (and at each epoch end) in <out>.ckpt/',
      '200',
    )
    .option(
      '--resume',
      'continue from the checkpoints in <out>.ckpt/ (kept by Ctrl-C or a crash; same options; the result equals an uninterrupted run; replaces <out>)',
    )
    .option('--json', 'machine-readable output')
    .action(
      async (flags: {
        data?: string;
        retriever: string;
        out?: string;
        checkpointEvery: string;
        resume?: boolean;
        index?: string | boolean;
        holdout: string;
        epochs?: string;
        dim?: string;
        buckets?: string;
        oversample?: string;
        negatives?: string;
        toolContext?: string;
        wordRowShare?: string;
        sentenceWeight?: string;
        scale?: string;
        synthetic?: string;
        syntheticRequests?: string;
        seed: string;
        wordVectors: boolean;
        ranker: boolean;
        rankerFieldsOnly?: boolean;
        rankerTrainedFeature?: boolean;
        rankerMultiTool?: string;
        overwrite?: boolean;
        json?: boolean;
      }) => {
        const trainKind = parseChoice('--retriever', flags.retriever, ['trained', 'dense'] as const);
        const epochs = parseInteger('--epochs', flags.epochs, { min: 0 }) ?? (trainKind === 'dense' ? 1 : 3);
        const synthetic = parseInteger('--synthetic', flags.synthetic, { min: 0 });
        const seed = parseInteger('--seed', flags.seed, { min: 0 });
        const multiToolRequests = parseInteger('--ranker-multi-tool', flags.rankerMultiTool, { min: 0 });
        if (flags.rankerTrainedFeature && flags.rankerFieldsOnly)
          throw new ApiaryError(
            'USAGE',
            '--ranker-trained-feature and --ranker-fields-only exclude each other',
          );
        // Checked before training (minutes), written whole by saveTrainedModel (temp file + rename).
        // --resume replaces the model a Ctrl-C wrote (its checkpoints are checked just below).
        const out = parseOutputPath(
          '--out',
          flags.out ?? (trainKind === 'dense' ? 'dense.apdm' : 'retriever.aprm'),
          'file',
          { overwrite: Boolean(flags.overwrite || flags.resume) },
        );
        const dataDir = resolveDataDir(flags.data);
        if (trainKind === 'dense') {
          const dim = parseInteger('--dim', flags.dim, { min: 1 }) ?? DENSE_DEFAULTS.dim;
          const buckets = parseInteger('--buckets', flags.buckets, { min: 1 }) ?? DENSE_DEFAULTS.buckets;
          const oversample =
            parseInteger('--oversample', flags.oversample, { min: 0 }) ?? TOOLBENCH_DENSE_DEFAULTS.oversample;
          const negatives =
            parseInteger('--negatives', flags.negatives, { min: 0 }) ?? TOOLBENCH_DENSE_DEFAULTS.negatives;
          const toolContext =
            parseNumber('--tool-context', flags.toolContext, { min: 0 }) ??
            TOOLBENCH_DENSE_DEFAULTS.toolContext;
          await trainDenseCommand(dataDir, out, {
            holdout: flags.holdout,
            epochs,
            seed,
            dim,
            buckets,
            oversample,
            negatives,
            toolContext,
            wordRowShare:
              parseNumber('--word-row-share', flags.wordRowShare, { min: 0, max: 1 }) ??
              TOOLBENCH_DENSE_DEFAULTS.wordRowShare,
            sentenceWeight:
              parseNumber('--sentence-weight', flags.sentenceWeight, { min: 0 }) ??
              TOOLBENCH_DENSE_DEFAULTS.sentenceWeight,
            scale: parseNumber('--scale', flags.scale, { min: 0 }) ?? TOOLBENCH_DENSE_DEFAULTS.scale,
            syntheticRequests:
              parseInteger('--synthetic-requests', flags.syntheticRequests, { min: 0 }) ??
              TOOLBENCH_DENSE_DEFAULTS.syntheticRequests,
            json: Boolean(flags.json),
          });
          return;
        }
        // the APIs' parsed JSON entries are never read by these trainings: dropped (~65 MiB)
        const suite = loadToolBenchSuite(dataDir, TOOLBENCH_GROUPS, { entries: false });
        const holdout =
          flags.holdout === 'all'
            ? [...suite.sets.keys()]
            : flags.holdout === 'none'
              ? []
              : parseList('--holdout', flags.holdout);
        const every = parseInteger('--checkpoint-every', flags.checkpointEvery, { min: 1 });
        const ckptDir = `${out}.ckpt`;
        if (flags.resume && !existsSync(ckptDir))
          throw new ApiaryError('USAGE', `--resume: no checkpoints in ${ckptDir} (start without --resume)`);
        for (const h of holdout)
          if (!suite.sets.has(h)) throw new NotFoundError('query file', h, [...suite.sets.keys(), 'all']);
        const trainOn = [...suite.sets.keys()].filter((g) => !holdout.includes(g));
        log(
          `training on ${trainOn.length ? trainOn.join(', ') : 'synthetic pairs only'}; held out: ${holdout.join(', ')}`,
        );
        // The ranker's field indexes come from the catalog's index file. Building it (first use)
        // costs a transient few hundred MB, spent here before the word vectors load; the file is
        // loaded again (0.2 s) for the ranker, so its 66 MB are not resident during training.
        const useIndexFile = flags.ranker && trainOn.length > 0 && flags.index !== false;
        const openIndex = () =>
          toolBenchIndex(
            dataDir,
            { ...(typeof flags.index === 'string' ? { path: flags.index } : {}), quiet: Boolean(flags.json) },
            () => suite,
          );
        if (useIndexFile) openIndex();
        const table = flags.wordVectors ? loadWordVectors().table : undefined;
        const t0 = performance.now();
        // one feature extractor for every stage (fitting it is the same work each time)
        const extractor = fitToolBenchFeatures(suite, table ? { table } : {});
        // The first Ctrl-C stops training after the batch in progress, saves that stage's checkpoint
        // and writes the model trained so far (whole: temp file + rename), without a ranker.
        const interrupt = trapSigint(
          'training stops after this batch; the model trained so far is written and a checkpoint kept for --resume',
        );
        // Each projection training is a stage with its own checkpoint file; --resume continues each
        // stage where it stopped (a finished stage is only re-assembled, not retrained).
        const train = async (files: readonly string[], stage: string) => {
          const config = {
            stage,
            trainOn: files,
            epochs,
            synthetic: synthetic ?? (files.length ? 0 : 8000),
            seed,
            wordVectors: Boolean(table),
          };
          const path = join(ckptDir, `${stage}.json`);
          let resume: TrainState | undefined;
          if (flags.resume && existsSync(path)) {
            const ck = loadTrainCheckpoint(path);
            const diff = configMismatch(ck.config, config);
            if (diff)
              throw new ApiaryError('USAGE', `--resume: ${path} was made with other options (${diff})`);
            resume = ck.state;
            log(`${stage}: resuming at epoch ${ck.state.epoch + 1}, batch ${ck.state.nextBatch + 1}`);
          }
          const progress = trainProgress(stage, Boolean(flags.json));
          try {
            return await trainToolBenchModelUntil(suite, {
              trainOn: files,
              epochs,
              synthetic: config.synthetic,
              seed,
              ...(table ? { table } : {}),
              extractor,
              ...(resume ? { resume } : {}),
              checkpoint: { every, save: (state) => saveTrainCheckpoint(path, { stage, config, state }) },
              onBatch: (info) => progress.batch(info, epochs),
              signal: interrupt.signal,
            });
          } finally {
            progress.stop();
          }
        };
        let model: TrainedModel;
        try {
          const main = await train(trainOn, 'projection');
          model = main.model;
          model.info.heldOut = holdout;
          if (flags.ranker && trainOn.length && !main.stopped) {
            // The ranker weighs the field features only unless asked: with `group.sentence` and the
            // composed requests the projection's cosine adds −0.4 to +0.2 NDCG@5 (docs/retrieval.md),
            // and without it `ranked` runs from an index file alone (a one-off query in ~1 s, not
            // ~10 s of corpus parsing). When asked, with 2+ training files each file's `trained`
            // feature comes from a model that did not see it (as at test time).
            const featureModels = new Map<string, TrainedModel>();
            if (trainOn.length > 1 && flags.rankerTrainedFeature)
              for (const f of trainOn) {
                log(
                  `ranker: training the feature model for ${f} on ${trainOn.filter((g) => g !== f).join(', ')}`,
                );
                const feature = await train(
                  trainOn.filter((g) => g !== f),
                  `feature-model-${f}`,
                );
                if (feature.stopped) break;
                featureModels.set(f, feature.model);
              }
            if (!interrupt.signal.aborted) {
              if (useIndexFile) useFieldIndexes(toolBenchCorpus(suite), openIndex().index.indexes);
              log('ranker: listwise training on the field features …');
              model.ranker = await trainToolBenchRanker(suite, {
                trainOn,
                featureModels,
                ...(table ? { table } : {}),
                ...(multiToolRequests !== undefined ? { multiToolRequests } : {}),
              });
            }
          }
          if (interrupt.signal.aborted)
            model.info.interrupted ??= { epochsFinished: (model.info.epochLosses as number[]).length };
          model.info.seconds = Math.round((performance.now() - t0) / 1000);
          saveTrainedModel(out, model);
          // the checkpoints stay after a Ctrl-C: `--resume` continues from them
          if (!interrupt.signal.aborted) rmSync(ckptDir, { recursive: true, force: true });
        } finally {
          interrupt.release();
        }
        if (interrupt.signal.aborted) {
          process.exitCode = EXIT_INTERRUPTED;
          log(
            `interrupted: wrote ${out} after ${(model.info.epochLosses as number[]).length} finished epoch(s)${model.ranker ? '' : ', without a ranker'}; checkpoints kept in ${ckptDir}: the same command with --resume continues`,
          );
        }
        if (flags.json) printJson({ out, ...model.info, ...(model.ranker ? { ranker: model.ranker } : {}) });
        else
          process.stdout.write(
            `wrote ${out}: ${model.projection.dIn}→${model.projection.dOut}, ${model.info.pairs} pairs, epoch losses ${(model.info.epochLosses as number[]).map((l) => l.toFixed(4)).join(' ')}${model.ranker ? `, ranker NDCG@5 on training queries ${(model.ranker.info.trainNdcg5 as number).toFixed(2)}` : ''}, ${model.info.seconds} s\n`,
          );
      },
    );
}

/** `apiary retrieve` on ToolBench: 46,802 APIs, the requests of each query file (G1, G2, G3). */
export const toolBenchRetrieval: RetrievalDataset = {
  async evaluate(ctx) {
    const t0 = performance.now();
    const dataDir = resolveDataDir(ctx.data);
    ctx.log(`loading ToolBench corpus from ${dataDir}/toolbench …`);
    const suite = loadToolBenchEvalSuite(dataDir, ctx.files);
    const opened = ctx.index ? toolBenchIndex(dataDir, ctx.index, () => suite) : undefined;
    ctx.denseInfo(opened?.index.dense?.model.info);
    const r = await ctx.retriever(toolBenchCorpus(suite), opened);
    ctx.log(`${suite.docs.length} APIs indexed (${r.name}) in ${Math.round(performance.now() - t0)} ms`);
    for (const [file, set] of suite.sets) {
      if (ctx.composeTools === 1) await ctx.score(file, set.queries, set.total, r);
      else {
        const composed = composedTestRequests(set.queries, suite.toolOf, ctx.composeTools);
        await ctx.score(file, composed, COMPOSED_TEST_ROUNDS * set.queries.length, r);
      }
    }
  },

  buildIndex(ctx) {
    const dataDir = resolveDataDir(ctx.data);
    const suite = loadToolBenchSuite(dataDir, []);
    const catalogHash = toolBenchCatalogHash(dataDir);
    return openCliIndex({
      ...(ctx.path ? { path: ctx.path } : {}),
      quiet: ctx.quiet,
      catalog: 'toolbench',
      catalogHash,
      corpus: () => toolBenchCorpus(suite),
      build: (_c, onStep) =>
        buildToolBenchIndex(suite, catalogHash, { onStep, info: ctx.info, dataDir, ...ctx.models }),
      force: true,
    });
  },

  queryCorpus(ctx) {
    const dataDir = resolveDataDir(ctx.data);
    let suite: ToolBenchSuite | undefined;
    const loadSuite = () => {
      suite ??= loadToolBenchSuite(dataDir, []);
      return suite;
    };
    const opened = ctx.index ? toolBenchIndex(dataDir, ctx.index, loadSuite) : undefined;
    return {
      ...(opened ? { opened } : {}),
      corpus: () => toolBenchCorpus(loadSuite()),
      labels: () => opened?.index.labels ?? loadSuite().docs.map((x) => `${x.category}/${x.tool}/${x.api}`),
      details: () => opened?.index.details ?? loadSuite().docs.map((x) => x.description),
    };
  },

  registerTrain,
};
