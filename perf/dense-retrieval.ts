/**
 * The offline dense retriever on ToolBench (../shared/data or $APIARY_DATA), held out honestly:
 * for each G1 file, the encoder learns from the catalog pairs, the synthetic requests made from the
 * catalog and the (request, API) pairs of the two other files (hard negatives mined with `bm25`),
 * and is tested on the third.
 * Prints, per held-out file, NDCG@5 of bm25-plain, bm25, bm25-fields, ranked (fields only, weights
 * learned on the two other files), dense, dense without word matching, dense without tool context,
 * and dense-hybrid; then training time and dense latency (with and without word matching).
 * Run: npx tsx perf/dense-retrieval.ts [dataDir] [--epochs 1] [--oversample 8] [--negatives 4]
 *   [--tool-context 0.5] [--word-row-share 0.5|mean] [--catalog-limit N] [--dim 128] [--buckets 65536]
 *   [--min-count 2] [--lr 0.005] [--lr-schedule constant|linear] [--scale 12] [--sentence-weight 0.5]
 *   [--word-match 0.5] [--batch 64]
 *   [--synthetic 4] [--synthetic-negatives 2] [--miner bm25|bm25-fields|ranked]
 *   [--splits G1_tool,…] [--no-ranked] [--ranked-dense] [--explore] [--seed 42]
 *   [--save DIR] [--load DIR]
 * Defaults are `TOOLBENCH_DENSE_DEFAULTS` (what `retrieve train --retriever dense` uses).
 * --ranked-dense adds `ranked` with the dense score as its trained feature (2 more encoders per
 * split, nested like the CLI's trained feature); --explore adds rows for other sentence weights,
 * word-matching weights and tool-context weights of the same encoder (exploration: they are chosen
 * on the held-out file). --word-match sets β (a scoring setting: it also applies to --load).
 * --synthetic is the synthetic requests per tool; --miner the retriever that mines the hard
 * negatives (`ranked`: weights learned on the training files); --save DIR writes each split's
 * encoder as DIR/dense-<held-out file>.apdm and --load DIR evaluates those instead of training.
 */

import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  TOOLBENCH_DENSE_DEFAULTS as D,
  evaluateRetriever,
  loadToolBenchSuite,
  TOOLBENCH_GROUPS,
  toolBenchCorpus,
  trainToolBenchDense,
  trainToolBenchRanker,
} from '../src/benchmarks/toolbench/index.js';
import {
  buildRetriever,
  DENSE_HYBRID_WEIGHT,
  type DenseModel,
  DenseRetriever,
  docWordLists,
  encodeCorpus,
  loadDenseModel,
  type Retriever,
  saveDenseModel,
  WeightedFusionRetriever,
} from '../src/retrieval/index.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    epochs: { type: 'string', default: '1' },
    oversample: { type: 'string', default: String(D.oversample) },
    negatives: { type: 'string', default: String(D.negatives) },
    'tool-context': { type: 'string', default: String(D.toolContext) },
    'catalog-limit': { type: 'string' },
    dim: { type: 'string' },
    buckets: { type: 'string' },
    splits: { type: 'string' },
    seed: { type: 'string', default: '42' },
    lr: { type: 'string' },
    'lr-schedule': { type: 'string' },
    'word-row-share': { type: 'string', default: String(D.wordRowShare) },
    'sentence-weight': { type: 'string', default: String(D.sentenceWeight) },
    'word-match': { type: 'string', default: String(D.wordMatchWeight) },
    'min-count': { type: 'string' },
    batch: { type: 'string' },
    scale: { type: 'string', default: String(D.scale) },
    'no-ranked': { type: 'boolean', default: false },
    'ranked-dense': { type: 'boolean', default: false },
    explore: { type: 'boolean', default: false },
    miner: { type: 'string', default: 'bm25' },
    synthetic: { type: 'string', default: String(D.syntheticRequests) },
    save: { type: 'string' },
    load: { type: 'string' },
    'synthetic-negatives': { type: 'string', default: String(D.syntheticNegatives) },
  },
});
const dataDir = positionals[0] ?? process.env.APIARY_DATA ?? resolve(process.cwd(), '../shared/data');
const epochs = Number(values.epochs);
const oversample = Number(values.oversample);
const negatives = Number(values.negatives);
const toolContext = Number(values['tool-context']);
const seed = Number(values.seed);
const limit = values['catalog-limit'] ? Number(values['catalog-limit']) : undefined;
const splits = values.splits ? values.splits.split(',') : [...TOOLBENCH_GROUPS];
const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(44)} ${value}\n`);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
line('load average at start', load());
line(
  'settings',
  `epochs ${epochs}, oversample ${oversample}, negatives ${negatives}, tool context ${toolContext}, dim ${values.dim ?? 'default'}, lr ${values.lr ?? 'default'} ${values['lr-schedule'] ?? 'constant'}, word row share ${values['word-row-share']}, sentence weight ${values['sentence-weight']}, min count ${values['min-count'] ?? 2}, batch ${values.batch ?? 64}, scale ${values.scale}, buckets ${values.buckets ?? 'default'}, seed ${seed}`,
);
const suite = loadToolBenchSuite(dataDir);
const corpus = toolBenchCorpus(suite);
const bm25 = await buildRetriever('bm25', corpus);
const fields = await buildRetriever('bm25-fields', corpus);
const plain = await buildRetriever('bm25-plain', corpus);
const ndcg5 = async (r: Retriever, file: string) =>
  (await evaluateRetriever(r, suite.sets.get(file)?.queries ?? [])).ndcg5;

const table: Array<[string, string, number]> = [];
const trainSeconds: number[] = [];
const lat: number[] = [];
const latNoMatch: number[] = [];
let catalogPairsShown = false;
/** An encoder trained on the catalog pairs + the requests of `files` (hard negatives mined with bm25). */
async function trainOnFiles(files: readonly string[], label: string) {
  const t = performance.now();
  const miner =
    values.miner === 'ranked'
      ? await buildRetriever('ranked', corpus, {
          ranker: await trainToolBenchRanker(suite, { trainOn: files }),
        })
      : values.miner === 'bm25-fields'
        ? fields
        : bm25;
  const r = await trainToolBenchDense(suite, {
    trainOn: files,
    epochs,
    seed,
    oversample,
    negatives,
    toolContext,
    miner,
    syntheticRequests: Number(values.synthetic),
    syntheticNegatives: Number(values['synthetic-negatives']),
    ...(limit ? { catalogLimit: limit } : {}),
    ...(values.lr ? { lr: Number(values.lr) } : {}),
    ...(values['lr-schedule'] ? { lrSchedule: values['lr-schedule'] as 'constant' | 'linear' } : {}),
    ...(values['min-count'] ? { minCount: Number(values['min-count']) } : {}),
    ...(values.batch ? { batchSize: Number(values.batch) } : {}),
    scale: Number(values.scale),
    sentenceWeight: Number(values['sentence-weight']),
    wordMatchWeight: Number(values['word-match']),
    wordRowShare: values['word-row-share'] === 'mean' ? 'mean' : Number(values['word-row-share']),
    ...(values.dim ? { dim: Number(values.dim) } : {}),
    ...(values.buckets ? { buckets: Number(values.buckets) } : {}),
    onBatch: ({ epoch, batch, batches, loss }) => {
      if (batch % 500 === 0)
        process.stderr.write(
          `${label}: epoch ${epoch} batch ${batch}/${batches} loss ${loss.toFixed(3)} ${((performance.now() - t) / 1000).toFixed(0)} s\n`,
        );
    },
  });
  if (!catalogPairsShown) line('catalog pairs', String(r.catalogPairs));
  catalogPairsShown = true;
  line(
    `${label}: training`,
    `${r.seconds.toFixed(1)} s on ${files.join(' + ') || 'no file'} (${r.requests} requests, ${r.queryPairs} query pairs) + ${r.syntheticRequests} synthetic requests (${r.syntheticPairs} pairs) + catalog, losses ${r.epochLosses.map((l) => l.toFixed(3)).join(' ')}`,
  );
  return { model: r.model, seconds: r.seconds };
}

const withWordMatch = (m: DenseModel, w: number): DenseModel => ({
  ...m,
  config: { ...m.config, wordMatchWeight: w },
});

for (const heldOut of splits) {
  const trainOn = TOOLBENCH_GROUPS.filter((g) => g !== heldOut && suite.sets.has(g));
  const saved = values.load ? join(values.load, `dense-${heldOut}.apdm`) : undefined;
  const { model, seconds } = saved
    ? // a saved encoder is scored with this run's --word-match (it is a scoring setting)
      {
        model: withWordMatch(loadDenseModel(saved), Number(values['word-match'])),
        seconds: 0,
      }
    : await trainOnFiles(trainOn, `${heldOut} held out`);
  if (values.save) {
    mkdirSync(values.save, { recursive: true });
    saveDenseModel(join(values.save, `dense-${heldOut}.apdm`), model);
  }
  trainSeconds.push(seconds);
  const dense = DenseRetriever.build(model, suite.texts, corpus.groups);
  const rows: Array<[string, Retriever]> = [
    ['bm25-plain', plain],
    ['bm25', bm25],
    ['bm25-fields', fields],
  ];
  if (!values['no-ranked']) {
    const ranker = await trainToolBenchRanker(suite, { trainOn });
    rows.push(['ranked (fields only)', await buildRetriever('ranked', corpus, { ranker })]);
  }
  if (values['ranked-dense']) {
    // honest like the nested `ranked`: file A's dense feature comes from an encoder trained on B only
    const featureRetrievers = new Map<string, Retriever>();
    for (const file of trainOn) {
      const other = trainOn.filter((g) => g !== file);
      const { model: m } = await trainOnFiles(other, `${heldOut} held out, feature of ${file}`);
      featureRetrievers.set(file, DenseRetriever.build(m, suite.texts, corpus.groups));
    }
    const ranker = await trainToolBenchRanker(suite, { trainOn, featureRetrievers });
    featureRetrievers.clear();
    line(
      '  ranked + dense weight',
      `${ranker.weights.trained?.toFixed(3)} (train NDCG@5 ${Number(ranker.info.trainNdcg5).toFixed(4)})`,
    );
    rows.push([
      'ranked + dense (nested)',
      await buildRetriever('ranked', corpus, {
        ranker: { weights: ranker.weights, scaled: ranker.scaled },
        rankFeature: () => DenseRetriever.build(model, suite.texts, corpus.groups),
      }),
    ]);
  }
  rows.push(['dense', dense]);
  const docs = encodeCorpus(model, suite.texts, corpus.groups);
  const docWords = docWordLists(suite.texts);
  const noWordMatch = new DenseRetriever(model, docs, { wordMatchWeight: 0 });
  if ((model.config.wordMatchWeight ?? 0) > 0) rows.push(['dense, no word match', noWordMatch]);
  if (toolContext > 0) rows.push(['dense, no tool context', DenseRetriever.build(model, suite.texts)]);
  if (values.explore) {
    for (const w of [0.5, 1, 2])
      rows.push([
        `dense, sentence weight ${w}`,
        new DenseRetriever(model, docs, { sentenceWeight: w, docWords }),
      ]);
    for (const w of [0.25, 0.5, 1])
      rows.push([
        `dense, word match ${w}`,
        new DenseRetriever(model, docs, { wordMatchWeight: w, docWords }),
      ]);
    for (const g of [0.25, 1, 2])
      rows.push([
        `dense, tool context ${g}`,
        DenseRetriever.build(
          { ...model, config: { ...model.config, toolContext: g } },
          suite.texts,
          corpus.groups,
        ),
      ]);
  }
  rows.push([
    `dense-hybrid (bm25-fields + ${DENSE_HYBRID_WEIGHT} dense)`,
    new WeightedFusionRetriever(
      [
        { retriever: fields, weight: 1 },
        { retriever: dense, weight: DENSE_HYBRID_WEIGHT },
      ],
      'dense-hybrid',
    ),
  ]);
  for (const [name, r] of rows) {
    const v = await ndcg5(r, heldOut);
    table.push([name, heldOut, v]);
    line(`  ${name}`, v.toFixed(2));
  }
  const held = suite.sets.get(heldOut)?.queries ?? [];
  for (const [r, into] of [
    [dense, lat],
    [noWordMatch, latNoMatch],
  ] as const) {
    for (let i = 0; i < 30; i++) await r.search(held[i % held.length]?.text ?? '', 10);
    for (const q of held) {
      const s = performance.now();
      await r.search(q.text, 10);
      into.push(performance.now() - s);
    }
  }
}
process.stdout.write(`\nNDCG@5 ×100, each file held out (load average now ${load()}):\n`);
process.stdout.write(`| retriever | ${splits.join(' | ')} |\n|---|${splits.map(() => '---|').join('')}\n`);
for (const name of [...new Set(table.map((r) => r[0]))])
  process.stdout.write(
    `| ${name} | ${splits.map((s) => table.find((r) => r[0] === name && r[1] === s)?.[2].toFixed(2) ?? '').join(' | ')} |\n`,
  );
for (const [label, l] of [
  ['dense', lat],
  ['dense, no word match', latNoMatch],
] as const) {
  l.sort((a, b) => a - b);
  line(
    `${label}: latency median / p95 (top-10)`,
    `${l[Math.floor(l.length / 2)]?.toFixed(2)} / ${l[Math.floor(l.length * 0.95)]?.toFixed(2)} ms`,
  );
}
line('training per split', trainSeconds.map((s) => `${s.toFixed(0)} s`).join(', '));
