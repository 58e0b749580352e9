/**
 * Retrieval quality report: every retriever on every ToolBench G1 file and on AppBench, with the
 * trained retriever evaluated only on queries it was not trained on:
 * - cross-validation: for each G1 file, train on the two others, test on it;
 * - synthetic only: trained on catalog-made pairs (no benchmark query), tested on all files.
 * Run: npx tsx perf/retrieval-eval.ts [dataDir]   (≈30 min on 2 cores; SKIP_BASE=1 skips the untrained
 * ToolBench rows, SKIP_CV=1 the cross-validated ones)
 */
import { resolve } from 'node:path';
import {
  APPBENCH_CATEGORIES,
  appBenchRetrievalQueries,
  loadAppBenchSamples,
} from '../src/benchmarks/appbench/index.js';
import { registerBuiltinPlugins } from '../src/benchmarks/builtin.js';
import {
  evaluateRetriever,
  loadToolBenchSuite,
  TOOLBENCH_GROUPS,
  toolBenchCorpus,
  trainToolBenchModel,
  trainToolBenchRanker,
} from '../src/benchmarks/toolbench/index.js';
import { loadCatalog } from '../src/catalog/index.js';
import {
  buildRetriever,
  catalogCorpus,
  FIELD_FEATURES,
  loadWordVectors,
  RANKER_INITIAL,
  type RetrieverKind,
  rankExample,
  rankFeatureSource,
  type TrainedModel,
  trainLinearRanker,
} from '../src/retrieval/index.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const dataDir = process.argv[2] ?? process.env.APIARY_DATA ?? resolve(process.cwd(), '../shared/data');
const out = (s: string) => process.stdout.write(`${s}\n`);
const f = (x: number) => x.toFixed(2).padStart(6);
const row = (
  label: string,
  file: string,
  e: { queries: number; ndcg1: number; ndcg3: number; ndcg5: number; recall5: number; recall10: number },
) =>
  out(
    `${label.padEnd(34)} ${file.padEnd(15)} ${String(e.queries).padStart(4)} ${f(e.ndcg1)} ${f(e.ndcg3)} ${f(e.ndcg5)} ${f(e.recall5)} ${f(e.recall10)}`,
  );

const suite = loadToolBenchSuite(dataDir);
const table = loadWordVectors().table;
const corpus = toolBenchCorpus(suite);
const deps = (model?: TrainedModel) => ({ table: () => table, ...(model ? { model: () => model } : {}) });
out(`ToolBench: ${suite.docs.length} APIs; queries kept (gold APIs all in tools.jsonl):`);
for (const [g, s] of suite.sets) out(`  ${g}: ${s.queries.length}/${s.total}`);
out(`${'retriever'.padEnd(34)} ${'file'.padEnd(15)}    n NDCG@1 NDCG@3 NDCG@5    R@5   R@10`);
for (const kind of (process.env.SKIP_BASE
  ? []
  : ['bm25-plain', 'bm25', 'bm25-tool', 'bm25-fields', 'embed', 'hybrid']) as RetrieverKind[]) {
  const r = await buildRetriever(kind, corpus, deps());
  for (const [g, s] of suite.sets) row(kind, g, await evaluateRetriever(r, s.queries));
}
// cross-validation; `ranked` is nested: on held-out file h its `trained` feature comes from the
// model trained on the two other files, and its weights are learned on those two files with a
// `trained` feature from single-file models (each file scored by the model of the other one).
const cvFolds = process.env.SKIP_CV ? [] : TOOLBENCH_GROUPS;
const single = new Map<string, TrainedModel>(
  cvFolds.map((g) => [g, trainToolBenchModel(suite, { trainOn: [g], table, epochs: 3, synthetic: 0 })]),
);
for (const h of cvFolds) {
  const trainOn = TOOLBENCH_GROUPS.filter((g) => g !== h);
  const model = trainToolBenchModel(suite, { trainOn, table, epochs: 3, synthetic: 0 });
  const label = (kind: string) => `${kind} [CV: train ${trainOn.map((g) => g.slice(3)).join('+')}]`;
  for (const kind of ['trained', 'trained-hybrid', 'trained-fusion'] as RetrieverKind[]) {
    const r = await buildRetriever(kind, corpus, deps(model));
    row(label(kind), h, await evaluateRetriever(r, suite.sets.get(h)!.queries));
  }
  const [a, b] = trainOn as [string, string];
  const featureModels = new Map([
    [a, single.get(b)!],
    [b, single.get(a)!],
  ]);
  for (const withTrained of [false, true]) {
    const ranker = await trainToolBenchRanker(suite, {
      trainOn,
      table,
      ...(withTrained ? { featureModels } : {}),
    });
    const r = await buildRetriever('ranked', corpus, { ...deps(model), ranker });
    row(
      label(withTrained ? 'ranked' : 'ranked (fields only)'),
      h,
      await evaluateRetriever(r, suite.sets.get(h)!.queries),
    );
    out(
      `    weights: ${Object.entries(ranker.weights)
        .filter(([, w]) => w !== 0)
        .map(([f, w]) => `${f}=${w.toFixed(2)}`)
        .join(' ')}`,
    );
  }
}
// synthetic pairs only
const synth = trainToolBenchModel(suite, { trainOn: [], table, epochs: 2, synthetic: 8000 });
for (const kind of ['trained', 'trained-fusion'] as RetrieverKind[]) {
  const r = await buildRetriever(kind, corpus, deps(synth));
  for (const [g, s] of suite.sets) row(`${kind} [synthetic only]`, g, await evaluateRetriever(r, s.queries));
}
// AppBench
const catalog = loadCatalog('appbench');
const abCorpus = catalogCorpus(catalog);
const samples = loadAppBenchSamples(`${dataDir}/appbench`, {
  prefix: 'dev',
  categories: APPBENCH_CATEGORIES,
});
const abQueries = appBenchRetrievalQueries(samples, catalog);
// zero-shot transfer: field weights learned on ToolBench, applied to AppBench's 33 APIs
const transfer = await trainToolBenchRanker(suite, { trainOn: TOOLBENCH_GROUPS });
out(`AppBench: ${catalog.apis.length} APIs, ${abQueries.length} dev instructions`);
for (const kind of [
  'bm25-plain',
  'bm25',
  'bm25-tool',
  'bm25-fields',
  'embed',
  'hybrid',
  'trained',
  'trained-fusion',
  'ranked',
] as RetrieverKind[]) {
  const r = await buildRetriever(kind, abCorpus, { ...deps(synth), ranker: transfer });
  const label = kind.startsWith('trained')
    ? `${kind} [synthetic-only model]`
    : kind === 'ranked'
      ? 'ranked [fields-only ranker, 3 G1 files]'
      : kind;
  row(label, 'appbench-dev', await evaluateRetriever(r, abQueries));
}
// in-domain: ranker weights learned on AppBench itself, leave-one-category-out (ss/sm/ms/mm)
let weighted = 0;
for (const held of APPBENCH_CATEGORIES) {
  const train = appBenchRetrievalQueries(
    samples.filter((x) => x.category !== held),
    catalog,
  );
  const test = appBenchRetrievalQueries(
    samples.filter((x) => x.category === held),
    catalog,
  );
  const source = rankFeatureSource(abCorpus);
  const examples = [];
  for (const q of train) examples.push(await rankExample(source, q, FIELD_FEATURES, RANKER_INITIAL, 30));
  const { weights } = trainLinearRanker(examples, FIELD_FEATURES, { initial: RANKER_INITIAL.weights });
  const r = await buildRetriever('ranked', abCorpus, { ranker: { weights, scaled: RANKER_INITIAL.scaled } });
  const e = await evaluateRetriever(r, test);
  row(`ranked [CV: other 3 categories]`, `appbench-${held}`, e);
  weighted += e.ndcg5 * test.length;
}
out(
  `ranked [CV by category] NDCG@5 over all ${abQueries.length}: ${(weighted / abQueries.length).toFixed(2)}`,
);
