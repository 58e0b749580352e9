import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, buildBinary, type PlistValue, parse } from 'plist';
import { describe, expect, it } from 'vitest';
import { InputInvalidError } from '../../shared/index.js';
import { isLosslessNumber, stringifyJson } from './json-value.js';
import { parseShortcutBytes, plistToJson, readShortcutFile, sniffShortcutFormat } from './shortcut-file.js';

const MINE = join(import.meta.dirname, '__fixtures__', 'my-shortcuts');
const WEATHER = join(MINE, 'weather.shortcut');

function tmpFile(name: string, bytes: Uint8Array | string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'apiary-shortcut-')), name);
  writeFileSync(file, bytes);
  return file;
}

function errorOf(f: () => unknown): InputInvalidError {
  try {
    f();
  } catch (e) {
    if (e instanceof InputInvalidError) return e;
    throw e;
  }
  throw new Error('expected an InputInvalidError');
}

describe('readShortcutFile', () => {
  it('imports a hand-written XML plist into the action model, values as the gold JSON holds them', () => {
    const s = readShortcutFile(WEATHER);
    expect(s.format).toBe('xml-plist');
    expect(s.name).toBe('weather');
    expect(s.actions).toHaveLength(13);
    expect(s.workflow.WFWorkflowClientVersion).toBe('1146.14');
    expect(stringifyJson(s.actions[8]!)).toBe(
      '{"WFWorkflowActionIdentifier":"is.workflow.actions.speaktext","WFWorkflowActionParameters":{"WFSpeakTextRate":0.5,' +
        '"WFText":{"Value":{"OutputUUID":"C3C3C3C3-0000-0000-0000-000000000003","Type":"ActionOutput","OutputName":"Contents of URL"},' +
        '"WFSerializationType":"WFTextTokenAttachment"}}}',
    );
    // <integer>0</integer> is an int, <false/> a boolean, U+FFFC survives
    expect(stringifyJson(s.actions[5]!)).toContain('"WFControlFlowMode":0,"WFCondition":99');
    expect(stringifyJson(s.actions[6]!)).toContain('"WFNotificationActionSound":false');
    expect(stringifyJson(s.actions[2]!)).toContain('"string":"https://wttr.in/\uFFFC?format=3"');
  });

  it('imports the same shortcut written as a binary plist (bplist00) to the same actions', () => {
    const xml = readFileSync(WEATHER, 'utf8');
    const file = tmpFile('weather.shortcut', buildBinary(parse(xml)));
    const s = readShortcutFile(file);
    expect(s.format).toBe('binary-plist');
    expect(stringifyJson(s.actions)).toBe(stringifyJson(readShortcutFile(WEATHER).actions));
  });

  it('imports a ShortcutsBench gold record or its shortcut as JSON, keeping 1.0 a float', () => {
    const record =
      '{"URL": "u", "shortcut": {"WFWorkflowActions": [{"WFWorkflowActionIdentifier": "is.workflow.actions.speaktext", ' +
      '"WFWorkflowActionParameters": {"WFSpeakTextRate": 1.0}}, {"WFWorkflowActionIdentifier": "is.workflow.actions.getbatterylevel"}]}}';
    const s = readShortcutFile(tmpFile('one.json', record));
    expect(s.format).toBe('json');
    expect(s.name).toBe('one');
    expect(stringifyJson(s.actions)).toBe(
      '[{"WFWorkflowActionIdentifier":"is.workflow.actions.speaktext","WFWorkflowActionParameters":{"WFSpeakTextRate":1.0}},' +
        '{"WFWorkflowActionIdentifier":"is.workflow.actions.getbatterylevel","WFWorkflowActionParameters":{}}]',
    );
  });

  it('refuses a signed shortcut (AEA archive) and says how to get the unsigned plist', () => {
    const file = tmpFile('signed.shortcut', Buffer.concat([Buffer.from('AEA1'), Buffer.alloc(64, 7)]));
    const e = errorOf(() => readShortcutFile(file));
    expect(e.file).toBe(file);
    expect(e.message).toContain('signed shortcut');
    expect(e.message).toContain('shortcuts sign');
    expect(e.message).toContain('https://www.icloud.com/shortcuts/api/records/<id>');
    expect(e.message).toContain('downloadURL');
  });

  it('names the file, record and field of a bad shortcut', () => {
    expect(errorOf(() => readShortcutFile(tmpFile('x.shortcut', 'hello'))).message).toContain(
      'not a shortcut file: expected an unsigned binary plist',
    );
    const noActions = errorOf(() =>
      parseShortcutBytes(Buffer.from(build({ WFWorkflowName: 'x' })), 'a.plist'),
    );
    expect([noActions.file, noActions.field]).toEqual(['a.plist', 'WFWorkflowActions']);
    const noId = errorOf(() =>
      parseShortcutBytes(
        Buffer.from(build({ WFWorkflowActions: [{ WFWorkflowActionIdentifier: 'a' }, { X: 1 }] })),
        'b.plist',
      ),
    );
    expect([noId.file, noId.record, noId.field]).toEqual(['b.plist', 2, 'WFWorkflowActionIdentifier']);
    const badParams = errorOf(() =>
      parseShortcutBytes(
        Buffer.from(
          build({
            WFWorkflowActions: [{ WFWorkflowActionIdentifier: 'a', WFWorkflowActionParameters: 'p' }],
          }),
        ),
        'c.plist',
      ),
    );
    expect([badParams.record, badParams.field]).toEqual([1, 'WFWorkflowActionParameters']);
    expect(
      errorOf(() => parseShortcutBytes(Buffer.from('<plist><dict><key>a</key>'), 'd.plist')).message,
    ).toContain('not a readable xml-plist');
  });

  it('sniffs the format from the first bytes', () => {
    expect(sniffShortcutFormat(Buffer.from('bplist00....'))).toBe('binary-plist');
    expect(sniffShortcutFormat(Buffer.from('AEA1....'))).toBe('signed');
    expect(sniffShortcutFormat(Buffer.from('\uFEFF  <?xml version="1.0"?>'))).toBe('xml-plist');
    expect(sniffShortcutFormat(Buffer.from('<plist version="1.0">'))).toBe('xml-plist');
    expect(sniffShortcutFormat(Buffer.from(' {"WFWorkflowActions": []}'))).toBe('json');
    expect(sniffShortcutFormat(Buffer.from('PK\u0003\u0004'))).toBeUndefined();
  });
});

describe('plistToJson', () => {
  it('maps plist values to lossless JSON (ints, floats, dates, data)', () => {
    const v = plistToJson({
      i: 3,
      f: 0.25,
      big: 2 ** 60,
      d: new Date('2024-01-02T03:04:05Z'),
      b: new Uint8Array([1, 2, 255]),
      l: [true, 'x'],
    } as PlistValue);
    expect(stringifyJson(v)).toBe(
      '{"i":3,"f":0.25,"big":1152921504606846976,"d":"2024-01-02T03:04:05.000Z","b":"AQL/","l":[true,"x"]}',
    );
    const f = (v as { f: unknown }).f;
    expect(isLosslessNumber(f) && f.value).toBe('0.25');
  });
});
