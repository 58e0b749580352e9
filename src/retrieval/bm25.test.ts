import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25.js';
import { stem, tokenize } from './tokenize.js';

describe('tokenize / stem', () => {
  it('splits camelCase, punctuation and digits, lower-cases and drops stopwords', () => {
    expect(tokenize('getWeatherByCity for the HTTPServer_v2 "x"')).toEqual([
      'get',
      'weather',
      'city',
      'http',
      'server',
      'v2',
    ]);
    expect(tokenize('the a', { keepStopwords: true })).toEqual(['the']);
  });
  it('strips plurals lightly', () => {
    expect(['movies', 'flights', 'cities', 'class', 'bus', 'analysis', 'classes'].map(stem)).toEqual([
      'movi',
      'flight',
      'citi',
      'class',
      'bus',
      'analysis',
      'class',
    ]);
    expect(stem('movie')).toBe(stem('movies'));
    expect(stem('city')).toBe(stem('cities'));
  });
});

describe('Bm25Index', () => {
  // N = 3, avgdl = (2 + 3 + 1)/3 = 2, k1 = 1.2, b = 0.75
  const index = new Bm25Index(['apple banana', 'apple apple cherry', 'durian']);

  it('scores by hand-computed BM25', async () => {
    const s = await index.scoreAll('apple');
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)); // ln 1.6
    // d0: tf 1, |d| 2: 1·2.2 / (1 + 1.2·(0.25 + 0.75·1)) = 1
    expect(s[0]).toBeCloseTo(idf * 1, 5);
    // d1: tf 2, |d| 3: 2·2.2 / (2 + 1.2·(0.25 + 0.75·1.5)) = 4.4/3.65
    expect(s[1]).toBeCloseTo((idf * 4.4) / 3.65, 5);
    expect(s[2]).toBe(0);
  });

  it('adds query terms (repeats count) and searches', async () => {
    const one = index.scoreAllSync('durian');
    const two = index.scoreAllSync('durian durian');
    expect(two[2]).toBeCloseTo(2 * (one[2] as number), 5);
    const hits = await index.search('cherry apples', 2);
    expect(hits.map((h) => h.doc)).toEqual([1, 0]);
    expect(index.searchSync('unknownword', 3).every((h) => h.score === 0)).toBe(true);
  });

  it('scores pre-analyzed terms: each occurrence counts, terms are not analyzed again', () => {
    expect([...index.scoreTermsSync(['durian'])]).toEqual([...index.scoreAllSync('durian')]);
    expect([...index.scoreTermsSync(new Set(['durian', 'durian']))]).toEqual([
      ...index.scoreAllSync('durian'),
    ]);
    expect([...index.scoreTermsSync(['durian', 'durian'])]).toEqual([...index.scoreAllSync('durian durian')]);
    // "Durian" would be lower-cased by the analyzer; as a term it matches nothing
    expect([...index.scoreTermsSync(['Durian'])]).toEqual([0, 0, 0]);
  });

  it('takes its analyzer and parameters from the options', () => {
    // whole lower-cased words only: "apples" no longer meets "apple"
    const exact = new Bm25Index(['apple banana', 'apples'], {
      analyze: (t) => t.toLowerCase().split(' '),
      b: 0,
    });
    const s = exact.scoreAllSync('Apples');
    // N = 2, df = 1: idf = ln(1 + 1.5/1.5) = ln 2; b = 0: tf·2.2 / (tf + 1.2) = 1
    expect(s[0]).toBe(0);
    expect(s[1]).toBeCloseTo(Math.log(2), 6);
  });
});
