import { describe, expect, it } from 'vitest';
import { FeatureExtractor } from './features.js';
import { identityProjection } from './mnr.js';
import {
  decodeTrainedModel,
  encodeTrainedModel,
  type TrainedModel,
  TrainedRetriever,
  type TrainState,
  trainProjection,
} from './trained-retriever.js';
import { wordVectorsFromRows } from './word-vectors.js';

const corpus = [
  'Weather. Get current weather forecast for a city',
  'Movies. Find movie showtimes in theaters',
  'Finance. Convert currency exchange rates',
  'Sports. Football league standings and match results',
];
const table = wordVectorsFromRows([
  ['weather', [1, 0, 0]],
  ['forecast', [0.9, 0.1, 0]],
  ['rain', [0.8, 0.2, 0]],
  ['movie', [0, 1, 0]],
  ['film', [0.1, 0.9, 0]],
  ['currency', [0, 0, 1]],
  ['money', [0, 0.1, 0.9]],
]);

describe('FeatureExtractor', () => {
  it('has unit-length features split α²/β² between dense and hashed parts', () => {
    const fx = FeatureExtractor.fit(corpus, { hashDim: 16, table, alpha: Math.sqrt(0.5) });
    expect(fx.dimension).toBe(3 + 16);
    const x = fx.extract('rain forecast');
    let dense = 0;
    let hashed = 0;
    x.idx.forEach((i, k) => {
      if (i < 3) dense += (x.val[k] as number) ** 2;
      else hashed += (x.val[k] as number) ** 2;
    });
    expect(dense).toBeCloseTo(0.5, 5);
    expect(hashed).toBeCloseTo(0.5, 5);
    // no known word and no token: empty vector
    expect(fx.extract('!!').idx.length).toBe(0);
  });
});

describe('trained retriever', () => {
  it('training on pairs puts paraphrases first', async () => {
    const fx = FeatureExtractor.fit(corpus, { hashDim: 32 });
    const pairs = [
      { query: 'will it rain tomorrow', doc: 0 },
      { query: 'what films are playing', doc: 1 },
      { query: 'how much money is a dollar in euros', doc: 2 },
      { query: 'who won the game', doc: 3 },
    ];
    const { projection, epochLosses } = trainProjection(fx, corpus, pairs, {
      epochs: 60,
      batchSize: 4,
      lr: 0.05,
      seed: 1,
    });
    expect(epochLosses[epochLosses.length - 1]).toBeLessThan(epochLosses[0] as number);
    const model: TrainedModel = { features: fx.config, projection, scale: 20, wordVectors: null, info: {} };
    const r = TrainedRetriever.build(model, corpus);
    for (const p of pairs) expect((await r.search(p.query, 1))[0]?.doc).toBe(p.doc);
  });

  it('a run resumed from a checkpoint (mid-epoch or at an epoch end) ends exactly like an uninterrupted one', () => {
    const fx = FeatureExtractor.fit(corpus, { hashDim: 16 });
    const pairs = [0, 1, 2, 3, 0, 1, 2, 3].map((doc, i) => ({ query: `${corpus[doc]} q${i}`, doc }));
    const opts = { epochs: 3, batchSize: 2, lr: 0.05, seed: 7, groupOf: (d: number) => d % 2 };
    const saved: TrainState[] = [];
    const full = trainProjection(fx, corpus, pairs, {
      ...opts,
      checkpoint: { every: 3, save: (s) => saved.push(s) },
    });
    // 8 pairs in batches of 2 → 4 batches per epoch: a mid-epoch save after batch 3, one at each epoch end
    expect(saved.map((s) => [s.epoch, s.nextBatch])).toEqual([
      [0, 3],
      [1, 0],
      [1, 3],
      [2, 0],
      [2, 3],
      [3, 0],
    ]);
    expect(saved[5]?.epochLosses).toEqual(full.epochLosses);
    for (const at of [saved[0], saved[3]] as TrainState[]) {
      const resumed = trainProjection(fx, corpus, pairs, { ...opts, resume: at });
      expect([...resumed.projection.w]).toEqual([...full.projection.w]);
      expect(resumed.epochLosses).toEqual(full.epochLosses);
    }
  });

  it('saves and loads (JSON header + float32 weights)', async () => {
    const fx = FeatureExtractor.fit(corpus, { hashDim: 8, table });
    const projection = identityProjection(fx.dimension);
    projection.w[5] = 0.25;
    const model: TrainedModel = {
      features: fx.config,
      projection,
      scale: 20,
      wordVectors: 'tiny',
      info: { holdout: 'G1_tool' },
    };
    const buf = encodeTrainedModel(model);
    expect(buf.toString('latin1', 0, 8)).toBe('APRM0001');
    const back = decodeTrainedModel(buf, 'm.bin');
    expect(back.projection.dIn).toBe(11);
    expect(back.projection.w[5]).toBe(0.25);
    expect(back.info).toEqual({ holdout: 'G1_tool' });
    expect(back.features.bucketIdf).toHaveLength(8);
    const a = TrainedRetriever.build(model, corpus, table);
    const b = TrainedRetriever.build(back, corpus, table);
    expect(Array.from(await b.scoreAll('weather'))).toEqual(
      Array.from(await a.scoreAll('weather')).map((x) => expect.closeTo(x, 5)),
    );
    expect(() => decodeTrainedModel(buf.subarray(0, buf.length - 4), 'm.bin')).toThrow(/truncated/);
    expect(() => decodeTrainedModel(Buffer.from('nope'), 'm.bin')).toThrow(/not an Apiary/);
    expect(back.ranker).toBeUndefined();
    const ranker = {
      weights: { 'doc.text': 1, trained: 32 },
      scaled: ['doc.text'],
      info: { trainOn: ['G1_tool'] },
    };
    expect(decodeTrainedModel(encodeTrainedModel({ ...model, ranker }), 'm.bin').ranker).toEqual(ranker);
  });
});
