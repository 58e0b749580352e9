import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from './json-value.js';
import { type CheckedValue, cleanQuery, parseFilterReply, stringCheck } from './query-generation.js';
import { FILTER_SYSTEM_PROMPT, QUERY_SYSTEM_PROMPT } from './query-prompts.js';
import { parseShortcutBytes } from './shortcut-file.js';
import { workflowToXmlPlist } from './xml-plist-write.js';

const value = (kind: CheckedValue['kind'], text: string): CheckedValue => ({
  pos: '1',
  api: 'a',
  name: 'p',
  kind,
  text,
});

describe('query checks', () => {
  it('the string check finds a value as written: text in any case, a number not inside another', () => {
    expect(stringCheck('Fetch it with get', value('text', '"GET"'))).toBe(true);
    expect(stringCheck('Speak at 0.5 speed', value('number', '0.5'))).toBe(true);
    expect(stringCheck('Speak at 10.5 speed', value('number', '0.5'))).toBe(false);
    expect(stringCheck('Speak at 0.55 speed', value('number', '0.5'))).toBe(false);
    expect(stringCheck('Repeat 1 time.', value('number', '1.0'))).toBe(true);
    expect(stringCheck('Without a sound', value('bool', 'false'))).toBeNull();
  });

  it("reads the filter's reply as significant_paras; a value it did not judge is not stated", () => {
    const values = [value('text', '"GET"'), { ...value('number', '2'), name: 'q' }];
    const v = parseFilterReply('ok {"1": {"p": {"p": "Essential parameter", "reason": "r"}}} done', values);
    expect(v).toEqual({
      stated: { '1:p': true, '1:q': false },
      significant: { '1': { p: { p: 'Essential parameter', reason: 'r' } } },
    });
    expect(parseFilterReply('no json here', values)).toBeUndefined();
    expect(cleanQuery(' "Play it\n loud" ')).toBe('Play it loud');
  });

  it('a JSON shortcut written as an XML plist reads back with its ints and floats', () => {
    const workflow = parseJson(
      '{"WFWorkflowActions": [{"WFWorkflowActionIdentifier": "x<y", "WFWorkflowActionParameters": {"n": 3, "r": 0.5, "b": false, "l": ["a&b"], "z": null}}]}',
    );
    const back = parseShortcutBytes(Buffer.from(workflowToXmlPlist(workflow)), 'w.plist');
    expect(stringifyJson(back.actions)).toBe(
      '[{"WFWorkflowActionIdentifier":"x<y","WFWorkflowActionParameters":{"n":3,"r":0.5,"b":false,"l":["a&b"]}}]',
    );
  });
});

describe('the prompts in the docs', () => {
  it('docs/shortcutsbench.md quotes both system prompts verbatim', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/shortcutsbench.md'), 'utf8');
    expect(doc).toContain(`> ${QUERY_SYSTEM_PROMPT}\n`);
    expect(doc).toContain(`> ${FILTER_SYSTEM_PROMPT}\n`);
  });
});
