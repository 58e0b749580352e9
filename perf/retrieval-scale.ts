/**
 * Retrieval at scale over the 46,802 ToolBench APIs (../shared/data or $APIARY_DATA), in one run:
 * - index file: build time (every BM25 index of the corpus), write time, size, load time (in this
 *   process and, for the one-off case, `apiary retrieve query --retriever ranked` as a fresh
 *   process: wall time including Node/tsx start-up);
 * - latency per retriever over all G1 queries (median and p95 of top-10 `search`), with `ranked`
 *   as a ratio to `bm25` measured in the same run;
 * - NDCG@5 per G1 split, trained on the two other files and tested on the third (the ranker is
 *   trained here, fields only): bm25-plain, bm25, bm25-fields, ranked, and ranked without each of
 *   issue 27's changes (sentence diversification, `family.coverage`), without both (as before), and
 *   trained on same-category requests too; `ranked` is also scored by the reference implementation
 *   (19 feature vectors per query, `LinearRankRetriever`, no diversification) to show the fast
 *   scorer gives the same NDCG as its undiversified row, and with the gold tool given (the
 *   tool-choice ceiling);
 *   the same retrievers on held-out requests of two and of three tools composed from the G1 ones
 *   (`composeMultiToolRequests`; ToolBench G2/G3 have that shape);
 * - the real multi-tool request files of the data folder (any `toolbench/queries/*.json` other than
 *   the G1 files, e.g. StableToolBench's G2_category; validation only, never trained on), scored by
 *   each split's ranker, and a summary: NDCG@1/3/5 of `ranked` and `bm25-plain` (mean of the three
 *   rankers) on G1, the composed requests and each real multi-tool file, with `ranked`'s p50 ms;
 * - the dense retriever (unless --no-dense), per G1 split: the encoder trained on the two other
 *   files (`trainToolBenchDense`, the same honest protocol as `ranked`): training time, corpus
 *   encoding time (the dense part of an index build), the index file with its dense sections (size,
 *   load time), its NDCG@5 in the table above, and its latency (the G1_tool split's encoder, like
 *   `ranked`'s weights). Training takes ~2 min per split on one core.
 * Run: npx tsx perf/retrieval-scale.ts [dataDir] [--no-dense] [--catalog-limit N] [--epochs 1]
 *   (--catalog-limit keeps N catalog pairs of the dense training: a cut-down run)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  buildToolBenchIndex,
  evaluateRetriever,
  loadToolBenchSuite,
  TOOLBENCH_GROUPS,
  toolBenchCatalogHash,
  toolBenchCorpus,
  toolBenchQueryFiles,
  trainToolBenchDense,
  trainToolBenchRanker,
} from '../src/benchmarks/toolbench/index.js';
import {
  buildRetriever,
  composedTestRequests,
  type DenseModel,
  type DocWordLists,
  docWordLists,
  encodeCorpus,
  FIELD_FEATURES,
  FieldFeatures,
  LinearRankRetriever,
  loadRetrievalIndex,
  type RankerModel,
  type RetrievalIndex,
  type RetrievalQuery,
  type Retriever,
  type RetrieverDeps,
  type RetrieverKind,
  saveRetrievalIndex,
} from '../src/retrieval/index.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'no-dense': { type: 'boolean', default: false },
    'catalog-limit': { type: 'string' },
    epochs: { type: 'string', default: '1' },
  },
});
const dataDir = positionals[0] ?? process.env.APIARY_DATA ?? resolve(process.cwd(), '../shared/data');
const withDense = !values['no-dense'];
const catalogLimit = values['catalog-limit'] ? Number(values['catalog-limit']) : undefined;
const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(52)} ${value}\n`);
const time = <T>(f: () => T): [T, number] => {
  const t = performance.now();
  const r = f();
  return [r, performance.now() - t];
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] as number;
};

line(
  'load average at start (1/5/15 min)',
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' '),
);
// the G1 files (trained and tested on) and every other query file (tested on only)
const [suite, suiteMs] = time(() => loadToolBenchSuite(dataDir, toolBenchQueryFiles(dataDir)));
const realMultiTool = [...suite.sets.keys()].filter(
  (f) => !(TOOLBENCH_GROUPS as readonly string[]).includes(f),
);
const corpus = toolBenchCorpus(suite);
line('corpus', `${suite.docs.length} APIs, tools.jsonl parsed in ${(suiteMs / 1000).toFixed(2)} s`);

// ---------------------------------------------------------------- index file
const [catalogHash, hashMs] = time(() => toolBenchCatalogHash(dataDir));
line('catalog content hash (sha256 of tools.jsonl)', `${hashMs.toFixed(0)} ms`);
const [built, buildMs] = time(() => buildToolBenchIndex(suite, catalogHash));
line('index build (9 field indexes + bm25-plain)', `${(buildMs / 1000).toFixed(2)} s`);
const dir = mkdtempSync(join(tmpdir(), 'apiary-scale-'));
const file = join(dir, 'toolbench.apix');
const [, writeMs] = time(() => saveRetrievalIndex(file, built));
line('index write', `${writeMs.toFixed(0)} ms, ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB`);
/** Loads an index file 3 times (in page cache after the first): the last load and each load's time. */
function loadThrice(path: string): { index: RetrievalIndex; ms: string } {
  const times: number[] = [];
  let loaded: RetrievalIndex | undefined;
  for (let i = 0; i < 3; i++) {
    const [ix, ms] = time(() => loadRetrievalIndex(path));
    loaded = ix;
    times.push(ms);
  }
  return { index: loaded as RetrievalIndex, ms: times.map((x) => `${x.toFixed(0)} ms`).join(', ') };
}
const { index, ms: loadMs } = loadThrice(file);
line('index load (3 loads, file in page cache)', loadMs);

// ---------------------------------------------------------------- per-split rankers (fields only)
const rankers = new Map<string, RankerModel>();
/** The ranker before issue 27: no `family.coverage` (and, when scored, no sentence diversification). */
const previousRankers = new Map<string, RankerModel>();
const previousFields = FIELD_FEATURES.filter((f) => f !== 'family.coverage');
/** The default ranker also trained on same-category 2-tool requests (the shape of ToolBench G2). */
const sameCategoryRankers = new Map<string, RankerModel>();
for (const held of TOOLBENCH_GROUPS) {
  const trainOn = TOOLBENCH_GROUPS.filter((g) => g !== held);
  const [r, ms] = await (async () => {
    const t = performance.now();
    const x = await trainToolBenchRanker(suite, { trainOn });
    return [x, performance.now() - t] as const;
  })();
  rankers.set(held, r);
  line(
    `ranker trained on ${trainOn.join(' + ')}`,
    `${(ms / 1000).toFixed(1)} s (${r.info.queries} requests)`,
  );
  previousRankers.set(held, await trainToolBenchRanker(suite, { trainOn, fields: previousFields }));
  sameCategoryRankers.set(held, await trainToolBenchRanker(suite, { trainOn, sameCategoryRequests: 1 }));
}

// ---------------------------------------------------------------- per-split dense encoders
type DenseParts = { model: DenseModel; vectors: Float32Array; docWords: DocWordLists };
const denses = new Map<string, DenseParts>();
if (withDense) {
  const docWords = docWordLists(suite.texts); // the same corpus words for every encoder
  process.stdout.write(
    '\ndense encoder per split (trained on the two other G1 files + the catalog pairs and synthetic requests)\n',
  );
  const lexicalBytes = statSync(file).size;
  for (const held of TOOLBENCH_GROUPS) {
    const trainOn = TOOLBENCH_GROUPS.filter((g) => g !== held);
    const trained = await trainToolBenchDense(suite, {
      trainOn,
      epochs: Number(values.epochs),
      ...(catalogLimit !== undefined ? { catalogLimit } : {}),
    });
    line(
      `  ${held} held out: training`,
      `${trained.seconds.toFixed(1)} s (${trained.catalogPairs} catalog + ${trained.syntheticPairs} synthetic-request + ${trained.queryPairs} query pairs from ${trained.requests} requests)`,
    );
    const [vectors, encodeMs] = time(() => encodeCorpus(trained.model, suite.texts, corpus.groups));
    line(`  ${held} held out: corpus encoding`, `${(encodeMs / 1000).toFixed(2)} s`);
    const denseFile = join(dir, `toolbench-dense-${held}.apix`);
    const [, denseWriteMs] = time(() =>
      saveRetrievalIndex(denseFile, { ...index, dense: { model: trained.model, vectors, docWords } }),
    );
    const bytes = statSync(denseFile).size;
    const { index: loaded, ms: denseLoadMs } = loadThrice(denseFile);
    line(
      `  ${held} held out: index file + dense`,
      `${(bytes / 2 ** 20).toFixed(1)} MiB (dense ${((bytes - lexicalBytes) / 2 ** 20).toFixed(1)} MiB), write ${denseWriteMs.toFixed(0)} ms, load ${denseLoadMs}`,
    );
    if (loaded.dense?.vectors.length !== vectors.length)
      throw new Error('the index file lost its dense sections');
    denses.set(held, { model: trained.model, vectors, docWords }); // the loaded copy views the whole file's buffer
    rmSync(denseFile);
  }
}

// ---------------------------------------------------------------- latency per retriever
const deps: RetrieverDeps = { indexes: index.indexes, ...(index.plain ? { plain: index.plain } : {}) };
const kinds: RetrieverKind[] = ['bm25-plain', 'bm25', 'bm25-tool', 'bm25-fields', 'ranked'];
const allQueries = TOOLBENCH_GROUPS.flatMap((g) => suite.sets.get(g)?.queries ?? []);
const latency = new Map<string, { median: number; p95: number }>();
const measure = async (name: string, r: Retriever) => {
  for (const q of allQueries.slice(0, 30)) await r.search(q.text, 10); // warm-up
  const ms: number[] = [];
  for (const q of allQueries) {
    const t = performance.now();
    await r.search(q.text, 10);
    ms.push(performance.now() - t);
  }
  latency.set(name, { median: pct(ms, 0.5), p95: pct(ms, 0.95) });
};
for (const kind of kinds)
  await measure(
    kind,
    await buildRetriever(kind, corpus, { ...deps, ranker: rankers.get('G1_tool') as RankerModel }),
  );
await measure(
  'ranked without sentence diversification',
  await buildRetriever('ranked', corpus, {
    ...deps,
    ranker: rankers.get('G1_tool') as RankerModel,
    sentenceDiversity: { lambda: 0, depth: 0 },
  }),
);
const reference = new LinearRankRetriever(
  async (q) => ff.compute(q),
  rankers.get('G1_tool') as RankerModel,
  'ranked (reference: 19 feature vectors, no diversification)',
);
const ff = new FieldFeatures(index.indexes);
await measure(reference.name, reference);
const denseOfTool = denses.get('G1_tool');
if (denseOfTool) await measure('dense', await buildRetriever('dense', corpus, { dense: () => denseOfTool }));
/** `ranked`'s median ms per query on each real multi-tool file (the G1_tool split's weights). */
const realLatency = new Map<string, number>();
{
  const r = await buildRetriever('ranked', corpus, {
    ...deps,
    ranker: rankers.get('G1_tool') as RankerModel,
  });
  for (const f of realMultiTool) {
    const ms: number[] = [];
    for (const q of suite.sets.get(f)?.queries ?? []) {
      const t = performance.now();
      await r.search(q.text, 10);
      ms.push(performance.now() - t);
    }
    realLatency.set(f, pct(ms, 0.5));
  }
}
const bm25Median = latency.get('bm25')?.median ?? 1;
process.stdout.write(`\nlatency per query, top-10 search over ${allQueries.length} G1 queries (ms)\n`);
for (const [name, l] of latency)
  line(
    `  ${name}`,
    `median ${l.median.toFixed(2)}  p95 ${l.p95.toFixed(2)}  (×${(l.median / bm25Median).toFixed(1)} bm25)`,
  );

// ---------------------------------------------------------------- one-off query (fresh process)
const model = join(dir, 'index-with-ranker.apix');
saveRetrievalIndex(model, { ...index, ranker: rankers.get('G1_tool') as RankerModel });
// the installed CLI is the built one (dist/, `npm run build`); tsx adds ~1 s of start-up and transpiling
const oneOff = (label: string, command: string[]) => {
  const wall: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    execFileSync(
      process.execPath,
      [
        ...command,
        'retrieve',
        'query',
        'Find the lyrics of a song. Then get the top tracks of the week.',
        '--catalog',
        'toolbench',
        '--retriever',
        'ranked',
        '--index',
        model,
      ],
      { stdio: 'ignore', env: { ...process.env, APIARY_DATA: dataDir } },
    );
    wall.push(performance.now() - t);
  }
  line(
    `one-off \`retrieve query --retriever ranked\` (${label})`,
    wall.map((x) => `${(x / 1000).toFixed(2)} s`).join(', '),
  );
};
process.stdout.write('\n');
const dist = join(import.meta.dirname, '../dist/cli/main.js');
if (existsSync(dist)) oneOff('built CLI, wall', [dist]);
else line('one-off with the built CLI', 'skipped: run `npm run build` first');
oneOff('tsx, wall', ['--import', 'tsx', join(import.meta.dirname, '../src/cli/main.ts')]);

// ---------------------------------------------------------------- NDCG@5 per held-out split
// Three query sets per held-out file: its G1 requests (one tool each), and requests of two and
// of three tools composed from them (5 compositions per request, fixed seeds), the shape of
// ToolBench G2/G3, which G1 lacks. `ranked, gold tool given` keeps only the gold tools' APIs:
// the ceiling of a perfect tool choice under the ranker's own order within a tool.
const noDiversity = { lambda: 0, depth: 0 };
const goldToolsOnly = (r: Retriever, queries: readonly RetrievalQuery[]): Retriever => {
  const byText = new Map(queries.map((q) => [q.text, new Set(q.relevant.map((d) => suite.toolOf[d]))]));
  return {
    name: `${r.name}, gold tool given`,
    search: async () => [],
    scoreAll: async (text) => {
      const s = await r.scoreAll(text);
      const tools = byText.get(text);
      return s.map((x, i) => (tools?.has(suite.toolOf[i] as number) ? x : -1e9));
    },
  };
};
/** Per table: the rows (NDCG@1/3/5 per split) and the number of requests per split. */
type Ndcgs = { ndcg1: number; ndcg3: number; ndcg5: number };
const tables = new Map<string, { rows: Map<string, Ndcgs[]>; sizes: number[] }>();
for (const held of TOOLBENCH_GROUPS) {
  const set = suite.sets.get(held);
  if (!set) continue;
  const ranker = rankers.get(held) as RankerModel;
  // the retrievers of this split, built once and scored on its three query sets
  const common: Array<[string, Retriever]> = [];
  for (const kind of ['bm25-plain', 'bm25', 'bm25-fields'] as const)
    common.push([kind, await buildRetriever(kind, corpus, deps)]);
  const ranked = await buildRetriever('ranked', corpus, { ...deps, ranker });
  common.push(
    ['ranked', ranked],
    [
      'ranked without sentence diversification',
      await buildRetriever('ranked', corpus, { ...deps, ranker, sentenceDiversity: noDiversity }),
    ],
    [
      'ranked without family.coverage',
      await buildRetriever('ranked', corpus, { ...deps, ranker: previousRankers.get(held) as RankerModel }),
    ],
    [
      'ranked before issue 27 (neither)',
      await buildRetriever('ranked', corpus, {
        ...deps,
        ranker: previousRankers.get(held) as RankerModel,
        sentenceDiversity: noDiversity,
      }),
    ],
    [
      'ranked + same-category 2-tool training',
      await buildRetriever('ranked', corpus, {
        ...deps,
        ranker: sameCategoryRankers.get(held) as RankerModel,
      }),
    ],
  );
  const singleOnly: Array<[string, Retriever]> = [
    ['ranked (reference, no diversification)', new LinearRankRetriever(async (q) => ff.compute(q), ranker)],
    ['ranked, gold tool given (ceiling)', goldToolsOnly(ranked, set.queries)],
  ];
  const dense = denses.get(held);
  const last: Array<[string, Retriever]> = dense
    ? [['dense', await buildRetriever('dense', corpus, { dense: () => dense })]]
    : [];
  const sets: Array<[string, RetrievalQuery[], Array<[string, Retriever]>]> = [
    ['G1 requests (one tool)', set.queries, [...common, ...singleOnly, ...last]],
    [
      '2-tool requests composed of them',
      composedTestRequests(set.queries, suite.toolOf, 2),
      [...common, ...last],
    ],
    [
      '3-tool requests composed of them',
      composedTestRequests(set.queries, suite.toolOf, 3),
      [...common, ...last],
    ],
    ...realMultiTool.map((f): [string, RetrievalQuery[], Array<[string, Retriever]>] => [
      `${f} (real multi-tool requests, never trained on)`,
      suite.sets.get(f)?.queries ?? [],
      [...common, ...last],
    ]),
  ];
  for (const [title, queries, retrievers] of sets) {
    const table = tables.get(title) ?? { rows: new Map<string, Ndcgs[]>(), sizes: [] };
    tables.set(title, table);
    table.sizes.push(queries.length);
    for (const [name, r] of retrievers) {
      const rep = await evaluateRetriever(r, queries);
      table.rows.set(name, [...(table.rows.get(name) ?? []), rep]);
    }
  }
}
for (const [title, { rows, sizes }] of tables) {
  const columns = title.includes('real multi-tool')
    ? TOOLBENCH_GROUPS.map((g) => `${g}'s ranker`)
    : TOOLBENCH_GROUPS;
  process.stdout.write(
    `\nNDCG@5 ×100 on ${title}, held out (ranker${withDense ? ' and dense encoder' : ''} trained on the two other G1 files; ${sizes.join(' / ')} requests)\n`,
  );
  process.stdout.write(`${'retriever'.padEnd(40)}${columns.map((g) => g.padStart(24)).join('')}\n`);
  for (const [name, v] of rows)
    process.stdout.write(`${name.padEnd(40)}${v.map((x) => x.ndcg5.toFixed(2).padStart(24)).join('')}\n`);
  const plain = rows.get('bm25-plain') ?? [];
  const ranked = rows.get('ranked') ?? [];
  process.stdout.write(
    `${'ranked / bm25-plain'.padEnd(40)}${ranked.map((x, i) => `×${(x.ndcg5 / (plain[i]?.ndcg5 ?? 1)).toFixed(2)}`.padStart(24)).join('')}\n`,
  );
}
// One summary: every request shape and real multi-tool file, ranked against bm25-plain
const meanOf = (v: readonly Ndcgs[] | undefined, k: keyof Ndcgs) =>
  v?.length ? v.reduce((a, x) => a + x[k], 0) / v.length : Number.NaN;
const rankedP50 = latency.get('ranked')?.median ?? Number.NaN;
process.stdout.write(
  `\nsummary (mean of the three split rankers; NDCG ×100 @1 / @3 / @5; ranked p50 ms of a top-10 search)\n${'requests'.padEnd(58)}${'ranked'.padStart(24)}${'bm25-plain'.padStart(24)}${'×'.padStart(8)}${'p50'.padStart(8)}\n`,
);
for (const [title, { rows }] of tables) {
  const cell = (v: readonly Ndcgs[] | undefined) =>
    (['ndcg1', 'ndcg3', 'ndcg5'] as const).map((k) => meanOf(v, k).toFixed(2)).join(' / ');
  const r = rows.get('ranked');
  const p = rows.get('bm25-plain');
  const file = realMultiTool.find((f) => title.startsWith(`${f} `));
  const p50 = file ? realLatency.get(file) : title.startsWith('G1 requests') ? rankedP50 : undefined;
  process.stdout.write(
    `${title.slice(0, 56).padEnd(58)}${cell(r).padStart(24)}${cell(p).padStart(24)}${`×${(meanOf(r, 'ndcg5') / meanOf(p, 'ndcg5')).toFixed(2)}`.padStart(8)}${(p50 === undefined ? '' : p50.toFixed(2)).padStart(8)}\n`,
  );
}
line(
  '\nload average at end (1/5/15 min)',
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' '),
);
rmSync(dir, { recursive: true, force: true });
