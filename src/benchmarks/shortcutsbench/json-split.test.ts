import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputInvalidError } from '../../shared/index.js';
import { loadGoldShortcuts } from './data-files.js';
import { streamGoldShortcuts, streamTopLevelJson } from './gold-stream.js';
import { type TopLevelElement, TopLevelJsonSplitter } from './json-split.js';
import { stringifyJson } from './json-value.js';

const AUTHORED = join(import.meta.dirname, '__fixtures__', 'authored');
const GOLD = '1_final_detailed_records_filter_apis_leq_30.json';

function split(text: string, cuts: number[]): TopLevelElement[] {
  const s = new TopLevelJsonSplitter();
  const out: TopLevelElement[] = [];
  let at = 0;
  for (const c of [...cuts.filter((x) => x > 0 && x < text.length)].sort((a, b) => a - b)) {
    out.push(...s.push(text.slice(at, c)));
    at = c;
  }
  out.push(...s.push(text.slice(at)));
  s.end();
  return out;
}

describe('TopLevelJsonSplitter', () => {
  it('splits an array and an object into element texts', () => {
    expect(split(' [1, "a,]", {"b": [2, "}"]}, true,null ] ', [])).toEqual([
      { index: 0, text: '1' },
      { index: 1, text: '"a,]"' },
      { index: 2, text: '{"b": [2, "}"]}' },
      { index: 3, text: 'true' },
      { index: 4, text: 'null' },
    ]);
    expect(split('{"k\\"1": {"x": "\\\\"}, "k2" : -1.5e3}', [])).toEqual([
      { index: 0, key: 'k"1', text: '{"x": "\\\\"}' },
      { index: 1, key: 'k2', text: '-1.5e3' },
    ]);
    expect(split('[]', [])).toEqual([]);
  });

  it('gives the same elements whatever the chunk boundaries (every cut of a record)', () => {
    const text = '[{"a": "x\\"y", "b": [1, {"c": null}]}, 12, "s\\\\"]';
    const whole = split(text, []);
    for (let i = 1; i < text.length; i++)
      for (const j of [i + 1, i + 7]) expect(split(text, [i, j])).toEqual(whole);
  });

  it('fails on structure errors with the character position', () => {
    expect(() => split('[1 2]', [])).toThrow('expected "," between elements at character 3');
    expect(() => split('[1,,2]', [])).toThrow('unexpected "," at character 3');
    expect(() => split('{"a" 1}', [])).toThrow('expected ":" at character 5');
    expect(() => split('[1, 2', [])).toThrow('unexpected end of input');
    expect(() => split('[1] x', [])).toThrow('unexpected text after the top-level value at character 4');
    expect(() => split('7', [])).toThrow('expected a JSON array or object at character 0');
  });

  it('property: any JSON array, cut anywhere, splits into its elements', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (arr, cuts) => {
          const text = JSON.stringify(arr, null, cuts.length % 2 ? 1 : undefined);
          const els = split(text, cuts);
          expect(els.map((e) => JSON.parse(e.text))).toEqual(JSON.parse(text));
        },
      ),
    );
  });
});

describe('streamGoldShortcuts', () => {
  it('gives the same records as the whole-file loader', async () => {
    const streamed = await streamGoldShortcuts(AUTHORED);
    const whole = loadGoldShortcuts(AUTHORED);
    expect(streamed.size).toBe(12);
    expect([...streamed.keys()]).toEqual([...whole.keys()]);
    for (const [url, r] of whole) expect(stringifyJson(streamed.get(url)!)).toBe(stringifyJson(r));
  });

  it('keeps only the URLs asked for', async () => {
    const first = [...loadGoldShortcuts(AUTHORED).keys()][0]!;
    const kept = await streamGoldShortcuts(AUTHORED, (u) => u === first);
    expect([...kept.keys()]).toEqual([first]);
  });

  it('names the file and the record of bad JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-gold-'));
    writeFileSync(
      join(dir, GOLD),
      '[{"URL": "a", "shortcut": null}, {"URL": "b", "shortcut": {"WFWorkflowActions": [1,]}}]',
    );
    await expect(streamGoldShortcuts(dir)).rejects.toThrow(`${join(dir, GOLD)}: record 2: not valid JSON`);
    writeFileSync(join(dir, GOLD), '{"URL": "a"}');
    const e = await streamGoldShortcuts(dir).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InputInvalidError);
    expect((e as Error).message).toContain('expected a JSON array, found an object');
    writeFileSync(join(dir, GOLD), '[{"URL": 3}]');
    await expect(streamGoldShortcuts(dir)).rejects.toThrow('expected a record with a URL');
  });

  it('streams the entries of a top-level object', async () => {
    const file = join(AUTHORED, 'generated_success_queries.json');
    const keys: string[] = [];
    for await (const e of streamTopLevelJson(file, 'object')) keys.push(e.key!);
    expect(keys).toEqual(Object.keys(JSON.parse(readFileSync(file, 'utf8'))));
  });
});
