import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGoldShortcuts, loadQueries } from './data-files.js';
import { dumpsPythonJson, parseJson } from './json-value.js';
import { shortcutLength } from './length.js';
import { scoreShortcutsResults } from './score-shortcuts.js';

const dir = join(import.meta.dirname, '__fixtures__', 'authored');
const resultsFile = join(dir, 'results.jsonl');
const url = (n: number) =>
  `https://www.icloud.com/shortcuts/f1c0ffee${'0'.repeat(21)}${String(n).padStart(3, '0')}`;

/*
 * Hand computation over __fixtures__/authored (12 shortcuts; "pN" = 0-based action index).
 * Cells: num/den; "off" = official, "cor" = corrected where they differ.
 *
 * S  level(LEN)  |api| bucket  category          API    primitive      prev. output          system input
 * 1  L1 (1)      4  <=5   Productivity      1/1    –              –                     –
 * 2  L1 (1)      5  <=5   Productivity      1/1    –              –                     CurrentDate 1/1
 * 3  L1 (1)      6  6-10  Entertainment     0/1    (p0 wrong API) –                     –
 *      p0 json_error (two JSON objects): off hallucination; cor "unparsed", not a hallucination
 * 4  L2 (2)      8  6-10  Productivity      2/2    off 0/2 cor 1/2 1/1                  DeviceDetails 1/1
 *      p0 "device name"≠"Device Name" (case); p1 True vs "true": off int→"1"≠"true", cor equal;
 *      p1 ref: gold UUID+name, pred name only → names equal
 * 5  L2 (menu 2 + 1 = 3) 12 11-15 Entertainment 3/4 2/2          –                     –
 *      p2 1.0 vs 1 (float compare) ✓, p3 "Default" ✓; p5 setbrightness wrong, listed at 6 → ratio 6/12=0.5
 * 6  L2 (5)     15  11-15 Education         3/3    1/1            off 1/1 cor 0/1 (value)  –
 *      p4: other action's UUID, same name: off name suffices, cor UUID decides
 * 7  L3 (if max(2,3) + repeat 2 + 1 = 6) 20 16-20 Productivity 8/8 off 0/1 cor 1/1  1/2 (1 no pred.)  2/3
 *      p11 1 vs "1.0": off int("1.0") fails → "1"≠"1.0", cor equal; p10 not essential;
 *      p3 UUID only ✓, p7 no params → no prediction; ExtensionInput 1/1, Clipboard 0/1 (said CurrentDate), Ask 1/1
 * 8  L3 (2 + repeat 2 + 3 = 7) 16 16-20 Entertainment 3/4 1/2   0/2 (1 no pred., 1 format)  –
 *      p0 list reply → id None → hallucination (both modes); p1 right API, no parameters → 0 of 1
 *      primitive, no prediction; p8 0.5 ✓, Variable for ActionOutput → format error
 * 9  L3 (7)     20  16-20 Development       3/6    off 3/4 cor 4/4 off 1/2 cor 0/2        off –  cor ExtensionInput 1/1
 *      p1 "splittext" hallucinated; p2 json_error (off hallucination, cor unparsed); p6 openurl listed at
 *      14 → 14/20=0.7; p3 "×" ✓, 5 vs "5" ✓, ref wrong UUID same name (off ✓, cor value error);
 *      p4 2 vs "2.0" (off ✗, cor ✓), ref name only and different → value error; p5 True vs 1 ✓;
 *      legacy "Input": off not counted, cor counted as ExtensionInput and predicted ExtensionInput ✓
 * 10 L4 (21)    21  >20   Home              20/21  –              –                     –
 *      p21 answered with api_names[0] (another gold API) → ratio 0/21 = 0
 * 11 L2 (aseqs truncated to 3 of 7: LEN 3, the full shortcut would be L3) 20 16-20 Lifestyle
 *                                           3/3    2/3 ("long"≠"Long"; p4 essential but truncated away)
 *                                                                  1/1 (UUID+name)      CurrentDate 1/1
 * 12 L2 (2)      9  6-10  Accessibility (not canonical) 2/2  – (no check-intersection entry)
 *
 * Totals                       official                         corrected
 * API        overall           49/56 = 87.50                    same
 *            L1 S1-3           2/3 = 66.67                      same
 *            L2 S4,5,6,11,12   13/14 = 92.86                    same
 *            L3 S7-9           14/18 = 77.78                    same
 *            L4 S10            20/21 = 95.24                    same
 * primitive  overall           9/15 = 60.00                     12/15 = 80.00
 *            L1, L4            0/0 = inf                        null
 *            L2 S4,5,6,11      (0+2+1+2)/8 = 62.50              (1+2+1+2)/8 = 75.00
 *            L3 S7,8,9         (0+1+3)/7 = 57.14                (1+1+4)/7 = 85.71
 * prev. out. overall           5/9 = 55.56                      3/9 = 33.33
 *            L1                (no row)                         null
 *            L2 S4,6,11        3/3 = 100.00                     2/3 = 66.67
 *            L3 S7,8,9         2/6 = 33.33                      1/6 = 16.67
 *            L4                inf                              null
 *            errors            no pred. 2 (S7,S8), format 1     no pred. 2, format 1,
 *                              (S8), value 1 (S9)               value 3 (S6, S9 ×2)
 * system in. overall           5/6 = 83.33                      6/7 = 85.71
 *            L1 S2 1/1, L2 S4+S11 2/2, L3 S7 2/3 (off) / S7+S9 3/4 = 75.00 (cor), L4 inf / null
 *            by type           CurrentDate 2/2, DeviceDetails 1/1, ExtensionInput 1/1 (cor 2/2),
 *                              Clipboard 0/1, Ask 1/1
 * categories (off: the 8 canonical, fixed order; cor: those present, sorted, incl. Accessibility)
 *   Productivity S1,2,4,7: API 12/12, prim. off 0/3 cor 2/3, prev. 2/3, sys 4/5
 *   Entertainment S3,5,8: API 6/9, prim. 3/4, prev. 0/2, sys 0/0
 *   Education S6: 3/3, 1/1, prev. off 1/1 cor 0/1, sys 0/0
 *   Development S9: 3/6, prim. off 3/4 cor 4/4, prev. off 1/2 cor 0/2, sys off 0/0 cor 1/1
 *   Home S10: 20/21; Lifestyle S11: 3/3, 2/3, 1/1, 1/1; Health, Business: no shortcut (off inf)
 *   Accessibility S12 (cor only): API 2/2
 * candidate-list size   API        wrong  hallucinated (off / cor)  unparsed (cor)  position ratio
 *   <=5   S1,S2        2/2         0      0 / 0                     0               inf / null
 *   6-10  S3,S4,S12    4/5 = 80    1      1 / 0                     1               inf / null
 *   11-15 S5,S6        6/7 = 85.71 1      0 / 0                     0               0.5
 *   16-20 S7,8,9,11    17/21=80.95 4      3 / 2                     1               0.7 (only p6 of S9 listed)
 *   >20   S10          20/21       1      0 / 0                     0               0
 * Records without significant_paras: S1, S2, S10, S12 → 4.
 */
describe('authored fixtures: the scorer reproduces the hand computation', () => {
  const scored = scoreShortcutsResults(resultsFile, dir);
  const off = scored.official;
  const cor = scored.corrected;
  const a = (num: number, den: number, accuracy: number | 'inf' | null) => ({ num, den, accuracy });

  it('levels come from the result records (S11 truncated to L2)', () => {
    expect(scored.scores.map((s) => s.level)).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 2, 2]);
    expect(scored.scores.map((s) => s.length)).toEqual([1, 1, 1, 2, 3, 5, 6, 7, 7, 21, 3, 2]);
    // the full S11 shortcut in the gold file would be level 3
    const gold = loadGoldShortcuts(dir).get(url(11))!;
    const actions = (gold.shortcut as { WFWorkflowActions: never[] }).WFWorkflowActions;
    expect(shortcutLength(actions).length).toBe(7);
    expect(scored.notes).toEqual([
      '4 record(s) without significant_paras: no primitive parameter counted for them',
    ]);
  });

  it('API selection per level', () => {
    for (const r of [off, cor]) {
      expect(r.shortcuts).toBe(12);
      expect(r.api.overall).toEqual(a(49, 56, 87.5));
      expect(r.api.byLevel).toEqual({
        L1: a(2, 3, 200 / 3),
        L2: a(13, 14, 1300 / 14),
        L3: a(14, 18, 1400 / 18),
        L4: a(20, 21, 2000 / 21),
      });
    }
  });

  it('primitive parameters per level', () => {
    expect(off.primitive.overall).toEqual(a(9, 15, 60));
    expect(off.primitive.byLevel).toEqual({
      L1: a(0, 0, 'inf'),
      L2: a(5, 8, 62.5),
      L3: a(4, 7, 400 / 7),
      L4: a(0, 0, 'inf'),
    });
    expect(cor.primitive.overall).toEqual(a(12, 15, 80));
    expect(cor.primitive.byLevel).toEqual({
      L1: a(0, 0, null),
      L2: a(6, 8, 75),
      L3: a(6, 7, 600 / 7),
      L4: a(0, 0, null),
    });
  });

  it('previous-output parameters per level, with error counts and shares', () => {
    expect(off.previousOutput.overall).toEqual(a(5, 9, 500 / 9));
    expect(off.previousOutput.byLevel).toEqual({
      L2: a(3, 3, 100),
      L3: a(2, 6, 200 / 6),
      L4: a(0, 0, 'inf'),
    });
    expect(off.previousOutput.errors).toEqual({ noPrediction: 2, formatError: 1, valueError: 1 });
    expect(off.previousOutput.errorShares).toEqual({
      noPrediction: 2 / 9,
      formatError: 1 / 9,
      valueError: 1 / 9,
    });
    expect(cor.previousOutput.overall).toEqual(a(3, 9, 300 / 9));
    expect(cor.previousOutput.byLevel).toEqual({
      L1: a(0, 0, null),
      L2: a(2, 3, 200 / 3),
      L3: a(1, 6, 100 / 6),
      L4: a(0, 0, null),
    });
    expect(cor.previousOutput.errors).toEqual({ noPrediction: 2, formatError: 1, valueError: 3 });
    expect(cor.previousOutput.errorShares).toEqual({
      noPrediction: 2 / 9,
      formatError: 1 / 9,
      valueError: 3 / 9,
    });
  });

  it('system/user inputs per level and per type', () => {
    expect(off.systemInput.overall).toEqual(a(5, 6, 500 / 6));
    expect(off.systemInput.byLevel).toEqual({
      L1: a(1, 1, 100),
      L2: a(2, 2, 100),
      L3: a(2, 3, 200 / 3),
      L4: a(0, 0, 'inf'),
    });
    const types = (ext: [number, number]) => ({
      CurrentDate: a(2, 2, 100),
      DeviceDetails: a(1, 1, 100),
      ExtensionInput: a(ext[0], ext[1], 100),
      Clipboard: a(0, 1, 0),
      Ask: a(1, 1, 100),
    });
    expect(off.systemInput.byType).toEqual(types([1, 1]));
    expect(cor.systemInput.overall).toEqual(a(6, 7, 600 / 7));
    expect(cor.systemInput.byLevel).toEqual({
      L1: a(1, 1, 100),
      L2: a(2, 2, 100),
      L3: a(3, 4, 75),
      L4: a(0, 0, null),
    });
    expect(cor.systemInput.byType).toEqual(types([2, 2]));
  });

  it('per category: official tallies the 8 canonical ones, corrected every category present', () => {
    const row = (r: typeof off, c: string) => r.byCategory.find((x) => x.category === c);
    expect(off.byCategory.map((c) => [c.category, c.shortcuts])).toEqual([
      ['Productivity & Utilities', 4],
      ['Health & Fitness', 0],
      ['Entertainment & Media', 3],
      ['Lifestyle & Social', 1],
      ['Education & Reference', 1],
      ['Business & Finance', 0],
      ['Development & API', 1],
      ['Home & Smart Devices', 1],
    ]);
    expect(row(off, 'Productivity & Utilities')).toEqual({
      category: 'Productivity & Utilities',
      shortcuts: 4,
      api: a(12, 12, 100),
      primitive: a(0, 3, 0),
      previousOutput: a(2, 3, 200 / 3),
      systemInput: a(4, 5, 80),
    });
    expect(row(cor, 'Productivity & Utilities')!.primitive).toEqual(a(2, 3, 200 / 3));
    expect(row(off, 'Entertainment & Media')).toEqual({
      category: 'Entertainment & Media',
      shortcuts: 3,
      api: a(6, 9, 600 / 9),
      primitive: a(3, 4, 75),
      previousOutput: a(0, 2, 0),
      systemInput: a(0, 0, 'inf'),
    });
    expect(row(off, 'Education & Reference')!.previousOutput).toEqual(a(1, 1, 100));
    expect(row(cor, 'Education & Reference')!.previousOutput).toEqual(a(0, 1, 0));
    expect(row(off, 'Development & API')).toEqual({
      category: 'Development & API',
      shortcuts: 1,
      api: a(3, 6, 50),
      primitive: a(3, 4, 75),
      previousOutput: a(1, 2, 50),
      systemInput: a(0, 0, 'inf'),
    });
    expect(row(cor, 'Development & API')).toEqual({
      category: 'Development & API',
      shortcuts: 1,
      api: a(3, 6, 50),
      primitive: a(4, 4, 100),
      previousOutput: a(0, 2, 0),
      systemInput: a(1, 1, 100),
    });
    expect(row(off, 'Home & Smart Devices')!.api).toEqual(a(20, 21, 2000 / 21));
    expect(row(off, 'Lifestyle & Social')).toEqual({
      category: 'Lifestyle & Social',
      shortcuts: 1,
      api: a(3, 3, 100),
      primitive: a(2, 3, 200 / 3),
      previousOutput: a(1, 1, 100),
      systemInput: a(1, 1, 100),
    });
    expect(row(off, 'Health & Fitness')!.api).toEqual(a(0, 0, 'inf'));
    expect(row(off, 'Accessibility & Utilities')).toBeUndefined();
    expect(cor.byCategory.map((c) => c.category)).toEqual([
      'Accessibility & Utilities',
      'Development & API',
      'Education & Reference',
      'Entertainment & Media',
      'Home & Smart Devices',
      'Lifestyle & Social',
      'Productivity & Utilities',
    ]);
    expect(row(cor, 'Accessibility & Utilities')!.api).toEqual(a(2, 2, 100));
  });

  it('per candidate-list size, with hallucinations and position ratio', () => {
    expect(off.byApiListSize).toEqual([
      { bucket: '<=5', api: a(2, 2, 100), wrong: 0, hallucinations: 0, positionRatio: 'inf' },
      { bucket: '6-10', api: a(4, 5, 80), wrong: 1, hallucinations: 1, positionRatio: 'inf' },
      { bucket: '11-15', api: a(6, 7, 600 / 7), wrong: 1, hallucinations: 0, positionRatio: 0.5 },
      { bucket: '16-20', api: a(17, 21, 1700 / 21), wrong: 4, hallucinations: 3, positionRatio: 0.7 },
      { bucket: '>20', api: a(20, 21, 2000 / 21), wrong: 1, hallucinations: 0, positionRatio: 0 },
    ]);
    expect(cor.byApiListSize).toEqual([
      { bucket: '<=5', api: a(2, 2, 100), wrong: 0, hallucinations: 0, positionRatio: null, unparsed: 0 },
      { bucket: '6-10', api: a(4, 5, 80), wrong: 1, hallucinations: 0, positionRatio: null, unparsed: 1 },
      {
        bucket: '11-15',
        api: a(6, 7, 600 / 7),
        wrong: 1,
        hallucinations: 0,
        positionRatio: 0.5,
        unparsed: 0,
      },
      {
        bucket: '16-20',
        api: a(17, 21, 1700 / 21),
        wrong: 4,
        hallucinations: 2,
        positionRatio: 0.7,
        unparsed: 1,
      },
      {
        bucket: '>20',
        api: a(20, 21, 2000 / 21),
        wrong: 1,
        hallucinations: 0,
        positionRatio: 0,
        unparsed: 0,
      },
    ]);
  });
});

describe('authored fixtures: official-format round trip', () => {
  const names = [
    '1_final_detailed_records_filter_apis_leq_30.json',
    'generated_success_queries.json',
    'json-gpt-3.5-turbo_check_intersection_of_query_and_para_necessary.json',
    'generated_success_categories.json',
  ];
  it.each(names)('%s reads and writes back byte-identical (json.dumps indent=2)', (name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    expect(`${dumpsPythonJson(parseJson(text), 2)}\n`).toBe(text);
  });

  it('results.jsonl reads and writes back byte-identical (json.dumps per line)', () => {
    const text = readFileSync(resultsFile, 'utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(12);
    expect(lines.map((l) => `${dumpsPythonJson(parseJson(l))}\n`).join('')).toBe(text);
    // non-ASCII stays escaped as Python writes it (× and U+FFFC)
    expect(text).toContain('"\\u00d7"');
    expect(text).toContain('\\ufffc');
  });

  it('the loaders read the gold (null shortcut skipped) and the queries', () => {
    const gold = loadGoldShortcuts(dir);
    expect(gold.size).toBe(12);
    expect(gold.has(url(99))).toBe(false);
    const queries = loadQueries(dir);
    expect(queries.size).toBe(12);
    expect(queries.get(url(2))).toBe('Copy the current date to my clipboard.');
  });

  it('writes floats and ints as Python does', () => {
    expect(dumpsPythonJson(parseJson('{"a": [1.0, 2, 1e3, 0.50, -0], "b": {}, "c": []}'), 2)).toBe(
      '{\n  "a": [\n    1.0,\n    2,\n    1000.0,\n    0.5,\n    0\n  ],\n  "b": {},\n  "c": []\n}',
    );
    expect(dumpsPythonJson(parseJson('{"é": "\\u00e9", "n": null, "t": true}'))).toBe(
      '{"\\u00e9": "\\u00e9", "n": null, "t": true}',
    );
  });
});
