import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainAnalyze } from './build-retriever.js';
import { STOPWORDS, stemInflections, tokenize, tokenizeAscii, tokenizeRegex } from './tokenize.js';

describe('tokenize: ASCII fast path', () => {
  it('matches the regex reference on hand-picked camelCase edge cases', () => {
    for (const text of [
      'getWeatherByCity',
      'HTTPServer',
      'aBCd',
      'aBC',
      'ABCdef',
      'v2Beta',
      'GET /api/v1/usersByID?x=1',
      'x',
      '',
      'ID',
      'a1B2c3D',
      'JSONParserXMLReader',
    ])
      expect(tokenizeAscii(text)).toEqual(tokenizeRegex(text));
    expect(tokenizeAscii('aBCd')).toEqual(['bcd']);
    expect(tokenizeAscii('HTTPServer')).toEqual(['http', 'server']);
  });

  it('equals the regex tokenizer on any ASCII text (fast-check)', () => {
    const ascii = fc.string({
      unit: fc.constantFrom(...'aAbBzZyY09 _-/.?"{}:,xX'.split('')),
      maxLength: 60,
    });
    fc.assert(
      fc.property(ascii, fc.boolean(), (text, keepStopwords) => {
        expect(tokenizeAscii(text, { keepStopwords })).toEqual(tokenizeRegex(text, { keepStopwords }));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 80 }), (text) => {
        expect(tokenizeAscii(text)).toEqual(tokenizeRegex(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('non-ASCII text goes through the Unicode regexes', () => {
    expect(tokenize('Café ÉtéParis naïveTest')).toEqual(['café', 'été', 'paris', 'naïve', 'test']);
  });
});

describe('tokenize options', () => {
  const text = 'Book the HTTPServer at Café-Paris, a 3D show';

  it('keeps camelCase words whole, swaps the stopword list, keeps short tokens', () => {
    // "3D" is camelCase to the default tokenizer: "3 D", both too short
    expect(tokenize(text)).toEqual(['book', 'http', 'server', 'café', 'paris', 'show']);
    expect(tokenize(text, { splitCamelCase: false })).toEqual([
      'book',
      'httpserver',
      'café',
      'paris',
      '3d',
      'show',
    ]);
    expect(tokenize(text, { stopwords: new Set(['book', 'show']) })).toEqual([
      'the',
      'http',
      'server',
      'at',
      'café',
      'paris',
    ]);
    expect(tokenize('a b cd', { minLength: 1, keepStopwords: true })).toEqual(['a', 'b', 'cd']);
    expect(tokenize('a b cd', { minLength: 1 })).toEqual(['b', 'cd']);
    expect(STOPWORDS.has('a')).toBe(true);
  });

  it("letters: 'ascii' splits at every non-ASCII character", () => {
    expect(tokenize('Café naïveté', { letters: 'ascii' })).toEqual(['caf', 'na', 'vet']);
    expect(tokenize('Café naïveté')).toEqual(['café', 'naïveté']);
  });

  it('the ASCII fast path equals the regexes with the options too (fast-check)', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'aAbBzZ09 _-/.xX'.split('')), maxLength: 40 });
    const options = fc.record({
      keepStopwords: fc.boolean(),
      splitCamelCase: fc.boolean(),
      minLength: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(ascii, options, (t, o) => {
        expect(tokenizeAscii(t, o)).toEqual(tokenizeRegex(t, o));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('plainAnalyze', () => {
  it('equals lower-case + split on non-letters/digits on any text (fast-check)', () => {
    const reference = (t: string) =>
      t
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter(Boolean);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (t) => {
        expect(plainAnalyze(t)).toEqual(reference(t));
      }),
      { numRuns: 2000 },
    );
    expect(plainAnalyze('getWeather of a City')).toEqual(['getweather', 'of', 'a', 'city']);
  });
});

describe('stemInflections', () => {
  it('strips plurals and -ing/-ed, keeping readable stems', () => {
    expect(
      [
        'buses',
        'bus',
        'houses',
        'classes',
        'cities',
        'tickets',
        'booking',
        'booked',
        'bring',
        'red',
        'dishes',
      ].map(stemInflections),
    ).toEqual(['bus', 'bus', 'house', 'class', 'city', 'ticket', 'book', 'book', 'bring', 'red', 'dish']);
  });
});
