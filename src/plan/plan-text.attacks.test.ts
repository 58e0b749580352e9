import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanParseError } from './plan-parse-error.js';
import { parsePlanText } from './plan-text.js';

/** Milliseconds `f` takes (the attacks are synchronous: a vitest timeout could not stop them). */
function timed(f: () => void): number {
  const start = performance.now();
  f();
  return performance.now() - start;
}

const manyArgs = (n: number, value = (i: number) => String(i)) =>
  Array.from({ length: n }, (_, i) => `#a${i}=${value(i)}`).join(', ');

describe('parsePlanText attacks (plan text comes from the model)', () => {
  it('a call with 50,000 arguments is read in linear time (the duplicate check was quadratic: 25 s)', () => {
    // 20,000 first: over a second before, so that the old code fails here quickly
    const smaller = `Rents: [x = f(${manyArgs(20_000)})]`;
    expect(timed(() => parsePlanText(smaller))).toBeLessThan(400);
    const line = `Rents: [x = f(${manyArgs(50_000)})]`;
    let steps: ReturnType<typeof parsePlanText>['plan']['steps'] = [];
    expect(timed(() => (steps = parsePlanText(line).plan.steps))).toBeLessThan(1500);
    expect(Object.keys(steps[0]!.args)).toHaveLength(50_000);
    expect(steps[0]!.args.a49999).toEqual({ kind: 'literal', value: 49_999 });
  });

  it('a duplicate among 50,000 arguments is still found, with its name and column', () => {
    const args = `${manyArgs(50_000)}, #a123=7`;
    const line = `Rents: [x = f(${args})]`;
    let error: unknown;
    expect(
      timed(() => {
        try {
          parsePlanText(line, { source: 'reply.txt' });
        } catch (e) {
          error = e;
        }
      }),
    ).toBeLessThan(1500);
    expect(error).toBeInstanceOf(PlanParseError);
    expect((error as PlanParseError).code).toBe('PLAN_PARSE');
    expect((error as PlanParseError).message).toBe(
      `reply.txt:1:${line.length - 2}: argument "a123" given twice`,
    );
  });

  it('1 MB lines of the worst shapes each parse (or fail) well under 2 s', () => {
    const mb = 1 << 20;
    const lines = [
      `Rents: [x = f(#a='${"'".repeat(mb)})]`,
      `Rents: [x = f(#a='${"' ".repeat(mb / 2)})]`,
      `Rents: [x = f(#a='${"', #b".repeat(mb / 5)})]`,
      `Rents: [x = f(${' '.repeat(mb)})]`,
      `Rents: [${'a,'.repeat(mb / 2)}a = f()]`,
      `Rents: [x = f(${'#a=1, '.repeat(mb / 6)})]`,
      `Rents: [x = f${'('.repeat(mb)}]`,
      'Rents: [x = f()]\n'.repeat(mb / 17),
    ];
    for (const text of lines)
      expect(
        timed(() => {
          try {
            parsePlanText(text, { lenient: true });
          } catch (e) {
            expect(e).toBeInstanceOf(PlanParseError);
          }
        }),
      ).toBeLessThan(2000);
  });

  it('property: plan-like text up to 1 MB parses (or is refused with PLAN_PARSE) under 2 s', () => {
    const fragment = fc.constantFrom(
      'Rents: [',
      ']',
      'x = ',
      'f(',
      ')',
      '#a=',
      "'v'",
      "'",
      ', ',
      '#b=s1.x',
      '?',
      '$clipboard',
      ' ',
      '\n',
      '=',
      '(',
      "Rents: [x = f(#a='v', #b=x)]\n",
    );
    fc.assert(
      fc.property(
        fc.array(fragment, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.boolean(),
        (parts, times, lenient) => {
          const text = parts
            .join('')
            .repeat(times)
            .slice(0, 1 << 20);
          const ms = timed(() => {
            try {
              parsePlanText(text, { lenient });
            } catch (e) {
              expect(e).toBeInstanceOf(PlanParseError);
            }
          });
          expect(ms).toBeLessThan(2000);
        },
      ),
      { numRuns: 20 },
    );
  }, 60_000);
});
