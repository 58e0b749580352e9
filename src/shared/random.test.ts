import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32, randInt, sampleWithoutReplacement, shuffled } from './random.js';

describe('mulberry32', () => {
  it('matches an independent implementation (Python, same algorithm) for seed 7', () => {
    const r = mulberry32(7);
    expect([r(), r(), r()]).toEqual([0.011704753153026104, 0.06195825757458806, 0.97690763277933]);
  });

  it('gives the same stream for the same seed and values in [0, 1)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (seed) => {
        const a = mulberry32(seed);
        const b = mulberry32(seed);
        for (let i = 0; i < 20; i++) {
          const x = a();
          expect(x).toBe(b());
          expect(x >= 0 && x < 1).toBe(true);
        }
      }),
    );
  });
});

describe('shuffled / sampleWithoutReplacement', () => {
  it('keep every item exactly once and draw distinct items', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 30 }), fc.nat(), fc.nat({ max: 40 }), (xs, seed, n) => {
        const s = shuffled(xs, mulberry32(seed));
        expect([...s].sort((a, b) => a - b)).toEqual([...xs].sort((a, b) => a - b));
        const idx = xs.map((_, i) => i);
        const picked = sampleWithoutReplacement(idx, n, mulberry32(seed));
        expect(picked).toHaveLength(Math.min(n, xs.length));
        expect(new Set(picked).size).toBe(picked.length);
      }),
    );
  });

  it('draws in a fixed order: shuffling [a, b, c] with seed 7 uses randInt(3) then randInt(2)', () => {
    // draws 0.0117 → j = 0 (swap a, c), 0.0620 → j = 0 (swap c, b): [b, c, a]
    expect(shuffled(['a', 'b', 'c'], mulberry32(7))).toEqual(['b', 'c', 'a']);
    const r = mulberry32(7);
    expect([randInt(r, 3), randInt(r, 2), randInt(r, 10)]).toEqual([0, 0, 9]);
  });
});
