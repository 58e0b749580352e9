/**
 * The offline dense retriever on ToolBench (../shared/data or $APIARY_DATA), in one run: trains
 * the encoder on pairs made from the catalog alone (no G1 query), then NDCG@5 on each G1 file
 * for bm25-plain, bm25, bm25-fields, dense and dense-hybrid, with training time and latency.
 * Run: npx tsx perf/dense-retrieval.ts [dataDir] [epochs] [pairLimit] [dim] [buckets]
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import {
  buildRetriever,
  DenseRetriever,
  type Retriever,
  trainDenseEncoder,
  WeightedFusionRetriever,
} from '../src/retrieval/index.js';
import {
  evaluateRetriever,
  loadToolBenchSuite,
  TOOLBENCH_GROUPS,
  toolBenchCorpus,
  toolBenchDensePairs,
} from '../src/tasks/toolbench/index.js';

const dataDir = process.argv[2] ?? process.env.APIARY_DATA ?? resolve(process.cwd(), '../shared/data');
const epochs = Number(process.argv[3] ?? 1);
const limit = process.argv[4] ? Number(process.argv[4]) : undefined;
const dim = process.argv[5] ? Number(process.argv[5]) : undefined;
const buckets = process.argv[6] ? Number(process.argv[6]) : undefined;
const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(40)} ${value}\n`);
line(
  'load average at start',
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' '),
);
const suite = loadToolBenchSuite(dataDir);
const corpus = toolBenchCorpus(suite);
const pairs = toolBenchDensePairs(suite.docs, suite.texts, suite.toolOf, {
  seed: 42,
  ...(limit ? { limit } : {}),
});
line('pairs (catalog only)', String(pairs.length));
let t = performance.now();
const { model, epochLosses } = trainDenseEncoder(pairs, {
  epochs,
  config: { ...(dim ? { dim } : {}), ...(buckets ? { buckets } : {}) },
  vocabularyTexts: suite.texts,
  onBatch: ({ epoch, batch, batches, loss }) => {
    if (batch % 200 === 0)
      process.stderr.write(
        `epoch ${epoch} batch ${batch}/${batches} loss ${loss.toFixed(3)} ${((performance.now() - t) / 1000).toFixed(0)} s\n`,
      );
  },
});
line(
  'training',
  `${((performance.now() - t) / 1000).toFixed(1)} s, ${epochs} epoch(s), losses ${epochLosses.map((l) => l.toFixed(3)).join(' ')}, vocabulary ${model.vocabulary.length}`,
);
t = performance.now();
const dense = DenseRetriever.build(model, suite.texts);
line('document vectors', `${((performance.now() - t) / 1000).toFixed(1)} s`);
const fields = await buildRetriever('bm25-fields', corpus);
const rows: Array<[string, Retriever]> = [
  ['bm25-plain', await buildRetriever('bm25-plain', corpus)],
  ['bm25', await buildRetriever('bm25', corpus)],
  ['bm25-fields', fields],
  ['dense', dense],
];
for (const w of [0.3, 0.5, 1])
  rows.push([
    `dense-hybrid w=${w}`,
    new WeightedFusionRetriever(
      [
        { retriever: fields, weight: 1 },
        { retriever: dense, weight: w },
      ],
      'dense-hybrid',
    ),
  ]);
for (const [name, r] of rows) {
  const cells: string[] = [];
  for (const g of TOOLBENCH_GROUPS) {
    const set = suite.sets.get(g);
    if (!set) continue;
    const rep = await evaluateRetriever(r, set.queries);
    cells.push(rep.ndcg5.toFixed(2));
  }
  line(name, cells.join(' | '));
}
const lat: number[] = [];
for (const g of TOOLBENCH_GROUPS)
  for (const q of suite.sets.get(g)?.queries ?? []) {
    const s = performance.now();
    await dense.search(q.text, 10);
    lat.push(performance.now() - s);
  }
lat.sort((a, b) => a - b);
line(
  'dense latency median / p95',
  `${lat[Math.floor(lat.length / 2)]?.toFixed(2)} / ${lat[Math.floor(lat.length * 0.95)]?.toFixed(2)} ms`,
);
