import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiaryError, InputInvalidError } from '../../shared/index.js';
import { dumpsPythonJson, parseJson, stringifyJson } from './json-value.js';
import {
  folderOfficialFiles,
  folderSignificantParams,
  isNecessaryCandidate,
  necessaryParams,
  readShortcutFolder,
} from './shortcut-folder.js';

const MINE = join(import.meta.dirname, '__fixtures__', 'my-shortcuts');
const P = 'is.workflow.actions.';

function thrown(f: () => unknown): ApiaryError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiaryError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

describe('readShortcutFolder', () => {
  it('reads every .shortcut/.plist with its NAME.query.txt, sorted by file name', () => {
    const items = readShortcutFolder(MINE);
    expect(items.map((s) => [s.url, s.name, s.query, s.actions.length])).toEqual([
      ['battery.plist', 'battery', 'How much battery do I have left?', 2],
      [
        'weather.shortcut',
        'weather',
        "What's the weather in my city today? Read it out and copy today's date.",
        13,
      ],
    ]);
    expect(items[0]!.sidecar).toBe(join(MINE, 'battery.query.txt'));
  });

  it('names the missing or empty sidecar, and an empty folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-folder-'));
    expect(thrown(() => readShortcutFolder(dir)).message).toContain('holds no .shortcut or .plist files');
    copyFileSync(join(MINE, 'battery.plist'), join(dir, 'battery.plist'));
    const missing = thrown(() => readShortcutFolder(dir));
    expect(missing).toBeInstanceOf(InputInvalidError);
    expect(missing.message).toBe(
      `${join(dir, 'battery.query.txt')}: missing: the query for battery.plist (one line saying what the user asks the shortcut to do)`,
    );
    writeFileSync(join(dir, 'battery.query.txt'), '  \n');
    expect(thrown(() => readShortcutFolder(dir)).message).toContain(
      'empty: write the query for battery.plist',
    );
    expect(thrown(() => readShortcutFolder(join(dir, 'nope'))).code).toBe('NOT_FOUND');
  });
});

describe('necessaryParams (docs/shortcutsbench.md §4.4)', () => {
  const types = {
    [`${P}a`]: {
      I: 'Integer',
      F: 'Float = 0.5',
      B: 'Bool = True',
      E: 'Enum = "GET"',
      S: 'String',
      O: 'WFVariablePickerParameter(Object)',
    },
  };
  const check = (value: string, type: string) => isNecessaryCandidate(parseJson(value), type);

  it('keeps a scalar by its Python type and the declared type', () => {
    const table: [string, string, boolean][] = [
      ['3', 'Integer', true],
      ['true', 'Integer', true], // bools are ints in Python
      ['2.5', 'Integer', true], // a number under Integer
      ['"12"', 'Integer', true],
      ['"1.5"', 'Integer', false],
      ['1.5', 'Float', true],
      ['2', 'Float', true],
      ['"3.25"', 'Float', true],
      ['"3.2.5"', 'Float', false],
      ['false', 'Bool', true],
      ['1', 'Bool', true],
      ['0.0', 'Bool', true],
      ['2', 'Bool', false],
      ['"TRUE"', 'Bool', true],
      ['"yes"', 'Bool', false],
      ['"GET"', 'Enum', true],
      ['1', 'Enum', false],
      ['"text"', 'String', false], // String-typed parameters are never candidates
      [`"${'x'.repeat(301)}"`, 'Enum', false],
      [`"${'x'.repeat(300)}"`, 'Enum', true],
      ['{"Value": {}}', 'Integer', false],
    ];
    for (const [v, t, want] of table)
      expect([v.slice(0, 12), t, check(v, t)]).toEqual([v.slice(0, 12), t, want]);
  });

  it('keys by the 0-based position (comments included) and skips control flow, variables and unknown APIs', () => {
    const actions = [
      `{"WFWorkflowActionIdentifier": "${P}comment", "WFWorkflowActionParameters": {"WFCommentActionText": "x"}}`,
      `{"WFWorkflowActionIdentifier": "${P}a", "WFWorkflowActionParameters": {"I": 1, "S": "s", "E": "GET", "UUID": "u", "X": 1, "O": {"Value": {"Type": "Ask"}}}}`,
      `{"WFWorkflowActionIdentifier": "${P}setvariable", "WFWorkflowActionParameters": {"WFVariableName": "v"}}`,
      `{"WFWorkflowActionIdentifier": "${P}unknown", "WFWorkflowActionParameters": {"I": 1}}`,
      `{"WFWorkflowActionIdentifier": "${P}a", "WFWorkflowActionParameters": {"F": 0.5, "B": false}}`,
    ].map(parseJson);
    expect(dumpsPythonJson(necessaryParams(actions, types))).toBe(
      '{"1": {"I": 1, "E": "GET"}, "4": {"F": 0.5, "B": false}}',
    );
  });
});

describe('folderOfficialFiles', () => {
  it('writes the records in the official formats, every candidate parameter essential', () => {
    const items = readShortcutFolder(MINE);
    const types = { [`${P}downloadurl`]: { WFHTTPMethod: 'Enum = "GET"', WFURL: 'String' } };
    const files = folderOfficialFiles(items, types);
    expect(files.gold.map((r) => [r.URL, stringifyJson(r.records!)])).toEqual([
      ['battery.plist', '{"fields":{"name":{"value":"battery"}}}'],
      ['weather.shortcut', '{"fields":{"name":{"value":"weather"}}}'],
    ]);
    expect(stringifyJson(files.queries['battery.plist']!)).toBe(
      '{"GeneratedQuery":{"shortcut_name":"battery","shortcut_description":"","query":"How much battery do I have left?"},"RecordName":"battery"}',
    );
    expect(stringifyJson(folderSignificantParams(files).get('weather.shortcut')!)).toBe(
      '{"3":{"WFHTTPMethod":{"WFHTTPMethod":"Essential parameter","reason":"apiary: every primitive/enum parameter of a user shortcut counts (no LLM filter)"}}}',
    );
  });
});
