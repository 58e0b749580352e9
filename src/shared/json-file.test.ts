import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachLineOfFile } from './json-file.js';

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
