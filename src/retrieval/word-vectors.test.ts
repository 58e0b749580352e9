import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddingRetriever } from './embedding-retriever.js';
import { WordVectorEmbedder } from './word-vector-embedder.js';
import {
  convertWinkEmbeddings,
  loadWordVectors,
  readWordVectorCache,
  wordVectorsFromRows,
  writeWordVectorCache,
} from './word-vectors.js';

const fixture = join(import.meta.dirname, '__fixtures__', 'tiny-wink-embeddings.json');
const dir = mkdtempSync(join(tmpdir(), 'apiary-wv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('wink JSON → binary cache', () => {
  it('streams the JSON into a table (rows by wordIndex, exponents, escaped words)', () => {
    const t = convertWinkEmbeddings(fixture);
    expect(t.size).toBe(4);
    expect(t.dimension).toBe(3);
    expect(t.lookup('"q"')).toBe(2);
    expect(t.lookup('absent')).toBe(-1);
    expect(Array.from(t.vectors.subarray(3, 6))).toEqual([0.5, -0.25, Math.fround(0.01)]);
    expect(Array.from(t.vectors.subarray(9, 12))).toEqual([Math.fround(0.4), Math.fround(-0.3), 0.125]);
  });

  it('round-trips through the cache with hashed lookups', () => {
    const t = convertWinkEmbeddings(fixture);
    const path = join(dir, 'c.apwv');
    writeWordVectorCache(path, t, 123);
    const back = readWordVectorCache(path);
    expect(back.sourceSize).toBe(123);
    expect(back.size).toBe(4);
    for (const w of ['the', 'weather', '"q"', 'rain']) expect(back.lookup(w)).toBe(t.lookup(w));
    expect(back.lookup('rains')).toBe(-1);
    expect(back.word(1)).toBe('weather');
    expect(Array.from(back.vectors)).toEqual(Array.from(t.vectors));
  });

  it('loadWordVectors converts once, then reads the cache', () => {
    const cachePath = join(dir, 'auto.apwv');
    const first = loadWordVectors({ source: fixture, cachePath });
    expect(first.from).toBe('converted');
    expect(statSync(cachePath).size).toBeGreaterThan(0);
    const second = loadWordVectors({ source: fixture, cachePath });
    expect(second.from).toBe('cache');
    expect(second.table.lookup('rain')).toBe(3);
  });
});

describe('WordVectorEmbedder', () => {
  const table = wordVectorsFromRows([
    ['the', [1, 1]],
    ['weather', [1, 0]],
    ['movie', [0, 1]],
  ]);

  it('uniform weighting: normalised mean of known words', async () => {
    const e = new WordVectorEmbedder(table, { weighting: 'uniform' });
    const [v] = await e.embed(['Weather movie unknown']);
    expect(Array.from(v as Float32Array)).toEqual([
      expect.closeTo(Math.SQRT1_2, 6),
      expect.closeTo(Math.SQRT1_2, 6),
    ]);
    expect(Array.from(e.embedOne('nothing known'))).toEqual([0, 0]);
  });

  it('IDF weighting fitted on a corpus: ln((N+1)/(df+1)) + 1', () => {
    const e = new WordVectorEmbedder(table, { weighting: 'idf' }).fitIdf([
      'the weather',
      'the movie',
      'the weather today',
    ]);
    // N = 3: idf(the) = ln(4/4) + 1 = 1, idf(movie) = ln(4/2) + 1
    expect(e.weight(0)).toBeCloseTo(1, 10);
    expect(e.weight(2)).toBeCloseTo(Math.log(2) + 1, 10);
    const v = e.embedOne('the movie'); // (1,1)·1 + (0,1)·(1+ln2)
    const y = 1 + 1 + Math.log(2);
    const n = Math.hypot(1, y);
    expect(v[0]).toBeCloseTo(1 / n, 6);
    expect(v[1]).toBeCloseTo(y / n, 6);
  });

  it('EmbeddingRetriever ranks by cosine', async () => {
    const e = new WordVectorEmbedder(table, { weighting: 'uniform' });
    const r = await EmbeddingRetriever.build(e, ['weather report', 'movie times', 'the']);
    expect((await r.search('weather', 3)).map((h) => h.doc)).toEqual([0, 2, 1]);
    expect(r.name).toBe('embed(word-vectors(uniform))');
  });
});
