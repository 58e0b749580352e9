import fc from 'fast-check';
import { buildBinary, type PlistValue, parseBinary } from 'plist';
import { describe, expect, it } from 'vitest';
import { InputInvalidError } from '../../shared/index.js';
import { BINARY_PLIST_LIMITS, readBinaryPlist } from './binary-plist.js';
import { stringifyJson } from './json-value.js';
import { MAX_SHORTCUT_FILE_BYTES, parseShortcutBytes, plistToJson } from './shortcut-file.js';

/**
 * A shortcut file is whatever a user downloaded. Its objects may be shared and nested at will: the
 * reader must refuse, quickly and with a coded error, what would expand without bound.
 */

/** A binary plist of the given encoded objects (1-byte references, 2-byte offsets); object 0 is the top. */
function bplist(objects: number[][]): Buffer {
  const head = Buffer.from('bplist00');
  const offsets: number[] = [];
  let at = head.length;
  for (const o of objects) {
    offsets.push(at);
    at += o.length;
  }
  const table = Buffer.alloc(2 * objects.length);
  offsets.forEach((o, i) => {
    table.writeUInt16BE(o, 2 * i);
  });
  const trailer = Buffer.alloc(32);
  trailer[6] = 2; // offset size
  trailer[7] = 1; // reference size
  trailer.writeBigUInt64BE(BigInt(objects.length), 8);
  trailer.writeBigUInt64BE(0n, 16);
  trailer.writeBigUInt64BE(BigInt(at), 24);
  return Buffer.concat([head, ...objects.map((o) => Buffer.from(o)), table, trailer]);
}

const ascii = (s: string) => [
  ...(s.length < 15 ? [0x50 | s.length] : [0x5f, 0x10, s.length]),
  ...Buffer.from(s, 'latin1'),
];
const array = (...refs: number[]) => [0xa0 | refs.length, ...refs];

/**
 * `{WFWorkflowActions: a1}` where each array a(k) holds a(k+1) twice: `levels` objects expand to
 * 2^levels values.
 */
function doublingShortcut(levels: number): Buffer {
  const first = 2;
  const arrays = Array.from({ length: levels }, (_, k) =>
    k === levels - 1 ? array() : array(first + k + 1, first + k + 1),
  );
  return bplist([[0xd1, 1, first], ascii('WFWorkflowActions'), ...arrays]);
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

function timed(f: () => void): number {
  const start = performance.now();
  f();
  return performance.now() - start;
}

const EXPANDS =
  'not a readable binary-plist: expands to more than 1,000,000 values ' +
  '(the limit for a shortcut; its objects are shared many times over)';

describe('binary plist attacks', () => {
  it('arrays holding the next one twice, 22 deep (4 million values), are refused by the node budget', () => {
    const bytes = doublingShortcut(22);
    const e = errorOf(() => parseShortcutBytes(bytes, 'bomb.shortcut'));
    expect(e.code).toBe('INPUT_INVALID');
    expect(e.message).toBe(`bomb.shortcut: ${EXPANDS}`);
  });

  it('the 500-byte plist of 40 doublings (2^40 values: over 60 s and 3.5 GB before) is refused in milliseconds', () => {
    const bytes = doublingShortcut(40);
    expect(bytes.length).toBeLessThan(500);
    let e: InputInvalidError | undefined;
    expect(timed(() => (e = errorOf(() => parseShortcutBytes(bytes, 'bomb.shortcut'))))).toBeLessThan(500);
    expect(e!.file).toBe('bomb.shortcut');
    expect(e!.message).toBe(`bomb.shortcut: ${EXPANDS}`);
  });

  it('an array that contains itself is refused as a cycle (the stack overflowed before)', () => {
    const bytes = bplist([[0xd1, 1, 2], ascii('WFWorkflowActions'), array(3), array(2)]);
    expect(errorOf(() => parseShortcutBytes(bytes, 'loop.shortcut')).message).toBe(
      'loop.shortcut: not a readable binary-plist: object 2 contains itself (a reference cycle)',
    );
  });

  it('arrays nested 1001 deep are refused by the depth limit', () => {
    const levels = 1001;
    // 2-byte references for more than 255 objects
    const objects: Buffer[] = [Buffer.from([0xd1, 0, 1, 0, 2]), Buffer.from(ascii('WFWorkflowActions'))];
    for (let k = 0; k < levels; k++) {
      const next = 2 + k + 1;
      objects.push(k === levels - 1 ? Buffer.from([0xa0]) : Buffer.from([0xa1, next >> 8, next & 0xff]));
    }
    const head = Buffer.from('bplist00');
    let at = head.length;
    const table = Buffer.alloc(2 * objects.length);
    objects.forEach((o, i) => {
      table.writeUInt16BE(at, 2 * i);
      at += o.length;
    });
    const trailer = Buffer.alloc(32);
    trailer[6] = 2;
    trailer[7] = 2;
    trailer.writeBigUInt64BE(BigInt(objects.length), 8);
    trailer.writeBigUInt64BE(BigInt(at), 24);
    const bytes = Buffer.concat([head, ...objects, table, trailer]);
    expect(errorOf(() => parseShortcutBytes(bytes, 'deep.shortcut')).message).toBe(
      'deep.shortcut: not a readable binary-plist: nested deeper than 1000 levels (the limit for a shortcut)',
    );
  });

  it('references and offsets outside the file are refused, not read as zeros', () => {
    const bytes = bplist([[0xd1, 1, 9], ascii('WFWorkflowActions')]);
    expect(errorOf(() => parseShortcutBytes(bytes, 'x.shortcut')).message).toBe(
      'x.shortcut: not a readable binary-plist: object 0 refers to object 9 of 2',
    );
  });

  it('a shared object within the budget reads as before, once per place it is used', () => {
    const bytes = bplist([
      [0xd2, 1, 3, 2, 2],
      ascii('WFWorkflowActions'),
      array(4, 4),
      ascii('b'),
      [0x10, 7],
    ]);
    const expected = stringifyJson(plistToJson(parseBinary(bytes)) as never);
    expect(stringifyJson(readBinaryPlist(bytes, 'shared.shortcut'))).toBe(expected);
    expect(expected).toBe('{"WFWorkflowActions":[7,7],"b":[7,7]}');
  });

  it('property: the same lossless JSON as the plist package on random plists', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'Z', ' ', '\n', '<', 'é', '\u4e2d', '\uFFFC', '😀', '\ud800'),
    });
    const { value } = fc.letrec<{ value: PlistValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.integer(),
        fc.maxSafeInteger(),
        fc.double({ noNaN: true }),
        fc.boolean(),
        fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b) as unknown as PlistValue),
        fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(
          text.filter((k) => k !== '__proto__'),
          tie('value'),
          { maxKeys: 4 },
        ),
      ),
    }));
    fc.assert(
      fc.property(value, (v) => {
        const bytes = buildBinary(v);
        expect(stringifyJson(readBinaryPlist(bytes, 'r.plist'))).toBe(
          stringifyJson(plistToJson(parseBinary(bytes)) as never),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('property: corrupted bytes are read or refused with INPUT_INVALID, never another error', () => {
    const base = buildBinary({
      WFWorkflowActions: [
        { WFWorkflowActionIdentifier: 'is.workflow.actions.gettext', n: 1.5, d: new Date(0) },
      ],
      s: 'caf\u00e9 \u4e2d',
      big: 2 ** 40,
      data: Buffer.from([1, 2, 3]) as unknown as PlistValue,
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: base.length - 1 }), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 6,
        }),
        (edits) => {
          const bytes = Buffer.from(base);
          for (const [at, value] of edits) bytes[at] = value;
          try {
            readBinaryPlist(bytes, 'fuzz.plist');
          } catch (e) {
            expect(e).toBeInstanceOf(InputInvalidError);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  // (the plist package's builder writes 2-byte references past 65,535 objects: no larger file here)
  it('the budget is well above a large real shortcut: 1,500 actions of 33 values read', () => {
    const action = (i: number) => ({
      WFWorkflowActionIdentifier: 'is.workflow.actions.gettext',
      WFWorkflowActionParameters: Object.fromEntries(
        Array.from({ length: 14 }, (_, k) => [`P${k}`, `v${i}.${k}`]),
      ),
    });
    const bytes = buildBinary({ WFWorkflowActions: Array.from({ length: 1500 }, (_, i) => action(i)) });
    expect(parseShortcutBytes(bytes, 'big.shortcut').actions).toHaveLength(1500);
    // a shortcut of 5,000 such actions would still be 6 times under the budget
    expect(5000 * 33).toBeLessThan(BINARY_PLIST_LIMITS.maxNodes / 6);
  });
});

describe('XML plist and file size attacks', () => {
  const xmlShortcut = (actions: string) =>
    Buffer.from(
      `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n` +
        `<plist version="1.0"><dict><key>WFWorkflowActions</key>${actions}</dict></plist>`,
    );

  it('arrays nested 100,000 deep are refused before parsing (the stack overflowed before)', () => {
    const n = 100_000;
    const bytes = xmlShortcut(`${'<array>'.repeat(n)}${'</array>'.repeat(n)}`);
    expect(errorOf(() => parseShortcutBytes(bytes, 'deep.plist')).message).toBe(
      'deep.plist: not a readable xml-plist: nested deeper than 1000 levels (the limit for a shortcut)',
    );
  });

  it('more than a million elements are refused before the DOM is built', () => {
    const bytes = xmlShortcut(`<array>${'<true/>'.repeat(1_000_001)}</array>`);
    expect(errorOf(() => parseShortcutBytes(bytes, 'wide.plist')).message).toBe(
      'wide.plist: not a readable xml-plist: more than 1,000,000 elements (the limit for a shortcut)',
    );
  });

  it('comments, CDATA and the DOCTYPE do not count as elements', () => {
    const bytes = xmlShortcut(
      '<!-- <array><array> --><array><dict><key>WFWorkflowActionIdentifier</key><string><![CDATA[<a><b>]]></string></dict></array>',
    );
    expect(stringifyJson(parseShortcutBytes(bytes, 'ok.plist').actions)).toBe(
      '[{"WFWorkflowActionIdentifier":"<a><b>","WFWorkflowActionParameters":{}}]',
    );
  });

  it('a truncated file and a stray close tag are one error with the line, not a half-read shortcut', () => {
    const whole = xmlShortcut(
      '<array><dict><key>WFWorkflowActionIdentifier</key><string>x</string></dict></array>',
    );
    const cut = whole.subarray(0, whole.indexOf('<string>x') + 9);
    expect(errorOf(() => parseShortcutBytes(cut, 'cut.plist')).message).toBe(
      'cut.plist: not a readable xml-plist: line 3: <string> is never closed (the file ends first)',
    );
    const stray = Buffer.from('<?xml version="1.0"?>\n<plist version="1.0"><dict/></plist>\n</dict>');
    expect(errorOf(() => parseShortcutBytes(stray, 'stray.plist')).message).toBe(
      'stray.plist: not a readable xml-plist: line 3: </dict> closes nothing',
    );
  });

  it('a file over the size limit is refused before it is parsed', () => {
    const bytes = Buffer.alloc(MAX_SHORTCUT_FILE_BYTES + 1, 0x20);
    expect(errorOf(() => parseShortcutBytes(bytes, 'huge.plist')).message).toBe(
      `huge.plist: ${MAX_SHORTCUT_FILE_BYTES + 1} bytes is larger than a shortcut may be (${MAX_SHORTCUT_FILE_BYTES} bytes)`,
    );
  });
});
