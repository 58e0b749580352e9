import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzTargets, mutate, outcomeOf } from '../perf/fuzz-targets.js';
import { mulberry32 } from './shared/index.js';

/*
 * Issue 13 item 12: every parser of untrusted text (plan text and JSON, model replies per protocol,
 * each benchmark's official files) returns or throws a typed ApiaryError, on random text and on
 * mutations of real inputs. perf/fuzz-parsers.ts runs 10,000 mutations per parser.
 */

/** The message of a crash, with the input, so a failure says what broke. */
function crashOf(target: ReturnType<typeof fuzzTargets>[number], text: string): string | null {
  const r = outcomeOf(target, text);
  if (r.outcome !== 'crash') return null;
  return `${String((r.error as Error)?.stack ?? r.error)
    .split('\n')
    .slice(0, 2)
    .join(' ')} on ${JSON.stringify(text.slice(0, 200))}`;
}

describe('parsers of untrusted text never crash', () => {
  for (const target of fuzzTargets()) {
    // parsers that read through a file cost ~2 ms a call: fewer runs keep the suite fast
    const runs = target.name.startsWith('reply') || target.name.startsWith('plan') ? 300 : 40;
    it(`${target.name}: random text and mutated real inputs give a result or an ApiaryError`, () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
          expect(crashOf(target, text)).toBeNull();
        }),
        { numRuns: runs, seed: 13 },
      );
      fc.assert(
        fc.property(fc.nat({ max: target.seeds.length - 1 }), fc.integer(), (which, seed) => {
          const text = mutate(target.seeds[which]!, mulberry32(seed));
          expect(crashOf(target, text)).toBeNull();
        }),
        { numRuns: runs, seed: 13 },
      );
    });
  }

  it('deep nesting is a typed error, not a stack overflow (found by this fuzzing: parsePyJson recursed)', () => {
    const inputs = [
      '['.repeat(100_000) + ']'.repeat(100_000),
      `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
    ];
    const crashes = fuzzTargets().flatMap((t) =>
      inputs.map((text) => [t.name, crashOf(t, text)] as const).filter(([, c]) => c !== null),
    );
    expect(crashes).toEqual([]);
  });

  it('the seeds themselves parse (the mutations start from valid inputs)', () => {
    const failing = fuzzTargets()
      .flatMap((t) => t.seeds.map((s, i) => [t.name, i, outcomeOf(t, s).outcome] as const))
      .filter(([, , o]) => o !== 'ok');
    expect(failing).toEqual([]);
  });
});
