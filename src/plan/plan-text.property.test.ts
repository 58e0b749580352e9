import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlanParseError } from './plan-parse-error.js';
import { parsePlanText, printPlanText, withPositionalIds } from './plan-text.js';
import { type ArgValue, type Plan, type Step, SYSTEM_INPUTS } from './schema.js';

const ident = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,7}$/);
const text = fc.string({ unit: 'grapheme', maxLength: 20 });

/** Random valid plans: references only point at outputs of earlier steps. */
const planArb: fc.Arbitrary<Plan> = fc
  .array(
    fc.tuple(
      ident,
      ident,
      fc.uniqueArray(ident, { maxLength: 3 }),
      fc.uniqueArray(ident, { minLength: 0, maxLength: 4 }),
    ),
    {
      minLength: 1,
      maxLength: 5,
    },
  )
  .chain((shapes) =>
    fc
      .tuple(
        ...shapes.map(([, , , keys], i) =>
          fc.tuple(
            ...keys.map(() =>
              fc.oneof(
                text.map((v): ArgValue => ({ kind: 'literal', value: v })),
                fc.integer({ min: -1000, max: 1000 }).map((v): ArgValue => ({ kind: 'literal', value: v })),
                fc.boolean().map((v): ArgValue => ({ kind: 'literal', value: v })),
                fc.constant<ArgValue>({ kind: 'ask' }),
                text.map((p): ArgValue => ({ kind: 'ask', prompt: p })),
                fc.constantFrom(...SYSTEM_INPUTS).map((source): ArgValue => ({ kind: 'system', source })),
                fc.nat({ max: 10 }).map((n): ArgValue => {
                  const earlier = shapes
                    .slice(0, i)
                    .flatMap(([, , outs], j) => outs.map((o) => [j, o] as const));
                  if (earlier.length === 0) return { kind: 'literal', value: 'x' };
                  const [j, o] = earlier[n % earlier.length]!;
                  return { kind: 'ref', step: `s${j + 1}`, output: o };
                }),
              ),
            ),
          ),
        ),
      )
      .map((valuesPerStep) => ({
        steps: shapes.map(
          ([app, api, outputs, keys], i): Step => ({
            id: `s${i + 1}`,
            app,
            api,
            outputs,
            args: Object.fromEntries(keys.map((k, j) => [k, (valuesPerStep[i] as ArgValue[])[j]!])),
          }),
        ),
      })),
  );

const onlyTypedErrors = (input: string, lenient: boolean) => {
  try {
    parsePlanText(input, { lenient });
  } catch (e) {
    if (!(e instanceof PlanParseError)) throw e;
  }
};

describe('MetaBench text format properties', () => {
  it('print then parse gives back an equal plan', () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        expect(parsePlanText(printPlanText(plan)).plan).toEqual(withPositionalIds(plan));
      }),
      { numRuns: 500 },
    );
  });

  it('never throws anything but PlanParseError on random text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.boolean(), (s, lenient) =>
        onlyTypedErrors(s, lenient),
      ),
      { numRuns: 2000 },
    );
  });

  it('never throws anything but PlanParseError on mutated valid plans', () => {
    const mutated = fc
      .tuple(
        planArb,
        fc.array(
          fc.tuple(
            fc.nat(),
            fc.nat({ max: 2 }),
            fc.constantFrom("'", ',', '(', ')', '[', ']', '=', '#', ':', '\\', '\n', '$', '?', ' ', 'x'),
          ),
          { maxLength: 6 },
        ),
      )
      .map(([plan, edits]) => {
        let s = printPlanText(plan);
        for (const [pos, op, ch] of edits) {
          const at = s.length ? pos % s.length : 0;
          if (op === 0) s = s.slice(0, at) + ch + s.slice(at);
          else if (op === 1) s = s.slice(0, at) + s.slice(at + 1);
          else s = s.slice(0, at);
        }
        return s;
      });
    fc.assert(
      fc.property(mutated, fc.boolean(), (s, lenient) => onlyTypedErrors(s, lenient)),
      { numRuns: 2000 },
    );
  });
});
