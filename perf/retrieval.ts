/**
 * Retrieval performance over the 46,802 ToolBench APIs (../shared/data or $APIARY_DATA):
 * - BM25: index build time; median ms per query (top-10) with the inverted index vs a naive
 *   linear scan that scores every document from its term counts (baseline, same run);
 * - vector search (GloVe 100-d sentence vectors): corpus embedding time; median ms per query
 *   (embed + exact scoring + heap top-10) vs a naive scan (number[][] rows, cosine with norms
 *   computed per pair, full sort);
 * - the word-vector table: load time and peak RSS, first load (JSON → binary cache, in a
 *   temporary cache file) and cached load, each in a fresh process.
 * - tokenizer: the ASCII fast path vs the regex reference over the corpus texts;
 * - `ranked`: build of its field indexes (9 BM25 indexes) and median ms per query of computing
 *   all field features and the weighted sum, as a ratio to one BM25 query;
 * Single-threaded. Per-query figures are medians of wall-clock time and of this process's CPU time
 * (`process.cpuUsage`), since the machine may be shared. Run: npx tsx perf/retrieval.ts [dataDir]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadToolBenchSuite, toolBenchCorpus } from '../src/benchmarks/toolbench/index.js';
import {
  Bm25Index,
  bm25Analyze,
  EmbeddingRetriever,
  FIELD_FEATURES,
  FieldFeatures,
  loadWordVectors,
  RANKER_SCALED,
  scaleFeatures,
  tokenize,
  tokenizeRegex,
  WordVectorEmbedder,
} from '../src/retrieval/index.js';

const dataDir = process.argv[2] ?? process.env.APIARY_DATA ?? resolve(process.cwd(), '../shared/data');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const time = <T>(f: () => T): [T, number] => {
  const t = performance.now();
  const r = f();
  return [r, performance.now() - t];
};
const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(48)} ${value}\n`);

// ---------------------------------------------------------------- corpus and queries
const [suite, loadMs] = time(() => loadToolBenchSuite(dataDir));
const texts = suite.texts;
const queries = [...suite.sets.values()].flatMap((s) => s.queries.map((q) => q.text));
line('corpus', `${texts.length} APIs, ${queries.length} queries (loaded in ${(loadMs / 1000).toFixed(1)} s)`);

// ---------------------------------------------------------------- tokenizer
const [, tokRegexMs] = time(() => {
  for (const t of texts) tokenizeRegex(t);
});
const [, tokFastMs] = time(() => {
  for (const t of texts) tokenize(t);
});
line(
  'tokenize the corpus (ASCII fast path)',
  `${(tokFastMs / 1000).toFixed(2)} s vs regex reference ${(tokRegexMs / 1000).toFixed(2)} s → ×${(tokRegexMs / tokFastMs).toFixed(1)}`,
);

// ---------------------------------------------------------------- BM25
const [bm25, buildMs] = time(() => new Bm25Index(texts));
line('BM25 index build', `${(buildMs / 1000).toFixed(2)} s (${bm25.vocabularySize} terms)`);
/** Median wall and CPU milliseconds of f over the inputs. */
function medians<A>(f: (a: A) => unknown, inputs: readonly A[]): { wall: number; cpu: number; text: string } {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (const a of inputs) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    f(a);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const w = median(wall);
  const c = median(cpu);
  return { wall: w, cpu: c, text: `${w.toFixed(3)} ms wall, ${c.toFixed(3)} ms CPU` };
}
const perQuery = (f: (q: string) => unknown, qs: readonly string[]) => medians(f, qs);
for (const q of queries.slice(0, 20)) bm25.searchSync(q, 10); // warm-up
const bmIndexed = perQuery((q) => bm25.searchSync(q, 10), queries);

// naive baseline: per-document term counts, every document scored for every query
const k1 = 1.2;
const b = 0.75;
const docCounts = texts.map((t) => {
  const m = new Map<string, number>();
  const toks = bm25Analyze(t);
  for (const tok of toks) m.set(tok, (m.get(tok) ?? 0) + 1);
  return { m, len: toks.length };
});
const avgdl = docCounts.reduce((a, d) => a + d.len, 0) / docCounts.length;
const df = new Map<string, number>();
for (const d of docCounts) for (const t of d.m.keys()) df.set(t, (df.get(t) ?? 0) + 1);
const naiveBm25 = (q: string) => {
  const qt = bm25Analyze(q);
  const scores = docCounts.map((d) => {
    let s = 0;
    for (const t of qt) {
      const tf = d.m.get(t);
      if (!tf) continue;
      const f = df.get(t) as number;
      const idf = Math.log(1 + (docCounts.length - f + 0.5) / (f + 0.5));
      s += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.len) / avgdl));
    }
    return s;
  });
  return scores
    .map((s, i) => [s, i] as const)
    .sort((x, y) => y[0] - x[0])
    .slice(0, 10);
};
const sample = queries.filter((_, i) => i % 5 === 0);
const bmNaive = perQuery(naiveBm25, sample);
line('BM25 median per query (inverted index, top-10)', bmIndexed.text);
line(
  'BM25 median per query (naive linear scan)',
  `${bmNaive.text}  → index ×${(bmNaive.wall / bmIndexed.wall).toFixed(0)} faster (wall)`,
);

// ---------------------------------------------------------------- word vectors: load time, memory
const tmp = mkdtempSync(join(tmpdir(), 'apiary-bench-'));
const child = (cache?: string) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'retrieval-load.ts'), ...(cache ? [cache] : [])],
      {
        encoding: 'utf8',
      },
    ),
  ) as { from: string; ms: number; words: number; maxRssMB: number };
try {
  const first = child(join(tmp, 'glove.apwv'));
  const cached = child(join(tmp, 'glove.apwv'));
  line(
    'GloVe first load (JSON → binary cache)',
    `${first.ms} ms, peak RSS ${first.maxRssMB} MB (${first.from})`,
  );
  line(
    'GloVe cached load',
    `${cached.ms} ms, peak RSS ${cached.maxRssMB} MB (${cached.from}) → ×${(first.ms / cached.ms).toFixed(0)} faster`,
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

// ---------------------------------------------------------------- vector search
const { table } = loadWordVectors();
const embedder = new WordVectorEmbedder(table).fitIdf(texts);
const [dense, embedMs] = await (async () => {
  const t = performance.now();
  const r = await EmbeddingRetriever.build(embedder, texts);
  return [r, performance.now() - t] as const;
})();
line('vector index build (embed 46,802 APIs)', `${(embedMs / 1000).toFixed(2)} s`);
const qvecs = queries.map((q) => embedder.embedOne(q));
for (const v of qvecs.slice(0, 10)) dense.index.search(v, 10); // warm-up
const vecIndexed = medians((v: Float32Array) => dense.index.search(v, 10), qvecs);
const embedQuery = medians((q: string) => embedder.embedOne(q), queries);
const rows: number[][] = [];
for (let i = 0; i < dense.index.size; i++)
  rows.push(Array.from(dense.index.data.subarray(i * 100, (i + 1) * 100)));
const naiveVec = (v: Float32Array) => {
  const q = Array.from(v);
  const scores = rows.map((r) => {
    let dot = 0;
    let nr = 0;
    let nq = 0;
    for (let j = 0; j < r.length; j++) {
      dot += (r[j] as number) * (q[j] as number);
      nr += (r[j] as number) ** 2;
      nq += (q[j] as number) ** 2;
    }
    return dot / (Math.sqrt(nr * nq) || 1);
  });
  return scores
    .map((s, i) => [s, i] as const)
    .sort((x, y) => y[0] - x[0])
    .slice(0, 10);
};
const vecNaive = medians(
  naiveVec,
  qvecs.filter((_, i) => i % 5 === 0),
);
line('embed one query (GloVe, median)', embedQuery.text);
line('vector search median per query (Float32Array + heap)', vecIndexed.text);
line(
  'vector search median per query (naive scan + sort)',
  `${vecNaive.text}  → ×${(vecNaive.wall / vecIndexed.wall).toFixed(1)} faster (wall)`,
);

// ---------------------------------------------------------------- ranked (field features)
const [ff, ffMs] = time(() => new FieldFeatures(toolBenchCorpus(suite)));
line('ranked: field indexes build', `${(ffMs / 1000).toFixed(2)} s`);
const rankedQuery = medians((q: string) => {
  const v = scaleFeatures(ff.compute(q), RANKER_SCALED);
  const out = new Float32Array(texts.length);
  for (const f of FIELD_FEATURES) {
    const x = v.get(f) as Float32Array;
    for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) + (x[i] as number);
  }
  return out;
}, sample);
line(
  'ranked: features + scoring median per query',
  `${rankedQuery.text}  → ×${(rankedQuery.wall / bmIndexed.wall).toFixed(1)} one BM25 query (wall)`,
);
line('load average (1 min) at the end', loadavg()[0]?.toFixed(2) ?? '?');
