/**
 * Feeds seeded mutations of real inputs to every parser of untrusted text and counts how each call
 * ended: a result, a typed ApiaryError, or a crash (any other exception; must be 0).
 *
 *   npx tsx perf/fuzz-parsers.ts [mutations per parser, default 10000] [seed, default 1]
 *
 * Exit status 1 when a parser crashed; the first crashing input of each parser is printed.
 */
import { mulberry32 } from '../src/shared/index.js';
import { fuzzTargets, mutate, type Outcome, outcomeOf } from './fuzz-targets.js';

const runs = Number(process.argv[2] ?? 10_000);
const seed = Number(process.argv[3] ?? 1);
let crashes = 0;
console.log(`${runs} seeded mutations per parser (seed ${seed})`);
console.log(
  `${'parser'.padEnd(36)} ${'ok'.padStart(6)} ${'typed'.padStart(6)} ${'crash'.padStart(6)} ${'ms'.padStart(7)}`,
);
for (const target of fuzzTargets()) {
  const rand = mulberry32(seed);
  const counts: Record<Outcome, number> = { ok: 0, typed: 0, crash: 0 };
  let firstCrash: { text: string; error: unknown } | undefined;
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) {
    const text = mutate(target.seeds[i % target.seeds.length]!, rand);
    const r = outcomeOf(target, text);
    counts[r.outcome]++;
    if (r.outcome === 'crash' && !firstCrash) firstCrash = { text, error: r.error };
  }
  const ms = performance.now() - t0;
  crashes += counts.crash;
  console.log(
    `${target.name.padEnd(36)} ${String(counts.ok).padStart(6)} ${String(counts.typed).padStart(6)} ${String(counts.crash).padStart(6)} ${ms.toFixed(0).padStart(7)}`,
  );
  if (firstCrash)
    console.log(
      `  first crash: ${String((firstCrash.error as Error)?.stack ?? firstCrash.error)
        .split('\n')
        .slice(0, 3)
        .join(' | ')}\n  input: ${JSON.stringify(firstCrash.text.slice(0, 300))}`,
    );
}
console.log(`crashes: ${crashes}`);
process.exitCode = crashes ? 1 : 0;
