import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputInvalidError, mulberry32 } from '../shared/index.js';
import {
  batchDocuments,
  charNgrams,
  DenseEncoder,
  type DensePair,
  DenseRetriever,
  denseVocabulary,
  denseWordWeights,
  encodeCorpus,
  epochBatches,
  fnv1a,
  trainDenseEncoder,
} from './dense-encoder.js';
import { loadDenseModel, saveDenseModel } from './dense-model-file.js';
import { denseWords } from './tokenize.js';

const sorted = (x: { idx: Int32Array; val: Float32Array }) =>
  [...x.idx].map((i, k) => [i, x.val[k] as number] as const).sort((a, b) => a[0] - b[0]);

describe('dense encoder: tokenisation and n-gram hashing', () => {
  it('hashes with 32-bit FNV-1a (published test vectors)', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });

  it('takes the n-grams of <word> by length, then position', () => {
    expect(charNgrams('cat', 3, 4)).toEqual(['<ca', 'cat', 'at>', '<cat', 'cat>']);
    expect(charNgrams('a', 3, 5)).toEqual(['<a>']);
  });

  it('splits camelCase, drops stopwords and stems plurals', () => {
    expect(denseWords('GetWeatherCities for the city')).toEqual(['get', 'weather', 'citi', 'citi']);
  });

  it('pools a word over its own row and its n-gram buckets', () => {
    // cat: own row 0; <ca, cat, at> hash to buckets 3, 7, 2 (mod 8) → rows 4, 8, 3
    const enc = new DenseEncoder({ dim: 2, buckets: 8, minN: 3, maxN: 3 }, ['cat']);
    expect(enc.wordRows('cat')).toEqual([0, 4, 8, 3]);
    expect(sorted(enc.features('cat'))).toEqual([
      [0, 0.25],
      [3, 0.25],
      [4, 0.25],
      [8, 0.25],
    ]);
  });

  it('puts wordRowShare of a vocabulary word on its own row (unknown words: n-grams only)', () => {
    // cat (own row 0, n-gram rows 4, 8, 3): 0.5 on row 0, 0.5/3 on each n-gram; with equal
    // weights cat and dog weigh 1/2 each; dog (unknown) spreads its 1/2 over rows 7, 2, 8
    const enc = new DenseEncoder({ dim: 2, buckets: 8, minN: 3, maxN: 3, wordRowShare: 0.5 }, ['cat']);
    const third = +(0.5 / 3).toFixed(6);
    expect(sorted(enc.features('cat')).map(([r, x]) => [r, +x.toFixed(6)])).toEqual([
      [0, 0.5],
      [3, third],
      [4, third],
      [8, third],
    ]);
    const both = sorted(enc.features('cat dog')).map(([r, x]) => [r, +x.toFixed(6)]);
    expect(both).toEqual([
      [0, 0.25],
      [2, +(1 / 6).toFixed(6)],
      [3, +(1 / 12).toFixed(6)],
      [4, +(1 / 12).toFixed(6)],
      [7, +(1 / 6).toFixed(6)],
      [8, +(1 / 12 + 1 / 6).toFixed(6)],
    ]);
  });

  it('weighs words by their pooling weight (unknown words: the last weight, n-grams only)', () => {
    // cat weighs 1 over 4 rows (1/16 each); dog (unknown) weighs 3 over rows 7, 2, 8 (1/4 each)
    const enc = new DenseEncoder(
      { dim: 2, buckets: 8, minN: 3, maxN: 3 },
      ['cat'],
      Float32Array.from([1, 3]),
    );
    expect(sorted(enc.features('cat dog'))).toEqual([
      [0, 1 / 16],
      [2, 1 / 4],
      [3, 1 / 16],
      [4, 1 / 16],
      [7, 1 / 4],
      [8, 5 / 16],
    ]);
    expect(enc.features('the of').idx.length).toBe(0);
  });

  it('fits the vocabulary by document frequency and IDF weights', () => {
    expect(denseVocabulary(['the cat sat', 'a cat ran', 'dog sat'], 2)).toEqual(['cat', 'sat']);
    const w = denseWordWeights(['cat', 'dog'], ['cat dog', 'cat']);
    expect([...w]).toEqual([Math.fround(Math.log(2)), Math.fround(Math.log(3)), Math.fround(Math.log(3))]);
  });

  it('encodes to a unit vector, and a text without words to zeros', () => {
    const enc = new DenseEncoder({ dim: 2, buckets: 8, minN: 3, maxN: 3 }, ['cat']);
    const table = new Float32Array(9 * 2);
    table.set([3, 4], 0); // row 0 (the word cat); n-gram rows are zero
    expect([...enc.encode(table, 'cat')]).toEqual([0.6, 0.8].map(Math.fround));
    expect([...enc.encode(table, 'the')]).toEqual([0, 0]);
  });
});

describe('dense encoder: batches', () => {
  it('fills each batch from one group when pairs have groups, and drops a short last batch', () => {
    const pairs: DensePair[] = Array.from({ length: 9 }, (_, i) => ({
      query: `q${i}`,
      doc: `d${i}`,
      group: i < 4 ? 0 : 1,
    }));
    const batches = epochBatches(pairs.slice(0, 8), 4, mulberry32(1));
    expect(batches).toHaveLength(2);
    for (const b of batches) expect(new Set(b.map((i) => pairs[i]?.group)).size).toBe(1);
    expect(batches.flat().sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(epochBatches(pairs, 4, mulberry32(1)).flat()).toHaveLength(8);
  });
});

describe('dense encoder: keys and hard negatives in a batch', () => {
  it('never puts two pairs with the same key in one batch (the later one waits for the next batch)', () => {
    // no groups, so the batches are cuts of the shuffled order; pairs 0, 1 and 3 are keyed "a"
    const keys = ['a', 'a', 'b', 'a', undefined, undefined];
    const pairs: DensePair[] = keys.map((key, i) => ({
      query: `q${i}`,
      doc: `d${i}`,
      ...(key ? { key } : {}),
    }));
    const unkeyed = pairs.map(({ key: _k, ...p }) => p);
    // the same shuffle without keys puts 3 and 0 (both "a") together
    expect(epochBatches(unkeyed, 2, mulberry32(4))).toEqual([
      [4, 2],
      [3, 0],
      [1, 5],
    ]);
    // with keys 0 waits, 5 takes its place; 0 and 1 (both "a") never fill a batch: dropped as a short last one
    expect(epochBatches(pairs, 2, mulberry32(4))).toEqual([
      [4, 2],
      [3, 5],
    ]);
  });

  it('adds each distinct hard negative after the positives, never one that is a positive', () => {
    const batch: DensePair[] = [
      { query: 'q0', doc: 'A', negative: 'X' },
      { query: 'q1', doc: 'B', negative: 'A' },
      { query: 'q2', doc: 'C', negative: 'X' },
      { query: 'q3', doc: 'D' },
    ];
    expect(batchDocuments(batch)).toEqual(['A', 'B', 'C', 'D', 'X']);
  });
});

describe('dense encoder: tool context', () => {
  it('adds γ times the tool vector to each API vector, then normalises', () => {
    // 2-d table without n-gram rows that matter: vocabulary [alpha, beta], 1 bucket (row 2) set to 0
    const model = {
      config: { dim: 2, buckets: 1, minN: 9, maxN: 9, toolContext: 0.5 },
      vocabulary: ['alpha', 'beta'],
      weights: Float32Array.from([1, 1, 1]),
      table: Float32Array.from([1, 0, 0, 1, 0, 0]),
      info: {},
    };
    // API "alpha" = (1, 0); its tool "beta" = (0, 1): (1, 0.5)/|(1, 0.5)| = (0.894427, 0.447214)
    const v = encodeCorpus(model, ['alpha', 'alpha'], { texts: ['beta', 'alpha'], groupOf: [0, 1] });
    expect([...v].map((x) => +x.toFixed(6))).toEqual([0.894427, 0.447214, 1, 0]);
    // without tools, or with γ = 0, the API text alone
    expect([...encodeCorpus(model, ['alpha'])]).toEqual([1, 0]);
    const noContext = { ...model, config: { ...model.config, toolContext: 0 } };
    expect([...encodeCorpus(noContext, ['alpha'], { texts: ['beta'], groupOf: [0] })]).toEqual([1, 0]);
  });
});

describe('dense encoder: sentence scores', () => {
  it('adds w times the best sentence cosine for queries of 2+ sentences', async () => {
    // alpha = (1, 0), beta = (0, 1); 'alpha beta. alpha' → whole (2, 1)/√5; sentences 'alpha beta.'
    // (1, 1)/√2 and 'alpha' (1, 0): best per document alpha 1, beta 1/√2
    const model = {
      config: { dim: 2, buckets: 1, minN: 9, maxN: 9, sentenceWeight: 0.5 },
      vocabulary: ['alpha', 'beta'],
      weights: Float32Array.from([1, 1, 1]),
      table: Float32Array.from([1, 0, 0, 1, 0, 0]),
      info: {},
    };
    const r = DenseRetriever.build(model, ['alpha', 'beta']);
    const got = [...(await r.scoreAll('alpha beta. alpha'))].map((x) => +x.toFixed(5));
    expect(got).toEqual([
      +(2 / Math.sqrt(5) + 0.5).toFixed(5),
      +(1 / Math.sqrt(5) + 0.5 / Math.SQRT2).toFixed(5),
    ]);
    // one sentence, or weight 0: the whole query alone
    expect([...(await r.scoreAll('alpha beta'))].map((x) => +x.toFixed(5))).toEqual(
      [0.5, 0.5].map((x) => +Math.sqrt(x).toFixed(5)),
    );
    const plain = new DenseRetriever(model, encodeCorpus(model, ['alpha', 'beta']), { sentenceWeight: 0 });
    expect([...(await plain.scoreAll('alpha beta. alpha'))].map((x) => +x.toFixed(5))).toEqual([
      0.89443, 0.44721,
    ]);
  });
});

// A tiny catalog whose requests share few words with the documents they name.
const DOCS = [
  'Weather. forecast and temperature for a location',
  'Currency. exchange rates between currencies',
  'Movies. showtimes at cinemas near you',
  'Translate. translate text into another language',
];
const REQUESTS = [
  ['will it rain tomorrow', 0],
  ['is it going to be sunny', 0],
  ['convert dollars to euros', 1],
  ['how many yen for a pound', 1],
  ['what films are playing tonight', 2],
  ['tickets for the new film', 2],
  ['say hello in french', 3],
  ['what does gracias mean in english', 3],
] as const;
const PAIRS: DensePair[] = Array.from({ length: 16 }, () =>
  REQUESTS.map(([q, d]) => ({ query: q, doc: DOCS[d] as string })),
).flat();
const small = { dim: 16, buckets: 256, minN: 3, maxN: 4 };
const train = (seed: number) =>
  trainDenseEncoder(PAIRS, { config: small, epochs: 4, batchSize: 4, lr: 0.02, seed, vocabularyTexts: DOCS });

describe('dense encoder: training (MNR, in-batch negatives)', () => {
  const a = train(7);

  it('lowers the loss and ranks the named API first for every request', async () => {
    const losses = a.epochLosses;
    expect(losses).toHaveLength(4);
    expect(losses[3] as number).toBeLessThan((losses[0] as number) / 2);
    const r = DenseRetriever.build(a.model, DOCS);
    for (const [q, d] of REQUESTS) expect((await r.search(q, 1))[0]?.doc).toBe(d);
  });

  it('is deterministic for a seed', () => {
    const b = train(7);
    expect(b.epochLosses).toEqual(a.epochLosses);
    expect(Buffer.from(b.model.table.buffer).equals(Buffer.from(a.model.table.buffer))).toBe(true);
    expect(Buffer.from(train(8).model.table.buffer).equals(Buffer.from(a.model.table.buffer))).toBe(false);
  });

  it('decays the learning rate linearly to 0 with lrSchedule linear, and records it', () => {
    const run = (lrSchedule?: 'linear') =>
      trainDenseEncoder(PAIRS, {
        config: small,
        epochs: 2,
        batchSize: 4,
        lr: 0.02,
        seed: 7,
        vocabularyTexts: DOCS,
        ...(lrSchedule ? { lrSchedule } : {}),
      });
    const constant = run();
    const linear = run('linear');
    expect(linear.model.info.lrSchedule).toBe('linear');
    expect(constant.model.info.lrSchedule).toBeUndefined();
    expect(linear.epochLosses).toHaveLength(2);
    expect(Buffer.from(linear.model.table.buffer).equals(Buffer.from(constant.model.table.buffer))).toBe(
      false,
    );
  });

  it('trains with keyed pairs and hard negatives, deterministically for a seed', async () => {
    // each request's hard negative: the next API in the list
    const withNegatives: DensePair[] = PAIRS.map((p) => ({
      ...p,
      key: p.query,
      negative: DOCS[(DOCS.indexOf(p.doc) + 1) % DOCS.length] as string,
    }));
    const run = () =>
      trainDenseEncoder(withNegatives, {
        config: small,
        epochs: 4,
        batchSize: 4,
        lr: 0.02,
        seed: 7,
        vocabularyTexts: DOCS,
      });
    const x = run();
    const y = run();
    expect(y.epochLosses).toEqual(x.epochLosses);
    expect(Buffer.from(y.model.table.buffer).equals(Buffer.from(x.model.table.buffer))).toBe(true);
    expect(Buffer.from(x.model.table.buffer).equals(Buffer.from(a.model.table.buffer))).toBe(false);
    const r = DenseRetriever.build(x.model, DOCS);
    for (const [q, d] of REQUESTS) expect((await r.search(q, 1))[0]?.doc).toBe(d);
  });

  const dir = mkdtempSync(join(tmpdir(), 'apiary-dense-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('round-trips through a model file with identical scores', async () => {
    const path = join(dir, 'm.apdm');
    saveDenseModel(path, a.model);
    const back = loadDenseModel(path);
    expect(back.vocabulary).toEqual(a.model.vocabulary);
    expect(back.config).toEqual(small);
    expect([...back.weights]).toEqual([...a.model.weights]);
    const q = 'rain in paris';
    expect(await DenseRetriever.build(back, DOCS).scoreAll(q)).toEqual(
      await DenseRetriever.build(a.model, DOCS).scoreAll(q),
    );
  });

  it('refuses a foreign or truncated model file with the file named', () => {
    const path = join(dir, 'm.apdm');
    saveDenseModel(path, a.model);
    const bytes = readFileSync(path);
    const cut = join(dir, 'cut.apdm');
    writeFileSync(cut, bytes.subarray(0, bytes.length - 8));
    expect(() => loadDenseModel(cut)).toThrow(InputInvalidError);
    expect(() => loadDenseModel(cut)).toThrow(/cut\.apdm.*truncated/);
    const foreign = join(dir, 'x.apdm');
    writeFileSync(foreign, 'hello world, not a model');
    expect(() => loadDenseModel(foreign)).toThrow(/bad magic bytes/);
  });
});
