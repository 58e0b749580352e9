import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { loadCatalog, resolveDataDir } from '../../catalog/index.js';
import {
  buildRetriever,
  catalogCorpus,
  type FieldedCorpus,
  loadTrainedModel,
  loadWordVectors,
  RETRIEVER_KINDS,
  type RetrievalQuery,
  saveTrainedModel,
  type TrainedModel,
} from '../../retrieval/index.js';
import { ApiaryError, NotFoundError } from '../../shared/index.js';
import {
  APPBENCH_CATEGORIES,
  type AppBenchSample,
  appBenchRetrievalQueries,
  findAppBenchData,
  loadAppBenchSamples,
} from '../../tasks/appbench/index.js';
import {
  evaluateRetriever,
  loadToolBenchSuite,
  TOOLBENCH_GROUPS,
  toolBenchCorpus,
  trainToolBenchModelUntil,
  trainToolBenchRanker,
} from '../../tasks/toolbench/index.js';
import { EXIT_INTERRUPTED, trapSigint } from '../interrupt.js';
import { parseChoice, parseExistingFile, parseInteger, parseList, parseOutputPath } from '../options.js';
import { printJson } from '../output.js';

interface CommonFlags {
  data?: string;
  model?: string;
  retriever: string;
  json?: boolean;
}

const log = (msg: string) => process.stderr.write(`${msg}\n`);

function deps(flags: CommonFlags) {
  let model: TrainedModel | undefined;
  return {
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
      `ToolBench query files, comma-separated (default ${TOOLBENCH_GROUPS.join(',')})`,
    )
    .option('--json', 'machine-readable output')
    .action(async (flags: CommonFlags & { dataset: string; files?: string }) => {
      const kind = parseChoice('--retriever', flags.retriever, RETRIEVER_KINDS);
      const dataset = parseChoice('--dataset', flags.dataset, ['toolbench', 'appbench'] as const);
      const files = parseList('--files', flags.files) ?? [...TOOLBENCH_GROUPS];
      const d = deps(flags);
      const rows: Array<Record<string, unknown>> = [];
      const evaluate = async (
        file: string,
        queries: RetrievalQuery[],
        total: number,
        r: Awaited<ReturnType<typeof buildRetriever>>,
      ) => {
        const rep = await evaluateRetriever(r, queries);
        const trainOn =
          kind.startsWith('trained') || kind === 'ranked'
            ? ((d.model().info.trainOn as string[] | undefined) ?? [])
            : [];
        const { perQuery: _omit, ...means } = rep;
        rows.push({ file, total, ...means, trainedOnThisFile: trainOn.includes(file) });
      };
      const t0 = performance.now();
      if (dataset === 'toolbench') {
        const dataDir = resolveDataDir(flags.data);
        log(`loading ToolBench corpus from ${dataDir}/toolbench …`);
        const suite = loadToolBenchSuite(dataDir, files);
        if (!suite.sets.size)
          throw new NotFoundError('query files', files.join(','), [`${dataDir}/toolbench/queries/`]);
        const r = await buildRetriever(kind, toolBenchCorpus(suite), d);
        log(`${suite.docs.length} APIs indexed (${r.name}) in ${Math.round(performance.now() - t0)} ms`);
        for (const [file, set] of suite.sets) await evaluate(file, set.queries, set.total, r);
      } else {
        const dir = appBenchDir(flags.data);
        const { corpus, catalog } = appBenchCorpus(flags.data);
        const samples = appBenchSamples(dir);
        const r = await buildRetriever(kind, corpus, d);
        for (const cat of APPBENCH_CATEGORIES) {
          const s = samples.filter((x) => x.category === cat);
          if (s.length) await evaluate(cat, appBenchRetrievalQueries(s, catalog), s.length, r);
        }
        await evaluate('all', appBenchRetrievalQueries(samples, catalog), samples.length, r);
      }
      if (flags.json) {
        printJson({ dataset, retriever: kind, model: flags.model ?? null, results: rows });
        return;
      }
      process.stdout.write(`${dataset} / ${kind}${flags.model ? ` (${flags.model})` : ''}: metrics ×100\n`);
      process.stdout.write('file               queries  NDCG@1 NDCG@3 NDCG@5    R@5   R@10\n');
      for (const r of rows)
        process.stdout.write(
          `${String(r.file).padEnd(18)} ${`${r.queries}/${r.total}`.padStart(8)} ${fmt(r.ndcg1 as number)} ${fmt(r.ndcg3 as number)} ${fmt(r.ndcg5 as number)} ${fmt(r.recall5 as number)} ${fmt(r.recall10 as number)}${r.trainedOnThisFile ? '  (model trained on this file: not a held-out score)' : ''}\n`,
        );
    });

  retrieve
    .command('train')
    .description(
      'train the projection retriever (MNR loss) and the ranker (listwise softmax over field features) on ToolBench; the holdout file is never trained on',
    )
    .option('--data <dir>', 'data folder with toolbench/tools.jsonl and toolbench/queries/')
    .option('--out <file>', 'model file to write', 'retriever.aprm')
    .option('--overwrite', 'replace an existing --out file')
    .option(
      '--holdout <names>',
      'query files kept out of training (comma-separated, or "all" for synthetic pairs only)',
      'G1_tool',
    )
    .option('--epochs <n>', 'epochs', '3')
    .option('--synthetic <n>', 'synthetic (description → API) pairs (default 0, or 8000 with --holdout all)')
    .option('--seed <n>', 'random seed', '42')
    .option('--no-word-vectors', 'hashed lexical features only (no GloVe)')
    .option('--no-ranker', 'train the projection only (no weights for `ranked`)')
    .option('--json', 'machine-readable output')
    .action(
      async (flags: {
        data?: string;
        out: string;
        holdout: string;
        epochs: string;
        synthetic?: string;
        seed: string;
        wordVectors: boolean;
        ranker: boolean;
        overwrite?: boolean;
        json?: boolean;
      }) => {
        const epochs = parseInteger('--epochs', flags.epochs, { min: 0 });
        const synthetic = parseInteger('--synthetic', flags.synthetic, { min: 0 });
        const seed = parseInteger('--seed', flags.seed, { min: 0 });
        // Checked before training (minutes), written whole by saveTrainedModel (temp file + rename).
        const out = parseOutputPath('--out', flags.out, 'file', { overwrite: Boolean(flags.overwrite) });
        const dataDir = resolveDataDir(flags.data);
        const suite = loadToolBenchSuite(dataDir);
        const holdout =
          flags.holdout === 'all' ? [...suite.sets.keys()] : parseList('--holdout', flags.holdout);
        for (const h of holdout)
          if (!suite.sets.has(h)) throw new NotFoundError('query file', h, [...suite.sets.keys(), 'all']);
        const trainOn = [...suite.sets.keys()].filter((g) => !holdout.includes(g));
        log(
          `training on ${trainOn.length ? trainOn.join(', ') : 'synthetic pairs only'}; held out: ${holdout.join(', ')}`,
        );
        const table = flags.wordVectors ? loadWordVectors().table : undefined;
        const t0 = performance.now();
        let lastLog = 0;
        // The first Ctrl-C stops training after the batch in progress and writes the model trained
        // so far (whole: temp file + rename); no ranker is trained then.
        const interrupt = trapSigint('training stops after this batch; the model trained so far is written');
        const train = (files: readonly string[]) =>
          trainToolBenchModelUntil(suite, {
            trainOn: files,
            epochs,
            synthetic: synthetic ?? (files.length ? 0 : 8000),
            seed,
            signal: interrupt.signal,
            ...(table ? { table } : {}),
            onBatch: ({ epoch, batch, batches, loss }) => {
              const now = performance.now();
              if (now - lastLog > 5000 && !flags.json) {
                lastLog = now;
                log(`epoch ${epoch + 1} batch ${batch + 1}/${batches} loss ${loss.toFixed(4)}`);
              }
            },
          });
        let model: TrainedModel;
        try {
          const main = await train(trainOn);
          model = main.model;
          model.info.heldOut = holdout;
          if (flags.ranker && trainOn.length && !main.stopped) {
            // With 2+ training files the `trained` feature of each file comes from a model that did
            // not see it (as at test time); with one file the ranker uses the field features only.
            const featureModels = new Map<string, TrainedModel>();
            if (trainOn.length > 1)
              for (const f of trainOn) {
                log(
                  `ranker: training the feature model for ${f} on ${trainOn.filter((g) => g !== f).join(', ')}`,
                );
                const feature = await train(trainOn.filter((g) => g !== f));
                if (feature.stopped) break;
                featureModels.set(f, feature.model);
              }
            if (!interrupt.signal.aborted) {
              log('ranker: listwise training on the field features …');
              model.ranker = await trainToolBenchRanker(suite, {
                trainOn,
                featureModels,
                ...(table ? { table } : {}),
              });
            }
          }
          if (interrupt.signal.aborted)
            model.info.interrupted ??= { epochsFinished: (model.info.epochLosses as number[]).length };
          model.info.seconds = Math.round((performance.now() - t0) / 1000);
          saveTrainedModel(out, model);
        } finally {
          interrupt.release();
        }
        if (interrupt.signal.aborted) {
          process.exitCode = EXIT_INTERRUPTED;
          log(
            `interrupted: wrote ${out} after ${(model.info.epochLosses as number[]).length} finished epoch(s)${model.ranker ? '' : ', without a ranker'}`,
          );
        }
        if (flags.json) printJson({ out, ...model.info, ...(model.ranker ? { ranker: model.ranker } : {}) });
        else
          process.stdout.write(
            `wrote ${out}: ${model.projection.dIn}→${model.projection.dOut}, ${model.info.pairs} pairs, epoch losses ${(model.info.epochLosses as number[]).map((l) => l.toFixed(4)).join(' ')}${model.ranker ? `, ranker NDCG@5 on training queries ${(model.ranker.info.trainNdcg5 as number).toFixed(2)}` : ''}, ${model.info.seconds} s\n`,
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
    .option('--json', 'machine-readable output')
    .action(async (text: string, flags: CommonFlags & { catalog: string; k: string }) => {
      const kind = parseChoice('--retriever', flags.retriever, RETRIEVER_KINDS);
      const k = parseInteger('-k', flags.k, { min: 1 });
      const catalogName = parseChoice('--catalog', flags.catalog, ['appbench', 'toolbench'] as const);
      let corpus: FieldedCorpus;
      let labels: string[];
      let details: string[];
      if (catalogName === 'toolbench') {
        const suite = loadToolBenchSuite(resolveDataDir(flags.data), []);
        corpus = toolBenchCorpus(suite);
        labels = suite.docs.map((d) => `${d.category}/${d.tool}/${d.api}`);
        details = suite.docs.map((d) => d.description);
      } else {
        const ab = appBenchCorpus(flags.data);
        corpus = ab.corpus;
        labels = ab.labels;
        details = ab.catalog.apis.map((a) => a.description);
      }
      const r = await buildRetriever(kind, corpus, deps(flags));
      const hits = await r.search(text, k);
      if (flags.json) {
        printJson({
          query: text,
          retriever: r.name,
          hits: hits.map((h) => ({ api: labels[h.doc], score: h.score })),
        });
        return;
      }
      hits.forEach((h, i) => {
        const detail = (details[h.doc] ?? '').replace(/\s+/g, ' ').slice(0, 160);
        process.stdout.write(`${i + 1}. ${labels[h.doc]}  (${h.score.toFixed(4)})\n   ${detail}\n`);
      });
    });
}
