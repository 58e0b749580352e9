import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachLineOfFile, readTextFile } from './json-file.js';

const dir = mkdtempSync(join(tmpdir(), 'apiary-lines-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text, 'utf8');
  return path;
};
const lines = (path: string, chunkBytes?: number) => {
  const out: Array<[number, string]> = [];
  forEachLineOfFile(path, (line, no) => out.push([no, line]), chunkBytes);
  return out;
};

describe('forEachLineOfFile', () => {
  const text = 'first line\r\n{"a": "caf\u00e9 \u2014 \ud83d\ude00"}\n\nlast without newline';

  it('gives the lines of text.split("\\n"), numbered from 1, whatever the chunk size', () => {
    const path = file('mixed.jsonl', text);
    const expected = [
      [1, 'first line\r'],
      [2, '{"a": "caf\u00e9 \u2014 \ud83d\ude00"}'],
      [3, ''],
      [4, 'last without newline'],
    ];
    expect(lines(path)).toEqual(expected);
    // chunks of 1..7 bytes cut the 2-, 3- and 4-byte characters and the "\r\n" apart
    for (let size = 1; size <= 7; size++) expect(lines(path, size), `chunks of ${size}`).toEqual(expected);
  });

  it('ends with an empty line after a final newline, and an empty file is one empty line', () => {
    expect(lines(file('nl.txt', 'a\nb\n'), 3)).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, ''],
    ]);
    expect(lines(file('empty.txt', ''))).toEqual([[1, '']]);
  });

  it('names the file when it cannot be read', () => {
    expect(() => lines(join(dir, 'missing.jsonl'))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() => lines(dir)).toThrow(expect.objectContaining({ code: 'INPUT_INVALID' }));
  });
});

describe('readTextFile({ strictUtf8 })', () => {
  const bytes = (name: string, data: number[] | string) => {
    const path = join(dir, name);
    writeFileSync(path, typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data));
    return path;
  };

  it('reads UTF-8 as the lenient read does (BOM, every length of sequence)', () => {
    const path = file('ok.txt', '\ufeffZ\u00fcrich \u2014 \ud83d\ude00\n');
    expect(readTextFile(path, { strictUtf8: true })).toBe(readTextFile(path));
  });

  it('refuses what is not UTF-8, naming the file, the line and the first bad byte', () => {
    const cases: Array<[string, number[] | string, string]> = [
      [
        'latin1.txt',
        "Weather: [t = getweather(#city='Alamo')]\nWeather: [t = getweather(#city='Z\u00fcrich')]\n",
        'record line 2: not UTF-8 text (byte 0xfc at byte 74)',
      ],
      ['overlong.txt', [0x61, 0xc0, 0x80], 'record line 1: not UTF-8 text (byte 0xc0 at byte 1)'],
      [
        'surrogate.txt',
        [0x0a, 0x0a, 0xed, 0xa0, 0x80],
        'record line 3: not UTF-8 text (byte 0xed at byte 2)',
      ],
      ['torn.txt', [0x61, 0xe2, 0x82], 'record line 1: not UTF-8 text (byte 0xe2 at byte 1)'],
      ['utf16.txt', [0xff, 0xfe, 0x61, 0x00], 'record line 1: not UTF-8 text (byte 0xff at byte 0)'],
    ];
    for (const [name, data, where] of cases) {
      const path = bytes(name, data);
      expect(() => readTextFile(path, { strictUtf8: true })).toThrow(
        `${path}: ${where}; save the file as UTF-8`,
      );
      expect(readTextFile(path)).toContain('\ufffd'); // what the lenient read gives instead
    }
  });
});
