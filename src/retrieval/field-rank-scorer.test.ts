import { describe, expect, it } from 'vitest';
import { FIELD_FEATURES, FieldFeatures } from './field-features.js';
import { FieldRankScorer } from './field-rank-scorer.js';
import { LinearRankRetriever } from './linear-ranker.js';
import { RANKER_SCALED } from './retriever-weights.js';

// Two tools: Travel (docs 0, 1) answers both sentences; Clone (doc 2) only the first; Money (doc 3) none.
// Travel and Clone are of one family (category), Money of another.
const corpus = {
  texts: ['hotel search', 'taxi booking', 'hotel search', 'currency rates'],
  second: ['search_hotel(city)', 'book_taxi(from, to)', 'hotel_search(city)', 'rates(base)'],
  names: ['Search Hotel', 'Book Taxi', 'Hotel Search API', 'Rates'],
  descriptions: ['find hotels', 'book a taxi', 'find hotels', 'exchange rates'],
  groups: {
    texts: ['travel tool hotel taxi', 'clone tool hotel', 'money tool rates'],
    names: ['Travel', 'Clone', 'Money'],
    descriptions: ['trips', 'trips too', 'money'],
    groupOf: Uint32Array.from([0, 0, 1, 2]),
    familyOf: Uint32Array.from([0, 0, 1]),
  },
};
const query = 'Find a hotel search in Paris. Then a taxi booking.';
const ff = new FieldFeatures(corpus);

describe('FieldRankScorer', () => {
  it('scores like LinearRankRetriever over FieldFeatures.compute, for every feature alone and all together', async () => {
    const weightsList: Array<Record<string, number>> = FIELD_FEATURES.map((f) => ({ [f]: 1.5 }));
    weightsList.push(Object.fromEntries(FIELD_FEATURES.map((f, i) => [f, (i % 5) - 2])));
    for (const weights of weightsList) {
      const model = { weights, scaled: RANKER_SCALED };
      const ref = await new LinearRankRetriever(async (q) => ff.compute(q), model).scoreAll(query);
      const fast = new FieldRankScorer(ff.indexes, model).score(query);
      expect([...fast]).toEqual([...ref].map((x) => expect.closeTo(x, 5)));
    }
  });

  it('hand-checked: group.coverage 1 / 1 / 0.5 / 0 and group.single, weighted', () => {
    const fast = new FieldRankScorer(ff.indexes, {
      weights: { 'group.coverage': 2, 'group.single': -1 },
      scaled: [],
    }).score(query);
    // Travel covers both sentences (2·1); Clone covers one of two (2·0.5) and is a single-API tool (−1)
    expect([...fast]).toEqual([2, 2, 0, -1]);
  });

  it('hand-checked: family.coverage 1 for the family answering both sentences, 0 for the other', () => {
    const fast = new FieldRankScorer(ff.indexes, { weights: { 'family.coverage': 2 }, scaled: [] }).score(
      query,
    );
    expect([...fast]).toEqual([2, 2, 2, 0]);
  });

  it('sentence diversity: λ 0 changes nothing; otherwise the same scores among the re-ranked documents', () => {
    const model = { weights: { 'group.coverage': 2, 'doc.text': 1 }, scaled: ['doc.text'] };
    const plain = new FieldRankScorer(ff.indexes, model).score(query);
    expect([...new FieldRankScorer(ff.indexes, model, { lambda: 0, depth: 4 }).score(query)]).toEqual([
      ...plain,
    ]);
    const diverse = new FieldRankScorer(ff.indexes, model, { lambda: 0.9, depth: 4 }).score(query);
    expect([...diverse].sort()).toEqual([...plain].sort());
  });

  it('adds extra features (the trained cosine), scaled by their max |x|', () => {
    const fast = new FieldRankScorer(ff.indexes, { weights: { trained: 2 }, scaled: ['trained'] }).score(
      query,
      new Map([['trained', [0.5, -1, 0.25, 0]]]),
    );
    expect([...fast]).toEqual([1, -2, 0.5, 0]);
  });

  it('without groups the group features add nothing', () => {
    const flat = new FieldFeatures({ texts: corpus.texts });
    const fast = new FieldRankScorer(flat.indexes, {
      weights: { 'doc.sentence': 1, 'group.coverage': 5, 'group.single': 3 },
      scaled: [],
    }).score(query);
    // sentence 1 hits docs 0 and 2 (hotel search) fully, sentence 2 doc 1 (taxi booking)
    expect([...fast]).toEqual([1, 1, 1, 0]);
  });
});
