import { describe, expect, it } from 'vitest';
import { meanWithCi, passRates } from './epoch-stats.js';
import { studentTCdf, studentTQuantile } from './student-t.js';

describe('Student t', () => {
  it('gives the 97.5% quantiles of the t table', () => {
    // df = 1 and 2 have closed forms: tan(0.475π) and 0.95·sqrt(2 / (4·0.975·0.025))
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(Math.tan(0.475 * Math.PI), 10);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(0.95 * Math.sqrt(2 / (4 * 0.975 * 0.025)), 10);
    // table values (4 decimals)
    expect(studentTQuantile(0.975, 4)).toBeCloseTo(2.7764, 4);
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.2622, 4);
    expect(studentTQuantile(0.975, 29)).toBeCloseTo(2.0452, 4);
    expect(studentTQuantile(0.975, 1000)).toBeCloseTo(1.9623, 4);
    expect(studentTQuantile(0.025, 4)).toBeCloseTo(-2.7764, 4);
    expect(studentTCdf(0, 7)).toBe(0.5);
  });

  it('mean ± half-width: none with one value; t·s/√k otherwise', () => {
    expect(meanWithCi([0.4])).toEqual({ mean: 0.4, ci95: null, perEpoch: [0.4] });
    // 0.75, 0.5, 0.5: mean 7/12, s² = (1/36 + 1/144 + 1/144) / 2 = 1/48, s/√3 = 1/12
    const m = meanWithCi([0.75, 0.5, 0.5]);
    expect(m.mean).toBeCloseTo(7 / 12, 15);
    expect(m.ci95!).toBeCloseTo((0.95 * Math.sqrt(2 / (4 * 0.975 * 0.025))) / 12, 10);
  });

  it('pass^k and pass@k count only samples run in all k epochs', () => {
    const runs = new Map([
      [
        'a',
        new Map([
          [1, true],
          [2, true],
        ]),
      ],
      [
        'b',
        new Map([
          [1, true],
          [2, false],
        ]),
      ],
      [
        'c',
        new Map([
          [1, false],
          [2, false],
        ]),
      ],
      ['d', new Map([[1, true]])],
    ]);
    expect(passRates(runs, 2)).toEqual({ k: 2, samples: 3, passHatK: 1 / 3, passAtK: 2 / 3 });
  });
});
