import { readFileSync } from 'node:fs';
import { buildRetriever, LinearRankRetriever, rankFeatureSource } from '../src/retrieval/index.js';
import { evaluateRetriever, loadToolBenchSuite, toolBenchCorpus } from '../src/tasks/toolbench/index.js';

const suite = loadToolBenchSuite('/work/shared/data');
const corpus = toolBenchCorpus(suite);
const ranker = JSON.parse(readFileSync('/tmp/r14/ranker.json', 'utf8'));
const t = performance.now();
const fast = await buildRetriever('ranked', corpus, { ranker });
console.log('build', Math.round(performance.now() - t));
const ref = new LinearRankRetriever(rankFeatureSource(corpus), ranker);
const bm25 = await buildRetriever('bm25', corpus, {});
const qs = [...suite.sets.values()].flatMap((s) => s.queries);
for (const q of qs.slice(0, 20)) await fast.scoreAll(q.text);
const lat = async (r: { scoreAll(q: string): Promise<Float32Array> }) => {
  const ts: number[] = [];
  for (const q of qs) {
    const a = performance.now();
    await r.scoreAll(q.text);
    ts.push(performance.now() - a);
  }
  ts.sort((a, b) => a - b);
  return [ts[ts.length >> 1]!.toFixed(2), ts[Math.floor(ts.length * 0.95)]!.toFixed(2)];
};
console.log('fast', await lat(fast), 'bm25', await lat(bm25));
let maxRel = 0,
  topDiff = 0;
for (const q of qs) {
  const a = await fast.scoreAll(q.text);
  const b = await ref.scoreAll(q.text);
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!) / Math.max(1e-9, Math.abs(b[i]!));
    if (d > maxRel) maxRel = d;
  }
  const ta = (await fast.search(q.text, 10)).map((h) => h.doc).join();
  const tb = (await ref.search(q.text, 10)).map((h) => h.doc).join();
  if (ta !== tb) topDiff++;
}
console.log('max rel diff', maxRel, 'queries with different top-10', topDiff);
for (const [f, s] of suite.sets) {
  const a = await evaluateRetriever(fast, s.queries);
  const b = await evaluateRetriever(ref, s.queries);
  console.log(f, a.ndcg5, b.ndcg5);
}
