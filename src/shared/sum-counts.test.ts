import { describe, expect, it } from 'vitest';
import { sumCounts, zeroCounts } from './sum-counts.js';

describe('sumCounts', () => {
  it('sums each field over the records, in the order of the keys', () => {
    const list = [
      { hit: 2, miss: 1, extra: 0 },
      { miss: 4, hit: 0.5, extra: 3 },
      { hit: 7, miss: 0, extra: 1 },
    ];
    const total = sumCounts(list, ['hit', 'miss', 'extra'] as const);
    expect(total).toEqual({ hit: 9.5, miss: 5, extra: 4 });
    expect(Object.keys(total)).toEqual(['hit', 'miss', 'extra']);
  });

  it('gives zeros for no records, and ignores fields not listed', () => {
    expect(sumCounts<'a' | 'b'>([], ['a', 'b'])).toEqual({ a: 0, b: 0 });
    const wider = [{ a: 1, b: 5 }];
    expect(sumCounts(wider, ['a'] as const)).toEqual({ a: 1 });
    expect(zeroCounts(['x', 'y'] as const)).toEqual({ x: 0, y: 0 });
  });
});
