import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonActionReply } from '../../agents/index.js';
import { cloneJson, type Json, parseJson, stringifyJson } from './json-value.js';
import { judgeReferenceCorrected, judgeReferenceOfficial } from './judge-reference.js';
import { shortcutLength } from './length.js';
import { normaliseAction } from './normalise.js';
import { judgeEqualCorrected, judgeEqualOfficial } from './python-values.js';

const j = (text: string): Json => parseJson(text);

describe('judge_equal (docs/shortcutsbench.md §9.2, §11.9, §11.15)', () => {
  // gold (JSON) | prediction (JSON) | official | corrected — each row worked by hand from
  // docs/shortcutsbench.md §9.2
  const rows: Array<[string, string, boolean, boolean]> = [
    ['"GET"', '"GET"', true, true], // strings: exact
    ['"GET"', '"get"', false, false], // case-sensitive
    ['0.5', '"0.5"', true, true], // float branch: float("0.5") = 0.5
    ['1.0', '"1"', true, true], // float("1") = 1.0
    ['1.0', '"1.0"', true, true],
    ['1', '"1.0"', false, true], // int branch: int("1.0") raises → "1" == "1.0" false
    ['5', '"5"', true, true], // int("5") = 5
    ['5', '" 5 "', true, true], // int() strips whitespace
    ['5', '5.0', true, true], // float branch: 5.0 == 5.0
    ['true', '1', true, true], // True → 1
    ['false', '"0"', true, true], // False → 0, int("0") = 0
    ['true', '"true"', false, true], // int("true") raises → "1" == "true" false; corrected: bool text
    ['1', '{"a": 1}', false, false], // an object never equals a scalar
    ['"On"', 'null', false, false],
    ['2.5', '"abc"', false, false], // float("abc") raises → false
    ['1000', '"1_000"', true, true], // Python int() accepts digit separators
  ];
  it.each(rows)('gold %s vs prediction %s → official %s, corrected %s', (g, p, official, corrected) => {
    expect(judgeEqualOfficial(j(g), j(p))).toBe(official);
    expect(judgeEqualCorrected(j(g), j(p))).toBe(corrected);
  });
});

describe('judge_ref (docs/shortcutsbench.md §9.3, §11.10)', () => {
  const ref = (fields: string) => j(`{"Value": {${fields}}}`);
  const gold = ref('"Type": "ActionOutput", "OutputUUID": "U1", "OutputName": "URL"');
  const rows: Array<[string, Json, string, string]> = [
    [
      'same UUID and name',
      ref('"Type": "ActionOutput", "OutputUUID": "U1", "OutputName": "URL"'),
      'correct',
      'correct',
    ],
    [
      'other UUID, same name',
      ref('"Type": "ActionOutput", "OutputUUID": "U2", "OutputName": "URL"'),
      'correct',
      'value_error',
    ],
    [
      'same UUID, other name',
      ref('"Type": "ActionOutput", "OutputUUID": "U1", "OutputName": "X"'),
      'correct',
      'correct',
    ],
    ['name only, equal', ref('"Type": "ActionOutput", "OutputName": "URL"'), 'correct', 'correct'],
    ['UUID only, different', ref('"Type": "ActionOutput", "OutputUUID": "U9"'), 'value_error', 'value_error'],
    ['no UUID nor name', ref('"Type": "ActionOutput"'), 'value_error', 'value_error'],
    ['a Variable', ref('"Type": "Variable", "VariableName": "x"'), 'format_error', 'format_error'],
    ['a bare string', j('"U1"'), 'format_error', 'format_error'],
  ];
  it.each(rows)('%s', (_name, pred, official, corrected) => {
    expect(judgeReferenceOfficial(gold, pred)).toBe(official);
    expect(judgeReferenceCorrected(gold, pred)).toBe(corrected);
  });
  it('legacy Input equals ExtensionInput only in corrected mode', () => {
    expect(judgeReferenceOfficial(ref('"Type": "Input"'), ref('"Type": "ExtensionInput"'))).toBe(
      'format_error',
    );
    expect(judgeReferenceCorrected(ref('"Type": "Input"'), ref('"Type": "ExtensionInput"'))).toBe('correct');
  });
});

describe('shortcut length (docs/shortcutsbench.md §6.1, §11.5)', () => {
  const a = (id: string, params = '{}') =>
    j(`{"WFWorkflowActionIdentifier": "is.workflow.actions.${id}", "WFWorkflowActionParameters": ${params}}`);
  const cf = (id: string, g: string, m: number) =>
    a(id, `{"GroupingIdentifier": "${g}", "WFControlFlowMode": ${m}}`);
  it('counts the longest menu case, a loop body once, an unmatched start 0 and a stray end 0', () => {
    const actions = [
      a('comment'),
      cf('choosefrommenu', 'M', 0),
      cf('choosefrommenu', 'M', 1),
      a('a'),
      cf('choosefrommenu', 'M', 1),
      a('b'),
      a('c'),
      a('alert'),
      cf('choosefrommenu', 'M', 2),
      cf('repeat.count', 'R', 0),
      a('d'),
      cf('repeat.count', 'R', 2),
      cf('conditional', 'X', 0), // unmatched: 0, what follows counts at top level
      a('e'),
      cf('conditional', 'Y', 2), // stray end: 0
    ];
    // menu max(1, 2) = 2; loop 1; e 1 → 4
    expect(shortcutLength(actions).length).toBe(4);
  });
  it('rejects a control-flow action without GroupingIdentifier', () => {
    expect(() => shortcutLength([a('conditional', '{"WFControlFlowMode": 0}')])).toThrow(
      /GroupingIdentifier/,
    );
  });
});

describe('history normalisation and reply parsing (properties)', () => {
  const jsonValue = fc.jsonValue().map((v) => parseJson(JSON.stringify(v) ?? 'null'));
  const action = fc
    .record({
      id: fc.constantFrom(
        'is.workflow.actions.url',
        'is.workflow.actions.conditional',
        'is.workflow.actions.text',
      ),
      params: fc.dictionary(
        fc.constantFrom('UUID', 'CustomOutputName', 'WFSerializationType', 'ShowWhenRun', 'string', 'X'),
        jsonValue,
      ),
    })
    .map(
      ({ id, params }) => ({ WFWorkflowActionIdentifier: id, WFWorkflowActionParameters: params }) as Json,
    );
  it('never mutates the gold and is idempotent on its own output', () => {
    fc.assert(
      fc.property(action, (a) => {
        const before = stringifyJson(cloneJson(a));
        const once = normaliseAction(a, new Map([['U', 'Out']]));
        expect(stringifyJson(a)).toBe(before);
        const twice = normaliseAction(once, new Map([['U', 'Out']]));
        expect(stringifyJson(twice)).toBe(stringifyJson(once));
      }),
    );
  });
  it('the reply parser never throws', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const r = parseJsonActionReply(s);
        expect(['json', 'json-error']).toContain(r.kind);
      }),
    );
  });
});

describe('official format round trip', () => {
  it('reads and rewrites a result record identically (numbers keep their lexemes)', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const file = join(import.meta.dirname, '__fixtures__', 'worked-example.results.jsonl');
    const text = readFileSync(file, 'utf8').trim();
    expect(stringifyJson(parseJson(text))).toBe(JSON.stringify(JSON.parse(text)));
    const floats = '{"a": 1.0, "b": 1, "c": 1e5, "d": [0.50]}';
    expect(stringifyJson(parseJson(floats))).toBe('{"a":1.0,"b":1,"c":1e5,"d":[0.50]}');
  });
});
