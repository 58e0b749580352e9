import { statSync } from 'node:fs';
import type { Command } from 'commander';
import type { BenchmarkPlugin, PluginRetrieval, RetrievalDataset } from '../../plugins/index.js';
import {
  buildRetriever,
  COMPOSED_TEST_ROUNDS,
  type DenseModel,
  evaluateRetriever,
  loadDenseModel,
  loadTrainedModel,
  loadWordVectors,
  type OpenedIndex,
  RETRIEVER_KINDS,
  type RetrievalQuery,
  type RetrieverDeps,
  type RetrieverKind,
  type TrainedModel,
} from '../../retrieval/index.js';
import { ApiaryError } from '../../shared/index.js';
import { parseChoice, parseExistingFile, parseInteger, parseList, parseOutputPath } from '../options.js';
import { printJson } from '../output.js';
import { retrievalDatasets, retrieveDescription } from '../plugin-help.js';
import { cliPlugins } from '../program.js';
import { INDEXED_KINDS } from '../retrieval-index.js';

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

const fmt = (x: number) => x.toFixed(2).padStart(6);

/** A dataset of a plugin with what `apiary retrieve` does with it (loaded). */
interface LoadedDataset {
  entry: PluginRetrieval;
  dataset: RetrievalDataset;
}

/**
 * `apiary retrieve …` over the plugins' datasets: their hooks are loaded first (this command's
 * registration is asynchronous), then the commands are registered.
 */
export async function retrieveCommands(
  plugins: readonly BenchmarkPlugin[] = cliPlugins(),
): Promise<(program: Command) => void> {
  const datasets = await Promise.all(
    retrievalDatasets(plugins).map(async (entry) => ({ entry, dataset: await entry.load() })),
  );
  return (program) => registerRetrieveCommands(program, plugins, datasets);
}

/** The dataset of `name` (a name `parseChoice` accepted). */
const datasetNamed = (datasets: readonly LoadedDataset[], name: string): RetrievalDataset =>
  datasets.find((d) => d.entry.name === name)!.dataset;

function registerRetrieveCommands(
  program: Command,
  plugins: readonly BenchmarkPlugin[],
  datasets: readonly LoadedDataset[],
): void {
  const datasetNames = (use?: 'eval' | 'index' | 'query') =>
    retrievalDatasets(plugins, use).map((r) => r.name);
  const forEval = retrievalDatasets(plugins, 'eval');
  const composing = forEval.filter((r) => r.composesTools);
  const retrieve = program.command('retrieve').description(retrieveDescription(plugins));

  retrieve
    .command('eval')
    .description('NDCG@1/3/5 (scikit-learn ties) and Recall@5/10 of a retriever, per query file')
    .option('--dataset <name>', datasetNames('eval').join(' | '), datasetNames('eval')[0])
    .option('--retriever <kind>', RETRIEVER_KINDS.join(' | '), 'bm25')
    .option('--data <dir>', `data folder (${forEval.map((r) => r.data).join(', or ')})`)
    .option('--model <file>', 'trained model (for trained, trained-hybrid, trained-fusion, ranked)')
    .option('--files <names>', forEval.flatMap((r) => (r.files ? [`${r.label} ${r.files}`] : [])).join('; '))
    .option(
      '--compose-tools <n>',
      `${composing.map((r) => r.label).join(', ')}: score requests of n tools made by joining each file's requests with others of other tools (${COMPOSED_TEST_ROUNDS} compositions per request, fixed seeds; the shape of G2/G3); 1 = the files as they are`,
      '1',
    )
    .option('--index <file>', 'index file to use or create (default: the user cache folder)')
    .option('--no-index', 'index the corpus in memory, without an index file')
    .option('--json', 'machine-readable output')
    .action(async (flags: CommonFlags & { dataset: string; files?: string; composeTools: string }) => {
      const kind = parseChoice('--retriever', flags.retriever, RETRIEVER_KINDS);
      const dataset = parseChoice('--dataset', flags.dataset, datasetNames('eval'));
      const listed = parseList('--files', flags.files);
      const tools = parseInteger('--compose-tools', flags.composeTools, { min: 1, max: 5 }) ?? 1;
      if (tools > 1 && !composing.some((r) => r.name === dataset))
        throw new ApiaryError(
          'USAGE',
          `--compose-tools applies to --dataset ${composing.map((r) => r.name).join(' or ')} only`,
        );
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
      await datasetNamed(datasets, dataset).evaluate({
        ...(flags.data !== undefined ? { data: flags.data } : {}),
        ...(listed ? { files: listed } : {}),
        composeTools: tools,
        ...(useIndex(kind, flags)
          ? { index: { ...(indexPath(flags) ? { path: indexPath(flags) } : {}), quiet: Boolean(flags.json) } }
          : {}),
        log,
        retriever: (corpus, opened) => buildRetriever(kind, corpus, { ...d, ...indexDeps(opened, flags) }),
        score: evaluate,
        denseInfo: (info) => {
          if (!flags.model) denseInfo = info;
        },
      });
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

  for (const { dataset } of datasets) dataset.registerTrain?.(retrieve);

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
    .option('--catalog <name>', datasetNames().join(' | '), datasetNames('index')[0])
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
        const catalogName = parseChoice('--catalog', flags.catalog, datasetNames());
        const served = parseChoice('--retriever', flags.retriever, [...INDEXED_KINDS]);
        parseOutputPath('--out', flags.out); // before the models load and the index is built
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
        const opened = datasetNamed(datasets, catalogName).buildIndex({
          ...(flags.data !== undefined ? { data: flags.data } : {}),
          ...(flags.out ? { path: flags.out } : {}),
          quiet: Boolean(flags.json),
          info,
          models: ranker,
        });
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
    .option('--catalog <name>', datasetNames().join(' | '), datasetNames('query')[0])
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
      const catalogName = parseChoice('--catalog', flags.catalog, datasetNames());
      const d = deps(flags);
      const { opened, corpus, labels, details } = datasetNamed(datasets, catalogName).queryCorpus({
        ...(flags.data !== undefined ? { data: flags.data } : {}),
        ...(useIndex(kind, flags)
          ? { index: { ...(indexPath(flags) ? { path: indexPath(flags) } : {}), quiet: Boolean(flags.json) } }
          : {}),
      });
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
