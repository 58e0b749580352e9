import { describe, expect, it } from 'vitest';
import { TermTable } from './term-table.js';

describe('TermTable', () => {
  const vocab = ['hotel', 'city', 'café', 'crème', 'naïve', '東京', 'a', 'ab', 'ba'];
  const table = TermTable.build(vocab);

  it('finds every term at its id, ASCII or not', () => {
    vocab.forEach((t, id) => {
      expect(table.get(t)).toBe(id);
    });
    expect(table.size).toBe(9);
  });

  it('misses absent terms, prefixes and same-length neighbours', () => {
    for (const t of ['hotels', 'hote', 'cafe', 'caf', 'b', 'abc', '東', '', 'CITY'])
      expect(table.get(t)).toBeUndefined();
  });

  it('round-trips through its arrays (as an index file stores them) and lists the terms in id order', () => {
    const { slots, offsets, bytes } = table.arrays;
    expect(slots.length).toBe(32); // smallest power of two ≥ 2 × 9
    expect(offsets[offsets.length - 1]).toBe(bytes.length);
    const copy = new TermTable({ slots: slots.slice(), offsets: offsets.slice(), bytes: bytes.slice() });
    expect(copy.terms()).toEqual(vocab);
    expect(copy.get('crème')).toBe(3);
  });

  it('an empty vocabulary finds nothing', () => {
    expect(TermTable.build([]).get('x')).toBeUndefined();
  });
});
