import fc from 'fast-check';
import { build, buildBinary, type PlistValue } from 'plist';
import { describe, expect, it } from 'vitest';
import { dumpsPythonJson, isLosslessNumber, type Json, parseJson } from './json-value.js';
import { parseShortcutsReply } from './reply.js';
import { parseShortcutBytes, plistToJson } from './shortcut-file.js';

/** Property tests: the reply parser (docs/shortcutsbench.md, "Official reply parsing") and the plist importer. */

const IDS = [
  'is.workflow.actions.url',
  'is.workflow.actions.downloadurl',
  'com.example.App.Intent',
  'Finish',
];
const jsonValue = fc.jsonValue().map((v) => parseJson(JSON.stringify(v) ?? 'null'));
const action = fc.record({
  WFWorkflowActionIdentifier: fc.constantFrom(...IDS),
  WFWorkflowActionParameters: fc.dictionary(fc.string(), jsonValue, { maxKeys: 5 }),
});
/** Text a model may wrap its JSON in, without braces (they would change the first-{ / last-} span). */
const chatter = fc.string({
  unit: fc.constantFrom('a', ' ', '\n', '`', '"', ':', ',', '[', ']', 'é', '\uFFFC'),
});

describe('parseShortcutsReply (official reply parsing)', () => {
  it('never throws, whatever the reply', () => {
    const braces = fc.string({
      unit: fc.constantFrom('{', '}', '"', ':', ',', '[', ']', '1', 'a', ' ', '\\'),
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 80 }), braces), (reply) => {
        const r = parseShortcutsReply(reply);
        if (r.state === 'json_error') expect(r.aseq).toBe(reply);
        else expect(r.state).toBe('generated_by_agent');
      }),
    );
  });

  it('round-trips a rendered action wrapped in chatter and a code fence', () => {
    fc.assert(
      fc.property(action, chatter, chatter, fc.boolean(), (a, before, after, pretty) => {
        const rendered = dumpsPythonJson(a as unknown as Json, pretty ? 2 : undefined);
        const r = parseShortcutsReply(`${before}\`\`\`json\n${rendered}\n\`\`\`${after}`);
        expect(r.state).toBe('generated_by_agent');
        expect(dumpsPythonJson(r.aseq as Json)).toBe(dumpsPythonJson(a as unknown as Json));
      }),
    );
  });

  it('fails a reply with two JSON objects (first { to last } spans both), as upstream', () => {
    fc.assert(
      fc.property(action, action, (a, b) => {
        const r = parseShortcutsReply(
          `${dumpsPythonJson(a as unknown as Json)}\n${dumpsPythonJson(b as unknown as Json)}`,
        );
        expect(r.state).toBe('json_error');
      }),
    );
  });
});

// plist-safe values: XML 1.0 cannot hold most control characters and normalises \r
const text = fc.string({
  unit: fc.constantFrom(
    'a',
    'Z',
    '0',
    ' ',
    '\n',
    '\t',
    '<',
    '>',
    '&',
    '"',
    "'",
    'é',
    '\u4e2d',
    '\uFFFC',
    '😀',
  ),
});
const key = text.filter((k) => k !== '__proto__');
const number = fc.oneof(
  fc.integer(),
  fc
    .double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 })
    .filter((x) => !Number.isInteger(x)),
);
const { value: plistValue } = fc.letrec<{ value: PlistValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    number,
    fc.boolean(),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 3 }),
  ),
}));
const plistAction = fc.record({
  WFWorkflowActionIdentifier: fc.constantFrom(...IDS),
  WFWorkflowActionParameters: fc.dictionary(key, plistValue, { maxKeys: 5 }),
});
const workflow = fc.record({ WFWorkflowActions: fc.array(plistAction, { maxLength: 5 }) });

/** Every number of a lossless value with whether it reads as an int. */
function numbers(v: Json, out: [string, boolean][] = []): [string, boolean][] {
  if (isLosslessNumber(v)) out.push([v.value, !/[.eE]/.test(v.value)]);
  else if (Array.isArray(v)) for (const x of v) numbers(x, out);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) numbers(x, out);
  return out;
}

describe('plist importer', () => {
  it('random action lists → XML and binary plist → import → the same actions', () => {
    fc.assert(
      fc.property(workflow, (w) => {
        const expected = dumpsPythonJson(plistToJson(w.WFWorkflowActions as PlistValue));
        for (const bytes of [Buffer.from(build(w as PlistValue)), buildBinary(w as PlistValue)]) {
          const s = parseShortcutBytes(bytes, 'random.shortcut');
          expect(dumpsPythonJson(s.actions)).toBe(expected);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('an integral number imports as an int, any other as a float', () => {
    fc.assert(
      fc.property(number, (n) => {
        const [[lexeme, isInt]] = numbers(plistToJson(n)) as [[string, boolean]];
        expect(isInt).toBe(Number.isInteger(n));
        expect(Number(lexeme)).toBe(n === 0 ? 0 : n);
      }),
    );
  });
});
