import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize, tokenizeAscii, tokenizeRegex } from './tokenize.js';

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
