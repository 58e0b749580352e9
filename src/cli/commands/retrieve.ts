import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import {
  APPBENCH_CATEGORIES,
  type AppBenchSample,
  appBenchRetrievalQueries,
  findAppBenchData,
  loadAppBenchSamples,
} from '../../benchmarks/appbench/index.js';
import {
  buildToolBenchIndex,
  evaluateRetriever,
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
} from '../../benchmarks/toolbench/index.js';
import { loadCatalog, resolveDataDir } from '../../catalog/index.js';
import {
  buildRetrievalIndex,
  buildRetriever,
  COMPOSED_TEST_ROUNDS,
  cachedIndexFiles,
  catalogCorpus,
  composedTestRequests,
  configMismatch,
  corpusHash,
  DENSE_DEFAULTS,
  type DenseModel,
  type FieldedCorpus,
  loadDenseModel,
  loadTrainCheckpoint,
  loadTrainedModel,
  loadWordVectors,
  type OpenedIndex,
  RETRIEVER_KINDS,
  type RetrievalQuery,
  type RetrieverDeps,
  type RetrieverKind,
  saveDenseModel,
  saveTrainCheckpoint,
  saveTrainedModel,
  type TrainedModel,
  type TrainState,
  useFieldIndexes,
} from '../../retrieval/index.js';
import { ApiaryError, NotFoundError } from '../../shared/index.js';
import { EXIT_INTERRUPTED, trapSigint } from '../interrupt.js';
import {
  parseChoice,
  parseExistingFile,
  parseInteger,
  parseList,
  parseNumber,
  parseOutputPath,
} from '../options.js';
import { printJson } from '../output.js';
import { INDEXED_KINDS, openCliIndex, trainProgress } from '../retrieval-index.js';

interface CommonFlags {
  data?: string;
  model?: string;
  retriever: string;
  json?: boolean;
  /** --index FILE, or false for --no-index (default true: the cache folder). */
  index?: string | boolean;
}

/** What an opened index adds to a retriever's dependencies (the ranker only when no --model gives one). */
function indexDeps(opened: OpenedIndex | undefined, flags: CommonFlags): Partial<RetrieverDeps> {
  if (!opened) return {};
  const { index } = opened;
  return {
    indexes: index.indexes,
    ...(index.plain ? { plain: index.plain } : {}),
    ...(index.ranker && !flags.model ? { ranker: index.ranker } : {}),
    ...(index.dense && !flags.model ? { dense: () => index.dense as NonNullable<typeof index.dense> } : {}),
  };
}

const DENSE_KINDS: ReadonlySet<RetrieverKind> = new Set(['dense', 'dense-hybrid']);

const indexPath = (flags: CommonFlags) => (typeof flags.index === 'string' ? flags.index : undefined);
const useIndex = (kind: RetrieverKind, flags: CommonFlags) =>
  flags.index !== false && INDEXED_KINDS.has(kind);

/** The ToolBench index (loaded, or built from the suite on first use). */
function toolBenchIndex(dataDir: string, flags: CommonFlags, suite: () => ToolBenchSuite): OpenedIndex {
  const path = indexPath(flags);
  const catalogHash = toolBenchCatalogHashFast(dataDir, path ? [path] : cachedIndexFiles('toolbench'));
  return openCliIndex({
    ...(path ? { path } : {}),
    catalog: 'toolbench',
    catalogHash,
    corpus: () => toolBenchCorpus(suite()),
    build: (_corpus, onStep) => buildToolBenchIndex(suite(), catalogHash, { onStep, dataDir }),
    quiet: Boolean(flags.json),
  });
}

function appBenchIndex(
  corpus: FieldedCorpus,
  labels: string[],
  details: string[],
  flags: CommonFlags,
): OpenedIndex {
  const catalogHash = corpusHash(corpus);
  const path = indexPath(flags);
  return openCliIndex({
    ...(path ? { path } : {}),
    catalog: 'appbench',
    catalogHash,
    corpus: () => corpus,
    build: (c, onStep) =>
      buildRetrievalIndex(c, { catalog: 'appbench', catalogHash, labels, details, onStep }),
    quiet: Boolean(flags.json),
  });
}

const log = (msg: string) => process.stderr.write(`${msg}\n`);

function deps(flags: CommonFlags) {
  let model: TrainedModel | undefined;
  let dense: DenseModel | undefined;
  return {
    dense: () => {
      if (!flags.model)
        throw new ApiaryError(
          'USAGE',
          'this retriever needs --model FILE (from `apiary retrieve train --retriever dense`) or an index file built with one',
        );
      dense ??= loadDenseModel(parseExistingFile('--model', flags.model));
      return { model: dense };
    },
    table: () => {
      const t0 = performance.now();
      const loaded = loadWordVectors();
      log(`word vectors: ${loaded.from} in ${Math.round(performance.now() - t0)} ms (${loaded.cachePath})`);
      return loaded.table;
    },
    model: () => {
      if (!flags.model)
        throw new ApiaryError('USAGE', 'this retriever needs --model FILE (from `apiary retrieve train`)');
      model ??= loadTrainedModel(parseExistingFile('--model', flags.model));
      return model;
    },
  };
}

function appBenchDir(data?: string): string {
  const dir = data && existsSync(join(data, 'appbench')) ? join(data, 'appbench') : findAppBenchData(data);
  if (!dir)
    throw new ApiaryError(
      'NOT_FOUND',
      'no AppBench data: run `apiary data pull appbench` or pass --data DIR',
    );
  return dir;
}

function appBenchSamples(dir: string): AppBenchSample[] {
  for (const prefix of ['test', 'dev'] as const) {
    const categories = APPBENCH_CATEGORIES.filter((c) => existsSync(join(dir, `${prefix}_${c}.json`)));
    if (categories.length) return loadAppBenchSamples(dir, { prefix, categories });
  }
  throw new NotFoundError('AppBench files (test_*.json or dev_*.json) in', dir);
}

function appBenchCorpus(data?: string) {
  const catalog = loadCatalog('appbench', data ? { dataDir: data } : {});
  const corpus: FieldedCorpus = catalogCorpus(catalog);
  return { catalog, corpus, labels: catalog.apis.map((a) => a.id) };
}

const fmt = (x: number) => x.toFixed(2).padStart(6);

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

export function registerRetrieveCommands(program: Command): void {
  const retrieve = program
    .command('retrieve')
    .description('API retrieval: evaluate retrievers on ToolBench/AppBench, train one, query a catalog');

  retrieve
    .command('eval')
    .description('NDCG@1/3/5 (scikit-learn ties) and Recall@5/10 of a retriever, per query file')
    .option('--dataset <name>', 'toolbench | appbench', 'toolbench')
    .option('--retriever <kind>', RETRIEVER_KINDS.join(' | '), 'bm25')
    .option('--data <dir>', 'data folder (toolbench/tools.jsonl + toolbench/queries/, or AppBench files)')
    .option('--model <file>', 'trained model (for trained, trained-hybrid, trained-fusion, ranked)')
    .option(
      '--files <names>',
      'ToolBench query files, comma-separated (default every file of <data>/toolbench/queries/, the G1 files first)',
    )
    .option(
      '--compose-tools <n>',
      `ToolBench: score requests of n tools made by joining each file's requests with others of other tools (${COMPOSED_TEST_ROUNDS} compositions per request, fixed seeds; the shape of G2/G3); 1 = the files as they are`,
      '1',
    )
    .option('--index <file>', 'index file to use or create (default: the user cache folder)')
    .option('--no-index', 'index the corpus in memory, without an index file')
    .option('--json', 'machine-readable output')
    .action(async (flags: CommonFlags & { dataset: string; files?: string; composeTools: string }) => {
      const kind = parseChoice('--retriever', flags.retriever, RETRIEVER_KINDS);
      const dataset = parseChoice('--dataset', flags.dataset, ['toolbench', 'appbench'] as const);
      const listed = parseList('--files', flags.files);
      const tools = parseInteger('--compose-tools', flags.composeTools, { min: 1, max: 5 }) ?? 1;
      if (tools > 1 && dataset !== 'toolbench')
        throw new ApiaryError('USAGE', '--compose-tools applies to --dataset toolbench only');
      const d = deps(flags);
      const rows: Array<Record<string, unknown>> = [];
      // the dense encoder's info when it comes from an index file (else from --model)
      let denseInfo: Record<string, unknown> | undefined;
      const evaluate = async (
        file: string,
        queries: RetrievalQuery[],
        total: number,
        r: Awaited<ReturnType<typeof buildRetriever>>,
      ) => {
        const rep = await evaluateRetriever(r, queries);
        const info = DENSE_KINDS.has(kind)
          ? (denseInfo ?? d.dense().model.info)
          : kind.startsWith('trained') || kind === 'ranked'
            ? d.model().info
            : {};
        const trainOn = (info.trainOn as string[] | undefined) ?? [];
        const { perQuery: _omit, ...means } = rep;
        rows.push({ file, total, ...means, trainedOnThisFile: trainOn.includes(file) });
      };
      const t0 = performance.now();
      if (dataset === 'toolbench') {
        const dataDir = resolveDataDir(flags.data);
        log(`loading ToolBench corpus from ${dataDir}/toolbench …`);
        const suite = loadToolBenchEvalSuite(dataDir, listed);
        const opened = useIndex(kind, flags) ? toolBenchIndex(dataDir, flags, () => suite) : undefined;
        if (!flags.model) denseInfo = opened?.index.dense?.model.info;
        const r = await buildRetriever(kind, toolBenchCorpus(suite), { ...d, ...indexDeps(opened, flags) });
        log(`${suite.docs.length} APIs indexed (${r.name}) in ${Math.round(performance.now() - t0)} ms`);
        for (const [file, set] of suite.sets) {
          if (tools === 1) await evaluate(file, set.queries, set.total, r);
          else {
            const composed = composedTestRequests(set.queries, suite.toolOf, tools);
            await evaluate(file, composed, COMPOSED_TEST_ROUNDS * set.queries.length, r);
          }
        }
      } else {
        const dir = appBenchDir(flags.data);
        const { corpus, catalog, labels } = appBenchCorpus(flags.data);
        const samples = appBenchSamples(dir);
        const opened = useIndex(kind, flags)
          ? appBenchIndex(
              corpus,
              labels,
              catalog.apis.map((a) => a.description),
              flags,
            )
          : undefined;
        const r = await buildRetriever(kind, corpus, { ...d, ...indexDeps(opened, flags) });
        for (const cat of APPBENCH_CATEGORIES) {
          const s = samples.filter((x) => x.category === cat);
          if (s.length) await evaluate(cat, appBenchRetrievalQueries(s, catalog), s.length, r);
        }
        await evaluate('all', appBenchRetrievalQueries(samples, catalog), samples.length, r);
      }
      if (flags.json) {
        printJson({
          dataset,
          retriever: kind,
          model: flags.model ?? null,
          composeTools: tools,
          results: rows,
        });
        return;
      }
      const composed =
        tools > 1
          ? `, requests of ${tools} tools composed from each file's (${COMPOSED_TEST_ROUNDS} per request)`
          : '';
      process.stdout.write(
        `${dataset} / ${kind}${flags.model ? ` (${flags.model})` : ''}${composed}: metrics ×100\n`,
      );
      process.stdout.write('file               queries  NDCG@1 NDCG@3 NDCG@5    R@5   R@10\n');
      for (const r of rows) {
        const head = `${String(r.file).padEnd(18)} ${`${r.queries}/${r.total}`.padStart(8)}`;
        // a file with no request to score (none kept, or none composed) has no score, not a 0
        if (!r.queries) {
          process.stdout.write(
            tools > 1
              ? `${head}  no request composed: the file's kept requests use fewer than ${tools} tools\n`
              : `${head}  no query kept: every one names an API missing from the corpus\n`,
          );
          continue;
        }
        process.stdout.write(
          `${head} ${fmt(r.ndcg1 as number)} ${fmt(r.ndcg3 as number)} ${fmt(r.ndcg5 as number)} ${fmt(r.recall5 as number)} ${fmt(r.recall10 as number)}${r.trainedOnThisFile ? '  (model trained on this file: not a held-out score)' : ''}\n`,
        );
      }
    });

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
        const openIndex = () => toolBenchIndex(dataDir, { ...flags, retriever: 'ranked' }, () => suite);
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

  const index = retrieve
    .command('index')
    .description(
      'retrieval index files: every BM25 index and the ranker weights of a catalog, loaded in well under a second',
    );
  index
    .command('build')
    .description(
      `build the index file of a catalog (serves ${[...INDEXED_KINDS].join(', ')}); \`retrieve query|eval\` use it, and build it on first use otherwise`,
    )
    .option('--catalog <name>', 'appbench | toolbench', 'toolbench')
    .option('--data <dir>', 'data folder')
    .option(
      '--retriever <kind>',
      `the retriever to serve (${[...INDEXED_KINDS].join(' | ')}); all of them share one file`,
      'ranked',
    )
    .option(
      '--model <file>',
      'trained model whose ranker weights the index keeps (for `ranked` without --model)',
    )
    .option('--out <file>', 'index file (default: the user cache folder, where query/eval look)')
    .option('--json', 'machine-readable output')
    .action(
      async (flags: {
        catalog: string;
        data?: string;
        retriever: string;
        model?: string;
        out?: string;
        json?: boolean;
      }) => {
        const catalogName = parseChoice('--catalog', flags.catalog, ['appbench', 'toolbench'] as const);
        const served = parseChoice('--retriever', flags.retriever, [...INDEXED_KINDS]);
        const denseModel =
          flags.model && DENSE_KINDS.has(served)
            ? loadDenseModel(parseExistingFile('--model', flags.model))
            : undefined;
        if (DENSE_KINDS.has(served) && !denseModel)
          throw new ApiaryError(
            'USAGE',
            `--retriever ${served} needs --model FILE (from \`apiary retrieve train --retriever dense\`)`,
          );
        const model =
          flags.model && !denseModel
            ? loadTrainedModel(parseExistingFile('--model', flags.model))
            : undefined;
        if (model && !model.ranker)
          throw new ApiaryError(
            'USAGE',
            `${flags.model} has no ranker weights (train it without --no-ranker)`,
          );
        const ranker = {
          ...(model?.ranker
            ? { ranker: { weights: model.ranker.weights, scaled: model.ranker.scaled } }
            : {}),
          ...(denseModel ? { dense: denseModel } : {}),
        };
        const info = flags.model ? { model: flags.model } : {};
        const t0 = performance.now();
        let opened: OpenedIndex;
        const common = { ...(flags.out ? { path: flags.out } : {}), quiet: Boolean(flags.json) };
        if (catalogName === 'toolbench') {
          const dataDir = resolveDataDir(flags.data);
          const suite = loadToolBenchSuite(dataDir, []);
          const catalogHash = toolBenchCatalogHash(dataDir);
          opened = openCliIndex({
            ...common,
            catalog: 'toolbench',
            catalogHash,
            corpus: () => toolBenchCorpus(suite),
            build: (_c, onStep) =>
              buildToolBenchIndex(suite, catalogHash, { onStep, info, dataDir, ...ranker }),
            force: true,
          });
        } else {
          const ab = appBenchCorpus(flags.data);
          const catalogHash = corpusHash(ab.corpus);
          opened = openCliIndex({
            ...common,
            catalog: 'appbench',
            catalogHash,
            corpus: () => ab.corpus,
            build: (c, onStep) =>
              buildRetrievalIndex(c, {
                catalog: 'appbench',
                catalogHash,
                labels: ab.labels,
                details: ab.catalog.apis.map((a) => a.description),
                onStep,
                info,
                ...ranker,
              }),
            force: true,
          });
        }
        const bytes = statSync(opened.path).size;
        const seconds = (performance.now() - t0) / 1000;
        if (flags.json)
          printJson({
            path: opened.path,
            catalog: opened.index.catalog,
            catalogHash: opened.index.catalogHash,
            documents: opened.index.indexes.text.size,
            bytes,
            ranker: Boolean(opened.index.ranker),
            dense: Boolean(opened.index.dense),
            seconds: +seconds.toFixed(2),
          });
        else
          process.stdout.write(
            `wrote ${opened.path}: ${opened.index.indexes.text.size} APIs of ${opened.index.catalog}, ${(bytes / 2 ** 20).toFixed(1)} MiB${opened.index.ranker ? ', with ranker weights' : ''}${opened.index.dense ? `, with dense vectors (${opened.index.dense.model.config.dim}-d)` : ''}, ${seconds.toFixed(1)} s\n`,
          );
      },
    );

  retrieve
    .command('query')
    .description('the top-k APIs of a catalog for a request')
    .argument('<text>', 'the request')
    .option('--catalog <name>', 'appbench | toolbench', 'appbench')
    .option('--retriever <kind>', RETRIEVER_KINDS.join(' | '), 'bm25')
    .option('-k, --k <n>', 'number of results', '5')
    .option('--data <dir>', 'data folder')
    .option('--model <file>', 'trained model (for trained, trained-hybrid, trained-fusion, ranked)')
    .option('--index <file>', 'index file to use or create (default: the user cache folder)')
    .option('--no-index', 'index the corpus in memory, without an index file')
    .option('--json', 'machine-readable output')
    .action(async (text: string, flags: CommonFlags & { catalog: string; k: string }) => {
      const kind = parseChoice('--retriever', flags.retriever, RETRIEVER_KINDS);
      const k = parseInteger('-k', flags.k, { min: 1 });
      const catalogName = parseChoice('--catalog', flags.catalog, ['appbench', 'toolbench'] as const);
      const d = deps(flags);
      let corpus: () => FieldedCorpus;
      let labels: () => string[];
      let details: () => string[];
      let opened: OpenedIndex | undefined;
      if (catalogName === 'toolbench') {
        const dataDir = resolveDataDir(flags.data);
        let suite: ToolBenchSuite | undefined;
        const loadSuite = () => {
          suite ??= loadToolBenchSuite(dataDir, []);
          return suite;
        };
        if (useIndex(kind, flags)) opened = toolBenchIndex(dataDir, flags, loadSuite);
        corpus = () => toolBenchCorpus(loadSuite());
        labels = () =>
          opened?.index.labels ?? loadSuite().docs.map((x) => `${x.category}/${x.tool}/${x.api}`);
        details = () => opened?.index.details ?? loadSuite().docs.map((x) => x.description);
      } else {
        const ab = appBenchCorpus(flags.data);
        const abDetails = ab.catalog.apis.map((a) => a.description);
        if (useIndex(kind, flags)) opened = appBenchIndex(ab.corpus, ab.labels, abDetails, flags);
        corpus = () => ab.corpus;
        labels = () => ab.labels;
        details = () => abDetails;
      }
      // the indexed kinds need no corpus (unless `ranked` weights a trained feature, which reads the texts)
      const extra = indexDeps(opened, flags);
      const ranker = extra.ranker ?? (kind === 'ranked' && flags.model ? d.model().ranker : undefined);
      const needsCorpus =
        !opened || Boolean(ranker?.weights.trained) || (DENSE_KINDS.has(kind) && !extra.dense);
      const r = await buildRetriever(kind, needsCorpus ? corpus() : { texts: [] }, { ...d, ...extra });
      const hits = await r.search(text, k);
      const names = labels();
      if (flags.json) {
        printJson({
          query: text,
          retriever: r.name,
          hits: hits.map((h) => ({ api: names[h.doc], score: h.score })),
        });
        return;
      }
      const lines = details();
      hits.forEach((h, i) => {
        const detail = (lines[h.doc] ?? '').replace(/\s+/g, ' ').slice(0, 160);
        process.stdout.write(`${i + 1}. ${names[h.doc]}  (${h.score.toFixed(4)})\n   ${detail}\n`);
      });
    });
}
