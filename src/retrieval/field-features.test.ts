import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25.js';
import { FIELD_FEATURES, FieldFeatures, splitSentences, UNBOUNDED_FIELD_FEATURES } from './field-features.js';

describe('splitSentences', () => {
  it('cuts at . ? ! followed by space and drops fragments of 3 characters or less', () => {
    expect(splitSentences('Find a hotel in Paris. Also book a taxi? Ok. Thanks!')).toEqual([
      'Find a hotel in Paris.',
      'Also book a taxi?',
      'Thanks!',
    ]);
    expect(splitSentences('v1.2 is out')).toEqual(['v1.2 is out']);
    expect(splitSentences('Hi.')).toEqual(['Hi.']);
  });
});

describe('FieldFeatures', () => {
  // two tools: "weather" answers both sentences of the query, "clone" only the first
  const corpus = {
    texts: ['hotel search', 'taxi booking', 'hotel search', 'currency rates'],
    groups: {
      texts: ['weather tool', 'clone tool', 'money tool'],
      names: ['Travel', 'Clone', 'Money'],
      groupOf: Uint32Array.from([0, 0, 1, 2]),
    },
  };
  const ff = new FieldFeatures(corpus);
  const query = 'Find a hotel search. Then a taxi booking.';
  const f = ff.compute(query);

  it('computes every named feature for every document', () => {
    expect([...f.keys()].sort()).toEqual([...FIELD_FEATURES].sort());
    for (const v of f.values()) expect(v).toHaveLength(4);
  });

  it('doc.text is BM25 of the whole query; absent fields are zero', () => {
    expect([...(f.get('doc.text') as Float32Array)]).toEqual([
      ...new Bm25Index(corpus.texts).scoreAllSync(query),
    ]);
    expect([...(f.get('doc.second') as Float32Array)]).toEqual([0, 0, 0, 0]);
    expect([...(f.get('group.description') as Float32Array)]).toEqual([0, 0, 0, 0]);
  });

  it('group.coverage: a tool answering both sentences scores 1, its clone 1/2, an unrelated tool 0', () => {
    // sentence 1 is answered equally by docs 0 and 2 (tools 0 and 1); sentence 2 only by doc 1 (tool 0)
    expect([...(f.get('group.coverage') as Float32Array)]).toEqual([1, 1, 0.5, 0]);
  });

  it('doc.sentence: best relative score of the document against one sentence', () => {
    expect([...(f.get('doc.sentence') as Float32Array)]).toEqual([1, 1, 1, 0]);
  });

  it('group.sentence: the best doc.sentence of the tool, so a tool answering one sentence fully scores 1', () => {
    // the clone (tool 1) answers only the first sentence: coverage 1/2, group.sentence 1
    expect([...(f.get('group.sentence') as Float32Array)]).toEqual([1, 1, 1, 0]);
    const partial = new FieldFeatures({
      texts: ['hotel search', 'taxi booking', 'hotel', 'currency rates'],
      groups: { texts: ['a', 'b', 'c'], groupOf: Uint32Array.from([0, 0, 1, 2]) },
    }).compute(query);
    const docSentence = partial.get('doc.sentence') as Float32Array;
    const groupSentence = partial.get('group.sentence') as Float32Array;
    // "hotel" alone matches half of the first sentence's best document
    expect(docSentence[2]).toBeGreaterThan(0);
    expect(docSentence[2]).toBeLessThan(1);
    expect([...groupSentence]).toEqual([1, 1, docSentence[2], 0]);
  });

  it('group.top2 sums the two best member scores; size priors', () => {
    const d = new Bm25Index(corpus.texts).scoreAllSync(query);
    const top2 = f.get('group.top2') as Float32Array;
    expect(top2[0]).toBeCloseTo((d[0] as number) + (d[1] as number), 5);
    expect(top2[2]).toBeCloseTo(d[2] as number, 5);
    expect([...(f.get('group.log-size') as Float32Array)].map((x) => +x.toFixed(6))).toEqual([
      +Math.log(2).toFixed(6),
      +Math.log(2).toFixed(6),
      0,
      0,
    ]);
    expect([...(f.get('group.single') as Float32Array)]).toEqual([0, 0, 1, 1]);
  });

  it('family.coverage: a family (category) answering every sentence with different tools scores 1', () => {
    // tools 0 and 1 (family 0) answer one sentence each; tool 2 (family 1) answers the first only
    const fam = new FieldFeatures({
      texts: ['hotel search', 'taxi booking', 'hotel search', 'currency rates'],
      groups: {
        texts: ['a', 'b', 'c', 'd'],
        groupOf: Uint32Array.from([0, 1, 2, 3]),
        familyOf: Uint32Array.from([0, 0, 1, 1]),
      },
    }).compute(query);
    expect([...(fam.get('group.coverage') as Float32Array)]).toEqual([0.5, 0.5, 0.5, 0]);
    expect([...(fam.get('family.coverage') as Float32Array)]).toEqual([1, 1, 0.5, 0.5]);
    // without families the feature is zero
    expect([...(f.get('family.coverage') as Float32Array)]).toEqual([0, 0, 0, 0]);
  });

  it('rejects a family map whose length differs from the groups', () => {
    expect(
      () =>
        new FieldFeatures({
          texts: ['a', 'b'],
          groups: { texts: ['x', 'y'], groupOf: Uint32Array.from([0, 1]), familyOf: Uint32Array.from([0]) },
        }),
    ).toThrow('field "groups.familyOf" has 1 entries for 2 groups');
  });

  it('name coverage: share of the name words present in the query', () => {
    const names = new FieldFeatures({
      texts: ['a', 'b', 'c'],
      names: ['Artist Top Tracks', 'Track Info', ''],
      groups: { texts: ['x', 'y'], names: ['Shazam', 'Shazam API'], groupOf: Uint32Array.from([0, 1, 1]) },
    }).compute('Top tracks of an artist on Shazam');
    // "track" is a stem of both tracks and Tracks; "info" is absent; an empty name scores 0
    expect([...(names.get('doc.name.coverage') as Float32Array)]).toEqual([1, 0.5, 0]);
    expect([...(names.get('group.name.coverage') as Float32Array)]).toEqual([1, 0.5, 0.5]);
  });

  it('without groups every group feature is zero', () => {
    const g = new FieldFeatures({ texts: corpus.texts }).compute(query);
    expect([...(g.get('group.coverage') as Float32Array)]).toEqual([0, 0, 0, 0]);
    expect([...(g.get('doc.sentence') as Float32Array)]).toEqual([1, 1, 1, 0]);
  });

  it('unbounded features are the BM25 sums (scaled per query by the ranker)', () => {
    expect(UNBOUNDED_FIELD_FEATURES).toEqual([
      'doc.text',
      'doc.second',
      'doc.name',
      'doc.description',
      'group.text',
      'group.text.b03',
      'group.text.k2b05',
      'group.name',
      'group.description',
      'group.top2',
    ]);
  });

  it('rejects a field whose length differs from the corpus', () => {
    expect(() => new FieldFeatures({ texts: ['a b', 'c d'], names: ['x'] })).toThrow(
      'field "names" has 1 entries for 2 documents',
    );
  });
});
