import { describe, expect, it } from 'vitest';
import { Bm25Index, bm25Analyze } from './bm25.js';
import {
  buildFieldIndexes,
  FIELD_FEATURES,
  type FieldedCorpus,
  type FieldFeatureName,
  FieldFeatures,
  type FieldIndexes,
  splitSentences,
} from './field-features.js';
import {
  type FeatureSource,
  type RankExample,
  type RankerModel,
  scaleFeatures,
  trainLinearRanker,
} from './linear-ranker.js';
import { rankExamples, rankFeatureSource } from './rank-features.js';
import { topK } from './top-k.js';
import type { RetrievalQuery } from './types.js';

// The path before feature vectors were reused (FieldFeatures.compute with a new vector per feature
// and per step, scaleFeatures copies, one Float64Array per row), kept here as the oracle the
// reused-buffer path must match bit for bit.

function referenceNameCoverage(index: Bm25Index, queryWords: ReadonlySet<string>): Float32Array {
  const hits = new Uint32Array(index.size);
  index.countMatches(queryWords, hits);
  const distinct = index.distinctTermsPerDoc();
  const out = new Float32Array(index.size);
  for (let i = 0; i < out.length; i++) if (hits[i]) out[i] = (hits[i] as number) / (distinct[i] as number);
  return out;
}

const referenceMax = (a: Float32Array): number => {
  let m = 0;
  for (let i = 0; i < a.length; i++) if ((a[i] as number) > m) m = a[i] as number;
  return m || 1;
};

function referenceCompute(ix: FieldIndexes, query: string): Map<string, Float32Array> {
  const n = ix.text.size;
  const out = new Map<string, Float32Array>();
  const zero = () => new Float32Array(n);
  const docScore = (q: string) => {
    const s = ix.text.scoreAllSync(q);
    if (ix.second) {
      const t = ix.second.scoreAllSync(q);
      for (let i = 0; i < s.length; i++) s[i] = (s[i] as number) + (t[i] as number);
    }
    return s;
  };
  out.set('doc.text', ix.text.scoreAllSync(query));
  out.set('doc.second', ix.second?.scoreAllSync(query) ?? zero());
  out.set('doc.name', ix.name?.scoreAllSync(query) ?? zero());
  out.set('doc.description', ix.description?.scoreAllSync(query) ?? zero());
  const queryWords = new Set(bm25Analyze(query));
  out.set('doc.name.coverage', ix.name ? referenceNameCoverage(ix.name, queryWords) : zero());
  const sentences = splitSentences(query);
  const docSentence = zero();
  const g = ix.group;
  const groupLevel = new Map<string, Float32Array>();
  const cover = g ? new Float32Array(g.count) : undefined;
  const coverText = g ? new Float32Array(g.count) : undefined;
  for (const s of sentences) {
    const ds = docScore(s);
    const m = referenceMax(ds);
    for (let i = 0; i < n; i++) {
      const r = (ds[i] as number) / m;
      if (r > (docSentence[i] as number)) docSentence[i] = r;
    }
    if (g && cover && coverText) {
      const best = new Float32Array(g.count);
      for (let i = 0; i < n; i++) {
        const k = g.groupOf[i] as number;
        if ((ds[i] as number) > (best[k] as number)) best[k] = ds[i] as number;
      }
      const ts = g.text.scoreAllSync(s);
      const mt = referenceMax(ts);
      for (let k = 0; k < g.count; k++) {
        cover[k] = (cover[k] as number) + (best[k] as number) / m / sentences.length;
        coverText[k] = (coverText[k] as number) + (ts[k] as number) / mt / sentences.length;
      }
    }
  }
  out.set('doc.sentence', docSentence);
  if (g && cover && coverText) {
    const size = new Float32Array(g.count);
    for (const k of g.groupOf) size[k] = (size[k] as number) + 1;
    const logSize = size.map((s) => (s > 0 ? Math.log(s) : 0));
    const d = (out.get('doc.text') as Float32Array).map(
      (x, i) => x + ((out.get('doc.second') as Float32Array)[i] as number),
    );
    const top1 = new Float32Array(g.count);
    const top2 = new Float32Array(g.count);
    for (let i = 0; i < n; i++) {
      const k = g.groupOf[i] as number;
      const x = d[i] as number;
      if (x > (top1[k] as number)) {
        top2[k] = top1[k] as number;
        top1[k] = x;
      } else if (x > (top2[k] as number)) top2[k] = x;
    }
    groupLevel.set('group.text', g.text.scoreAllSync(query));
    groupLevel.set('group.text.b03', g.textB03.scoreAllSync(query));
    groupLevel.set('group.text.k2b05', g.textK2.scoreAllSync(query));
    groupLevel.set('group.name', g.name?.scoreAllSync(query) ?? new Float32Array(g.count));
    groupLevel.set('group.description', g.description?.scoreAllSync(query) ?? new Float32Array(g.count));
    groupLevel.set('group.coverage', cover);
    const sentenceBest = new Float32Array(g.count);
    for (let i = 0; i < n; i++) {
      const k = g.groupOf[i] as number;
      sentenceBest[k] = Math.max(sentenceBest[k] as number, docSentence[i] as number);
    }
    groupLevel.set('group.sentence', sentenceBest);
    groupLevel.set('group.coverage.text', coverText);
    groupLevel.set(
      'group.top2',
      top1.map((x, k) => x + (top2[k] as number)),
    );
    groupLevel.set('group.log-size', logSize);
    if (g.name) groupLevel.set('group.name.coverage', referenceNameCoverage(g.name, queryWords));
    groupLevel.set(
      'group.single',
      logSize.map((x) => (x === 0 ? 1 : 0)),
    );
  }
  for (const f of FIELD_FEATURES) {
    if (out.has(f)) continue;
    const gv = groupLevel.get(f);
    if (!gv || !g) {
      out.set(f, zero());
      continue;
    }
    const v = zero();
    for (let i = 0; i < n; i++) v[i] = gv[g.groupOf[i] as number] as number;
    out.set(f, v);
  }
  return out;
}

async function referenceRankExample(
  features: FeatureSource,
  query: RetrievalQuery,
  names: readonly string[],
  initial: RankerModel,
  perList: number,
): Promise<RankExample> {
  const vectors = scaleFeatures(await features(query.text), initial.scaled);
  const n = vectors.values().next().value?.length ?? 0;
  const base = new Float32Array(n);
  for (const [f, w] of Object.entries(initial.weights)) {
    const v = vectors.get(f);
    if (v) for (let i = 0; i < n; i++) base[i] = (base[i] as number) + w * (v[i] as number);
  }
  const cand = new Set<number>(topK(base, perList).map((h) => h.doc));
  for (const f of names) {
    const v = vectors.get(f);
    if (v) for (const h of topK(v, Math.floor(perList / 3))) cand.add(h.doc);
  }
  const docs = [...cand];
  const rows = docs.map((d) => Float64Array.from(names, (f) => vectors.get(f)?.[d] ?? 0));
  const relevant = query.relevant.map((d) => docs.indexOf(d)).filter((i) => i >= 0);
  return { rows, relevant, missed: query.relevant.length - relevant.length };
}

// 14 APIs of 6 tools (one single-API tool), every field present
const apis: Array<[tool: number, name: string, description: string]> = [
  [0, 'Search hotels', 'Find hotels in a city by date and price'],
  [0, 'Hotel details', 'Rooms, photos and reviews of one hotel'],
  [0, 'Book hotel', 'Reserve a hotel room for given dates'],
  [1, 'Taxi quote', 'Price of a taxi ride between two places'],
  [1, 'Book taxi', 'Order a taxi to an address now or later'],
  [2, 'Currency rates', 'Latest exchange rates for a base currency'],
  [2, 'Convert currency', 'Convert an amount from one currency to another'],
  [2, 'Historical rates', 'Exchange rates on a past date'],
  [3, 'Weather now', 'Current weather of a city: temperature and wind'],
  [3, 'Weather forecast', 'Forecast of the next days for a city'],
  [4, 'Top tracks', 'Top music tracks of an artist'],
  [4, 'Track info', 'Details of a music track by id'],
  [4, 'Search artist', 'Find an artist by name'],
  [5, 'Random joke', 'A random joke'],
];
const tools: Array<[name: string, description: string]> = [
  ['Hotels', 'Hotel search and booking'],
  ['Rides', 'Taxi rides in many cities'],
  ['Money', 'Currency exchange rates'],
  ['Weather', 'Weather data for any city'],
  ['Shazam', 'Music recognition and charts'],
  ['Jokes', 'Jokes of every kind'],
];
const corpus: FieldedCorpus = {
  texts: apis.map(([t, n, d]) => `${tools[t]?.[0]}. ${n}. ${d}`),
  second: apis.map(([t, n, d]) => `${tools[t]?.[0]}, ${n}, ${d}, required_params: [{"name": "city"}]`),
  names: apis.map(([, n]) => n),
  descriptions: apis.map(([, , d]) => d),
  groups: {
    texts: tools.map(([n, d], t) =>
      [n, d, ...apis.filter(([g]) => g === t).flatMap(([, an, ad]) => [an, ad])].join('. '),
    ),
    names: tools.map(([n]) => n),
    descriptions: tools.map(([, d]) => d),
    groupOf: Uint32Array.from(apis.map(([t]) => t)),
  },
};
const queries: RetrievalQuery[] = [
  {
    id: 'a',
    text: 'Find a hotel in Paris for next week. Then book a taxi from the airport.',
    relevant: [0, 4],
  },
  { id: 'b', text: 'Convert 100 dollars to euros? And what were the rates last year?', relevant: [6, 7] },
  { id: 'c', text: 'What is the weather in Rome', relevant: [8] },
  { id: 'd', text: 'Top tracks of an artist on Shazam. Tell me a joke too!', relevant: [10, 13] },
  {
    id: 'e',
    text: 'Reviews and photos of the hotel. Its price. The weather forecast there.',
    relevant: [1, 9, 3],
  },
];
const names = [...FIELD_FEATURES, 'trained'];
const initial: RankerModel = {
  weights: { 'doc.text': 1, 'doc.second': 0.5, 'group.text': 2 },
  scaled: ['doc.text', 'doc.second', 'doc.name', 'doc.description', 'group.text', 'group.top2', 'trained'],
};
// any retriever stands in for the trained cosine
const trained = new Bm25Index(corpus.descriptions as string[], { b: 0.3 });
const plain = (examples: RankExample[]) => examples.map((e) => ({ ...e, rows: e.rows.map((r) => [...r]) }));

describe('FieldFeatures.compute into reused vectors', () => {
  it('gives, query after query, exactly the vectors of the implementation that allocated them', () => {
    const ix = buildFieldIndexes(corpus);
    const ff = new FieldFeatures(ix);
    const reused = ff.vectors();
    for (const q of [...queries, ...queries.slice(0, 2).reverse()]) {
      const expected = referenceCompute(ix, q.text);
      expect(ff.compute(q.text, reused)).toBe(reused);
      for (const f of FIELD_FEATURES) expect(reused.get(f), `${q.id} ${f}`).toEqual(expected.get(f));
      // and so do new vectors
      expect(ff.compute(q.text)).toEqual(reused);
    }
    // without groups, the group features of the previous query are cleared
    const flat = new FieldFeatures({ texts: corpus.texts, names: corpus.names as string[] });
    const into = flat.vectors();
    for (const f of FIELD_FEATURES) into.get(f)?.fill(7);
    flat.compute(queries[0]?.text as string, into);
    expect([...(into.get('group.coverage') as Float32Array)]).toEqual(new Array(14).fill(0));
    expect(into).toEqual(
      referenceCompute(
        buildFieldIndexes({ texts: corpus.texts, names: corpus.names }),
        queries[0]?.text as string,
      ),
    );
  });

  it('refuses vectors of another corpus size', () => {
    const ff = new FieldFeatures(corpus);
    const wrong = new Map(
      [...ff.vectors()].map(([f]) => [f, new Float32Array(3)] as [FieldFeatureName, Float32Array]),
    );
    expect(() => ff.compute('hotel', wrong)).toThrow('feature vector "doc.text" missing or not of length 14');
  });
});

describe('rankExamples (reused feature vectors, scaled in place)', () => {
  it('builds the examples of the allocating path, bit for bit, and so the same ranker weights', async () => {
    const ix = buildFieldIndexes(corpus);
    const oracle: FeatureSource = async (q) => {
      const m = referenceCompute(ix, q);
      m.set('trained', await trained.scoreAll(q));
      return m;
    };
    const before: RankExample[] = [];
    for (const q of queries) before.push(await referenceRankExample(oracle, q, names, initial, 3));
    const after = await rankExamples(corpus, queries, names, initial, trained, 3);
    expect(plain(after)).toEqual(plain(before));
    // 3 initial candidates and the top one of each feature: 4–5 of the 14 documents, one relevant missed
    expect(after.map((e) => [e.rows.length, e.relevant, e.missed])).toEqual([
      [4, [0, 2], 0],
      [5, [0, 1], 0],
      [4, [0], 0],
      [5, [0, 3], 0],
      [4, [0, 2], 1],
    ]);
    const wBefore = trainLinearRanker(before, names, { initial: initial.weights, iterations: 50 });
    const wAfter = trainLinearRanker(after, names, { initial: initial.weights, iterations: 50 });
    expect(wAfter).toEqual(wBefore);
    // the feature source of `ranked` (new vectors per query) agrees as well
    const viaSource = rankFeatureSource(corpus, trained);
    for (const q of queries)
      expect([...((await viaSource(q.text)).get('group.coverage') as Float32Array)]).toEqual([
        ...((await oracle(q.text)).get('group.coverage') as Float32Array),
      ]);
    expect(after[0]?.rows[0]?.length).toBe(names.length);
  });
});
