import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputInvalidError } from './errors.js';
import { detachedString, parsePyJson, pyFloatRepr, pyJsonDumps, pyJsonString, toPyJson } from './py-json.js';

const dumps = (text: string) => pyJsonDumps(parsePyJson(text));

describe('Python json.dumps', () => {
  it('uses ", " and ": " separators and keeps key order (even integer-like keys)', () => {
    expect(dumps('{"b":1,"a":[true,false,null],"2":{},"1":[]}')).toBe(
      '{"b": 1, "a": [true, false, null], "2": {}, "1": []}',
    );
  });

  it('keeps the first position and the last value of duplicate keys (as Python dicts)', () => {
    expect(dumps('{"a":1,"b":2,"a":3}')).toBe('{"a": 3, "b": 2}');
  });

  it('prints floats as Python repr and ints as written', () => {
    expect(
      dumps(
        '[3.0, 16.00, 0.5, 1e-5, 1E16, 1e15, 0.0001, 123456789012345678901234567890, -0, -0.0, 2.5e-3, 1.5e300]',
      ),
    ).toBe(
      '[3.0, 16.0, 0.5, 1e-05, 1e+16, 1000000000000000.0, 0.0001, 123456789012345678901234567890, 0, -0.0, 0.0025, 1.5e+300]',
    );
    expect(pyFloatRepr(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(pyFloatRepr(1e22)).toBe('1e+22');
    expect(pyFloatRepr(123.456)).toBe('123.456');
    expect(pyFloatRepr(Number.POSITIVE_INFINITY)).toBe('Infinity');
  });

  it('escapes like ensure_ascii=True', () => {
    expect(pyJsonString('é "q" \\ \n\r\t\b\f \u0001 \u007f ~')).toBe(
      '"\\u00e9 \\"q\\" \\\\ \\n\\r\\t\\b\\f \\u0001 \\u007f ~"',
    );
    expect(pyJsonString('😀 – 中')).toBe('"\\ud83d\\ude00 \\u2013 \\u4e2d"');
    expect(dumps('"\\u00e9\\/"')).toBe('"\\u00e9/"');
  });

  it('round-trips plain JSON (property: parse(dumps(x)) = x)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = pyJsonDumps(toPyJson(v));
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });

  it('rejects malformed JSON with the source and offset', () => {
    expect(() => parsePyJson('{"a": }', 'f.json')).toThrow(/f\.json: invalid JSON at offset 6/);
    expect(() => parsePyJson('[1] x', 'f.json')).toThrow(/trailing/);
    expect(() => parsePyJson('"abc', 'f.json')).toThrow(/unterminated/);
  });
});

describe('parsePyJson nesting', () => {
  it('accepts 1000 levels and refuses 1001 with a typed error naming the offset', () => {
    expect(() => parsePyJson(`${'['.repeat(1000)}${']'.repeat(1000)}`, 'ok.json')).not.toThrow();
    expect(() => parsePyJson(`${'['.repeat(1001)}${']'.repeat(1001)}`, 'deep.json')).toThrow(
      new InputInvalidError(
        { file: 'deep.json' },
        'invalid JSON at offset 1000: nested deeper than 1000 levels',
      ),
    );
  });
});

describe('detachedString', () => {
  it('copies any string exactly, lone surrogates and non-Latin-1 characters included', () => {
    expect(detachedString('caf\u00e9 \u2014 \ud83d\ude00 \ud800 x\udc00')).toBe(
      'caf\u00e9 \u2014 \ud83d\ude00 \ud800 x\udc00',
    );
    expect(detachedString('')).toBe('');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => detachedString(s) === s),
      { numRuns: 200 },
    );
  });

  it('copies a slice of a parsed text (the value, not the source around it)', () => {
    const parsed = parsePyJson('{"a": "first \u0150 text", "b": "plain slice"}');
    const slice = (parsed as { entries: Map<string, string> }).entries.get('b') as string;
    expect(detachedString(slice)).toBe('plain slice');
  });
});
