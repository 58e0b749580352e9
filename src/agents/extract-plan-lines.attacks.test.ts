import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanPlanLine, extractPlanLines } from './extract-plan-lines.js';

/**
 * The reply is written by the model: extracting its plan lines must stay linear in its length.
 * The regexes this replaced were cubic (`Restaurants: [` + `=a()` × 4000 took 40 s); they are
 * kept here as the oracle the scanners must agree with on replies of normal size.
 */
const LEGACY_PLAN_LINE = /^([A-Za-z_]\w*)\s*:\s*\[[^\]]*=\s*\w+\s*\(.*\)[^\]]*\]$/;
const LEGACY_BARE_CALL = /^\[?\s*([^[\]=]+?=\s*([A-Z][A-Za-z]*)_\w+\s*\(.*\))\s*\]?$/;
const LEGACY_LIST_MARKER = /^(?:(?:step\s*)?\d+\s*[.):]\s*|[-*•+]\s+|>\s*)/i;

function legacyCleanPlanLine(line: string): string | undefined {
  let s = line.trim();
  if (s.startsWith('```')) return undefined;
  s = s
    .replace(/\*\*/g, '')
    .replace(/^__(.*)__$/, '$1')
    .replace(/`/g, '')
    .trim();
  for (let i = 0; i < 3; i++) {
    const next = s.replace(LEGACY_LIST_MARKER, '').trim();
    if (next === s) break;
    s = next;
  }
  s = s.replace(/\]\s*[,;.]\s*$/, ']');
  const m = LEGACY_PLAN_LINE.exec(s);
  if (m) return `${m[1]}: ${s.slice(s.indexOf('[')).trim()}`.replace(/^(\w+): \[\s*/, '$1: [');
  const bare = LEGACY_BARE_CALL.exec(s);
  if (bare) return `${bare[2]}: [${bare[1]!.trim()}]`;
  return undefined;
}

function legacyExtractPlanLines(text: string): string {
  if (text.length === 0) return '';
  const out: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    let cleaned = legacyCleanPlanLine(line);
    if (cleaned === undefined && /^\W*[A-Za-z_]\w*\s*:\W*$/.test(line) && i + 1 < lines.length) {
      const joined = legacyCleanPlanLine(`${line.replace(/[*`\s]+$/, '')} ${lines[i + 1]?.trim() ?? ''}`);
      if (joined !== undefined) {
        cleaned = joined;
        i++;
      }
    }
    if (cleaned !== undefined) out.push(cleaned);
  }
  return out.join('\n');
}

/** Milliseconds `f` takes (the attacks are synchronous: a vitest timeout could not stop them). */
function timed(f: () => void): number {
  const start = performance.now();
  f();
  return performance.now() - start;
}

/** Pieces plan lines and the chatter around them are made of, the characters the scanners care about. */
const FRAGMENTS = [
  'Rents',
  'Weather_getweather',
  'Rents_getride',
  'a',
  'x_1',
  ':',
  ': ',
  ' ',
  '  ',
  '\t',
  '[',
  ']',
  '=',
  ' = ',
  '(',
  ')',
  '()',
  '#city=',
  "'Oslo'",
  "'",
  ',',
  ', ',
  '.',
  ';',
  '**',
  '__',
  '`',
  '```',
  '1. ',
  '- ',
  'Step 2: ',
  '> ',
  '\n',
  '\r\n',
  '\r',
  '\u2028',
  '\u00a0',
  '!',
  '*',
];
const fragment = fc.constantFrom(...FRAGMENTS);
const planLike = (maxLength: number) => fc.array(fragment, { maxLength }).map((parts) => parts.join(''));

/** A plan line slot by slot, each slot right, empty, doubled or wrong: mostly lines the extractor keeps. */
const slot = (...choices: string[]) => fc.constantFrom(...choices);
const nearPlanLine = fc
  .tuple(
    slot('', '', '1. ', '- ', '**', '`', 'Step 2: ', '__', '> '),
    slot('Rents', 'Rents', 'Weather', '', '1x', 'Rents '),
    slot(': ', ':', ' : ', '', ':: '),
    slot('[', '[', '[ ', '', '[['),
    slot('car_type, car_name ', 'x ', '', ']', '(', 'a = b'),
    slot('= ', '=', '', '==', '= \u2028'),
    slot('getcars', 'Rents_getride', 'Weather_get', ' ', 'f ', '_x'),
    slot('(', '(', ' (', ''),
    slot("#city='Warsaw'", '#a=b, #c=[1]', '', "#x=')'", '(', ']', '\r', '\u2028'),
    slot(')', ')', '', '))', ') ) '),
    slot('', '', ' note', ']', ') x'),
    slot(']', ']', '', ' ]', ']]'),
    slot('', '', ',', ' ;', '.', '**', '__', '`'),
  )
  .map((parts) => parts.join(''));
const nearPlanReply = fc
  .array(fc.oneof(nearPlanLine, planLike(8)), { maxLength: 6 })
  .map((lines) => lines.join('\n'));

describe('extractPlanLines attacks', () => {
  it('`Restaurants: [` + `=a()` × 4000 (16 KB, 40 s before) is read in linear time', () => {
    // a quarter of it first: over 1 s before, so that the old code fails here without a 40 s wait
    const half = `Restaurants: [${'=a()'.repeat(1000)}`;
    expect(timed(() => expect(extractPlanLines(half)).toBe(''))).toBeLessThan(200);
    const reply = `Restaurants: [${'=a()'.repeat(4000)}`;
    expect(timed(() => expect(extractPlanLines(reply)).toBe(''))).toBeLessThan(200);
    const closed = `${reply}]`;
    expect(timed(() => expect(extractPlanLines(closed)).toBe(closed))).toBeLessThan(200);
  });

  it('1 MB replies built from the worst shapes each take well under 2 s', () => {
    const mb = 1 << 20;
    const replies = [
      `Restaurants: [${'=a()'.repeat(mb / 4)}`,
      `Restaurants: [${'= a ( ) ] '.repeat(mb / 10)}]`,
      `[x = Rents_getride(${'('.repeat(mb)})) x`,
      `[${' '.repeat(mb)}=Rents_a()x`,
      `A:${' '.repeat(mb)}!\nB`,
      `__${'_'.repeat(mb)}`,
      `${'] '.repeat(mb / 2)}x`,
      `x${'='.repeat(mb)}`,
    ];
    for (const reply of replies) expect(timed(() => extractPlanLines(reply))).toBeLessThan(2000);
  });

  it('property: replies up to 1 MB of plan-like fragments finish under 2 s', () => {
    fc.assert(
      fc.property(
        fc.array(fragment, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 40_000 }),
        (parts, times) => {
          const reply = parts
            .join('')
            .repeat(times)
            .slice(0, 1 << 20);
          expect(timed(() => extractPlanLines(reply))).toBeLessThan(2000);
        },
      ),
      { numRuns: 25 },
    );
  }, 60_000);

  it('property: the same lines as the regexes it replaced, on replies of normal size', () => {
    fc.assert(
      fc.property(fc.oneof(nearPlanReply, planLike(60)), (reply) => {
        expect(extractPlanLines(reply)).toBe(legacyExtractPlanLines(reply));
      }),
      { numRuns: 5000 },
    );
  });

  it('property: the same cleaned line as before, one line at a time', () => {
    fc.assert(
      fc.property(
        fc.oneof(nearPlanLine, planLike(40), fc.string({ unit: 'binary', maxLength: 80 })),
        (line) => {
          expect(cleanPlanLine(line)).toBe(legacyCleanPlanLine(line));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('the same lines as before on the shapes models write', () => {
    const replies = [
      "Rents: [car_type, car_name = getcarsavailable(#city='Warsaw', #start_date='2019-03-07')]",
      "1. **Hotels: [ hotel = searchhotel(#city='Paris') ]** ;",
      "[weather = Weather_getweather(#city='Oslo')] ",
      "weather = Weather_getweather(#city='Oslo')",
      '__Rents: [x = f(#a=[1])]__',
      'Rents: [x = f(#a=b)] trailing',
      '**Rents:**\n[car_type = reservecar(#car_type=car_type)]',
      'Rents: [x = f(#a=b)\r)]',
      'Rents: [x = f(#a=b)\u2028)]',
      '[ =Foo_x()]',
      'Note: [a = b] (c)]',
    ];
    for (const reply of replies) expect(extractPlanLines(reply)).toBe(legacyExtractPlanLines(reply));
  });
});
