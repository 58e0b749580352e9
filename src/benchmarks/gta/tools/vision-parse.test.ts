import { describe, expect, it } from 'vitest';
import { parseBboxArg, parseCount, parseLatex, pyFormat0f } from './vision-parse.js';

describe('vision reply parsing', () => {
  it("formats like Python's '{:.0f}' (half to even)", () => {
    expect([0.5, 1.5, 2.5, 87.5, 2.6, -0.4, 12].map(pyFormat0f)).toEqual([
      '0',
      '2',
      '2',
      '88',
      '3',
      '-0',
      '12',
    ]);
  });

  it('reads counts from digits (not decimals), thousands and number words', () => {
    expect(parseCount('3')).toBe(3);
    expect(parseCount('Count: 1,250 birds')).toBe(1250);
    expect(parseCount('about 2.5 on average, so 4')).toBe(4);
    expect(parseCount('Seven.')).toBe(7);
    expect(parseCount('There are none.')).toBe(0);
    expect(parseCount('unclear')).toBeUndefined();
  });

  it('strips fences and one pair of math delimiters', () => {
    expect(parseLatex('$x^2$')).toBe('x^2');
    expect(parseLatex('\\[ a+b \\]')).toBe('a+b');
    expect(parseLatex('```\n\\sqrt{2}\n```')).toBe('\\sqrt{2}');
    expect(parseLatex('a $b$ c')).toBe('a $b$ c');
  });

  it('reads a bbox argument as four truncated numbers', () => {
    expect(parseBboxArg('(1.9, 2, 30.2, 40)')).toEqual([1, 2, 30, 40]);
    expect(parseBboxArg('[1, 2, 3]')).toBeUndefined();
  });
});
