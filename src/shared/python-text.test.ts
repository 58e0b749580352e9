import { describe, expect, it } from 'vitest';
import { pyStrip } from './python-text.js';

describe('pyStrip', () => {
  it('returns text that starts and ends with printable ASCII as it is', () => {
    expect(pyStrip("#city='San Jose'")).toBe("#city='San Jose'");
    expect(pyStrip('a')).toBe('a');
    expect(pyStrip('')).toBe('');
  });
  it("strips Python's whitespace set on either end, also when only one end has it", () => {
    expect(pyStrip('\u00a0x y')).toBe('x y');
    expect(pyStrip('x y\u2029')).toBe('x y');
    expect(pyStrip(' \t ')).toBe('');
    expect(pyStrip('é ')).toBe('é');
  });
});
