import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiaryError } from '../shared/index.js';
import {
  parseChoice,
  parseExistingFile,
  parseInteger,
  parseKeyValue,
  parseKeyValues,
  parseList,
  parseNumber,
  parseOutputPath,
  usageError,
  writeOutputFile,
} from './options.js';

/** The USAGE message of a parser call that must fail. */
function rejection(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiaryError);
    expect((error as ApiaryError).code).toBe('USAGE');
    return (error as ApiaryError).message;
  }
  throw new Error('expected a USAGE error');
}

describe('usageError', () => {
  it('has the one message shape', () => {
    const e = usageError('--x', 'a thing', 'y');
    expect(e.code).toBe('USAGE');
    expect(e.message).toBe('--x must be a thing (got "y")');
  });
});

describe('parseInteger', () => {
  it('parses integers within the range and passes undefined through', () => {
    expect(parseInteger('--seed', '7')).toBe(7);
    expect(parseInteger('--seed', '-3')).toBe(-3);
    expect(parseInteger('--n', '1', { min: 1 })).toBe(1);
    expect(parseInteger('--n', '10', { min: 1, max: 10 })).toBe(10);
    expect(parseInteger('--limit', undefined, { min: 0 })).toBeUndefined();
  });

  it('names the flag, the accepted range and the value', () => {
    expect(rejection(() => parseInteger('--seed', 'x'))).toBe('--seed must be an integer (got "x")');
    expect(rejection(() => parseInteger('--seed', '1.5', { min: 0 }))).toBe(
      '--seed must be an integer ≥ 0 (got "1.5")',
    );
    expect(rejection(() => parseInteger('-k', '0', { min: 1 }))).toBe('-k must be an integer ≥ 1 (got "0")');
    expect(rejection(() => parseInteger('--n', '11', { min: 1, max: 10 }))).toBe(
      '--n must be an integer from 1 to 10 (got "11")',
    );
    expect(rejection(() => parseInteger('--n', '4', { max: 3 }))).toBe(
      '--n must be an integer ≤ 3 (got "4")',
    );
    expect(rejection(() => parseInteger('--n', '', { min: 0 }))).toBe('--n must be an integer ≥ 0 (got "")');
    expect(rejection(() => parseInteger('--n', 'Infinity'))).toBe('--n must be an integer (got "Infinity")');
  });
});

describe('parseNumber', () => {
  it('parses finite numbers within the range', () => {
    expect(parseNumber('--t', '0.25')).toBe(0.25);
    expect(parseNumber('--t', '1e-3', { min: 0 })).toBe(0.001);
    expect(parseNumber('--t', undefined)).toBeUndefined();
  });

  it('rejects non-numbers and values outside the range', () => {
    expect(rejection(() => parseNumber('--t', 'abc'))).toBe('--t must be a number (got "abc")');
    expect(rejection(() => parseNumber('--t', 'NaN'))).toBe('--t must be a number (got "NaN")');
    expect(rejection(() => parseNumber('--t', '-0.5', { min: 0, max: 2 }))).toBe(
      '--t must be a number from 0 to 2 (got "-0.5")',
    );
    expect(rejection(() => parseNumber('--t', ' '))).toBe('--t must be a number (got " ")');
  });
});

describe('parseChoice', () => {
  const modes = ['auto', 'ask', 'deny'] as const;
  it('accepts exactly one of the choices', () => {
    expect(parseChoice('--approve', 'ask', modes)).toBe('ask');
    expect(parseChoice('--approve', undefined, modes)).toBeUndefined();
    expect(rejection(() => parseChoice('--approve', 'Ask', modes))).toBe(
      '--approve must be one of auto | ask | deny (got "Ask")',
    );
  });
});

describe('parseList', () => {
  it('trims items, drops empty ones and keeps the first of repeats', () => {
    expect(parseList('--grant', ' Hotels, ,Rents,Hotels ')).toEqual(['Hotels', 'Rents']);
    expect(parseList('--grant', '')).toEqual([]);
    expect(parseList('--grant', undefined)).toBeUndefined();
  });

  it('with choices, names the first item that is not one', () => {
    const cats = ['ss', 'sm', 'ms', 'mm'] as const;
    expect(parseList('--categories', 'mm,ss', cats)).toEqual(['mm', 'ss']);
    expect(rejection(() => parseList('--categories', 'ss,xx,yy', cats))).toBe(
      '--categories must be a comma-separated list of ss | sm | ms | mm (got "xx")',
    );
  });
});

describe('parseKeyValue', () => {
  const rule = {
    shape: 'FILE=HASH',
    keys: ['a.json', 'b.json'],
    value: { pattern: /^[0-9a-f]{4}$/, meaning: 'four hex digits' },
  };

  it('splits at the first = and trims both sides', () => {
    expect(parseKeyValue('--pin', ' a.json = 00ff ', rule)).toEqual(['a.json', '00ff']);
    expect(parseKeyValue('--env', 'K=x=y', { shape: 'NAME=VALUE' })).toEqual(['K', 'x=y']);
    expect(parseKeyValue('--env', 'K=', { shape: 'NAME=VALUE' })).toEqual(['K', '']);
  });

  it('says which part is wrong', () => {
    expect(rejection(() => parseKeyValue('--pin', 'a.json', rule))).toBe(
      '--pin must be FILE=HASH (got "a.json")',
    );
    expect(rejection(() => parseKeyValue('--pin', '=00ff', rule))).toBe(
      '--pin must be FILE=HASH (got "=00ff")',
    );
    expect(rejection(() => parseKeyValue('--pin', 'c.json=00ff', rule))).toBe(
      '--pin must be FILE=HASH with FILE one of a.json | b.json (got "c.json=00ff")',
    );
    expect(rejection(() => parseKeyValue('--pin', 'b.json=xyz', rule))).toBe(
      '--pin must be FILE=HASH with HASH four hex digits (got "b.json=xyz")',
    );
  });

  it('collects repeated values into an object, a later key winning', () => {
    expect(parseKeyValues('--pin', ['a.json=0001', 'b.json=0002', 'a.json=0003'], rule)).toEqual({
      'a.json': '0003',
      'b.json': '0002',
    });
    expect(parseKeyValues('--pin', [], rule)).toEqual({});
  });
});

describe('parseExistingFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-options-'));
  const file = join(dir, 'answers.json');
  writeFileSync(file, '{}');

  it('returns an existing file path as given', () => {
    expect(parseExistingFile('--answers', file)).toBe(file);
    expect(parseExistingFile('--answers', undefined)).toBeUndefined();
  });

  it('rejects missing paths, folders and the empty string', () => {
    const missing = join(dir, 'nope.json');
    expect(rejection(() => parseExistingFile('--answers', missing))).toBe(
      `--answers must be an existing file (got "${missing}")`,
    );
    expect(rejection(() => parseExistingFile('--answers', dir))).toBe(
      `--answers must be an existing file (got "${dir}")`,
    );
    expect(rejection(() => parseExistingFile('--answers', ''))).toBe(
      '--answers must be an existing file (got "")',
    );
  });
});

describe('writeOutputFile', () => {
  it('replaces the file whole and leaves no temp file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-write-'));
    const out = join(dir, 'deep', 'out.jsonl');
    writeOutputFile('--out', out, 'a\n');
    writeOutputFile('--out', out, 'b\n');
    expect(readFileSync(out, 'utf8')).toBe('b\n');
    expect(readdirSync(join(dir, 'deep'))).toEqual(['out.jsonl']);
  });

  it('names the flag and the path when the write fails', () => {
    // (Not under /proc: Node's recursive mkdir loops forever there.)
    const dir = mkdtempSync(join(tmpdir(), 'apiary-write-'));
    writeFileSync(join(dir, 'file'), 'x');
    const out = join(dir, 'file', 'y.bin');
    expect(rejection(() => writeOutputFile('--out', out, 'a'))).toBe(
      `cannot write --out ${out}: EEXIST: file already exists, mkdir '${join(dir, 'file')}'`,
    );
  });
});

describe('parseOutputPath', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-options-'));
  const file = join(dir, 'existing.txt');
  writeFileSync(file, 'x');
  mkdirSync(join(dir, 'sub'));

  it('accepts new files, existing files and paths under folders still to create', () => {
    expect(parseOutputPath('--out', join(dir, 'new.jsonl'))).toBe(join(dir, 'new.jsonl'));
    expect(parseOutputPath('--out', file)).toBe(file);
    expect(parseOutputPath('--out', join(dir, 'a', 'b', 'c.bin'))).toBe(join(dir, 'a', 'b', 'c.bin'));
    expect(parseOutputPath('--out', undefined)).toBeUndefined();
    expect(parseOutputPath('--out', join(dir, 'sub'), 'directory')).toBe(join(dir, 'sub'));
  });

  it('rejects folders for files, files for folders, paths under a file and the empty string', () => {
    const sub = join(dir, 'sub');
    expect(rejection(() => parseOutputPath('--out', sub))).toBe(
      `--out must be a file path, not a folder (got "${sub}")`,
    );
    expect(rejection(() => parseOutputPath('--out', file, 'directory'))).toBe(
      `--out must be a folder path, not a file (got "${file}")`,
    );
    const under = join(file, 'x', 'y.txt');
    expect(rejection(() => parseOutputPath('--out', under))).toBe(
      `--out must be a path under a folder, not under a file (got "${under}")`,
    );
    expect(rejection(() => parseOutputPath('--out', ''))).toBe('--out must be a file path (got "")');
  });

  it('with { overwrite: false } refuses an existing file, with true accepts it', () => {
    expect(rejection(() => parseOutputPath('--out', file, 'file', { overwrite: false }))).toBe(
      `--out must be a file that does not exist yet; pass --overwrite to replace it (got "${file}")`,
    );
    expect(parseOutputPath('--out', file, 'file', { overwrite: true })).toBe(file);
    expect(parseOutputPath('--out', join(dir, 'fresh.txt'), 'file', { overwrite: false })).toBe(
      join(dir, 'fresh.txt'),
    );
  });

  it('refuses a path in a folder that takes no new files, and leaves no probe behind', () => {
    expect(rejection(() => parseOutputPath('--out', '/proc/x/y.bin'))).toBe(
      '--out must be a path in a writable folder (/proc is not) (got "/proc/x/y.bin")',
    );
    expect(readdirSync(dir).sort()).toEqual(['existing.txt', 'sub']);
  });
});
