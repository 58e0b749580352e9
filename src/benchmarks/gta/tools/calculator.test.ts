import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { calculate, calculatorTool } from './calculator.js';

describe('calculate (a Python expression, printed as Python str() prints it)', () => {
  it.each([
    ['4+8', '12'],
    ['3.5*60', '210.0'],
    ['16*0.75', '12.0'],
    ['2.5+4', '6.5'],
    ['0.1+0.2', '0.30000000000000004'],
    ['2**2', '4'],
    ['2**100', '1267650600228229401496703205376'],
    ['-2**2', '-4'],
    ['2**-1', '0.5'],
    ['7/2', '3.5'],
    ['4/2', '2.0'],
    ['7//2', '3'],
    ['-7//2', '-4'],
    ['7.0//2', '3.0'],
    ['4.//2', '2.0'],
    ['-7%3', '2'],
    ['7%-3', '-2'],
    ['-7.5%2', '0.5'],
    ['(1+2)*3', '9'],
    ['math.sqrt(16)', '4.0'],
    ['sqrt(2)', '1.4142135623730951'],
    ['math.pi', '3.141592653589793'],
    ['math.e', '2.718281828459045'],
    ['round(2.5)', '2'],
    ['round(3.5)', '4'],
    ['round(-0.5)', '0'],
    ['round(0.125, 2)', '0.12'],
    ['round(2.675, 2)', '2.67'],
    ['round(1234.5, -2)', '1200.0'],
    ['round(7)', '7'],
    ['abs(-3)', '3'],
    ['abs(-2.5)', '2.5'],
    ['max(1, 2.5)', '2.5'],
    ['min([4, 2, 9])', '2'],
    ['sum([1, 2, 3])', '6'],
    ['math.factorial(20)', '2432902008176640000'],
    ['math.gcd(12, 18)', '6'],
    ['math.comb(5, 2)', '10'],
    ['math.floor(2.7)', '2'],
    ['math.ceil(2.1)', '3'],
    ['int(7.9)', '7'],
    ['float(3)', '3.0'],
    ['math.log(100, 10)', '2.0'],
    ['math.log10(1000)', '3.0'],
    ['1e16', '1e+16'],
    ['1e-5', '1e-05'],
    ['1/3', '0.3333333333333333'],
    ['10**21*1.0', '1e+21'],
    ['math.inf', 'inf'],
    ['1e308*10', 'inf'],
    ['50% + 1', '0'],
    ['10%3', '1'],
    ['2 ** 3 ** 2', '512'],
    ['-0.0', '-0.0'],
  ])('%s → %s', (expression, expected) => {
    expect(calculate(expression)).toBe(expected);
  });

  it.each([
    ['__import__("os")', "NameError: name '__import__' is not defined"],
    ["__import__('os').system('ls')", 'NameError'],
    ['eval("1+1")', "NameError: name 'eval' is not defined"],
    ['open("/etc/passwd")', "NameError: name 'open' is not defined"],
    ['(1).__class__', 'AttributeError'],
    ['x = 1', 'SyntaxError: "=" is not allowed'],
    ['1; 2', 'SyntaxError: ";" is not allowed'],
    ['2^3', 'SyntaxError: "^" is not allowed'],
    ['5 cm', 'SyntaxError: missing operator in "5 cm"'],
    ['"abc"', 'TypeError: only numbers are allowed'],
    ['1/0', 'ZeroDivisionError: division by zero'],
    ['5//0', 'ZeroDivisionError: integer division or modulo by zero'],
    ['math.sqrt(-1)', 'ValueError: math domain error'],
    ['10**10**10', 'OverflowError: integer result too large'],
    ['import os', 'SyntaxError'],
    ['50%', 'SyntaxError: "%" needs a right operand (no per cent in Python)'],
    ['3 mod 2', 'SyntaxError: operator "mod" is not supported'],
    ['max([])', 'ValueError: max() arg is an empty sequence'],
    ['math.exp(1000)', 'OverflowError: math range error'],
  ])('refuses %s', (expression, message) => {
    expect(() => calculate(expression)).toThrow(message);
    try {
      calculate(expression);
    } catch (e) {
      expect((e as { code: string }).code).toBe('TOOL_FAILED');
    }
  });

  // Each expected value is what /usr/bin/python3 (3.11) prints for `print(<expression>)`.
  it.each([
    ['True+1', '2'],
    ['True', 'True'],
    ['False*2', '0'],
    ['-True', '-1'],
    ['True/2', '0.5'],
    ['max(True, False)', 'True'],
    ['divmod(7,2)', '(3, 1)'],
    ['divmod(-7,2)', '(-4, 1)'],
    ['divmod(7.5,2)', '(3.0, 1.5)'],
    ['(1,2)', '(1, 2)'],
    ['(1,)', '(1,)'],
    ['()', '()'],
    ['(1, )', '(1,)'],
    ['( )', '()'],
    ['max (1,2)', '2'],
    ['(1+2)', '3'],
    ['[1,(2,3)]', '[1, (2, 3)]'],
    ['sum((1,2))', '3'],
  ])('prints %s as Python 3 does: %s', (expression, printed) => {
    expect(calculate(expression)).toBe(printed);
  });

  const STR_LIMIT =
    'Calculator: ValueError: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit';
  it.each([
    ['2**100000', STR_LIMIT], // over our 10 000-digit limit, but Python computes it and fails printing
    ['-(2**100000)', STR_LIMIT],
    ['10**4300', STR_LIMIT], // 4 301 digits
    ['divmod(7.0,0)', 'Calculator: ZeroDivisionError: float divmod()'],
    ['divmod(7,0)', 'Calculator: ZeroDivisionError: integer division or modulo by zero'],
    // An intermediate over the limit is still refused: its printed result could be small.
    [
      '2**100000 % 7',
      "Calculator: OverflowError: integer result too large: ** would have more than 10000 digits (the calculator's limit)",
    ],
    ['$tuple(1,2)', 'Calculator: SyntaxError: "$" is not allowed'],
  ])('fails %s as Python 3 does (within the containment limits)', (expression, message) => {
    expect(() => calculate(expression)).toThrow(message);
  });

  it('prints an int of exactly 4300 digits', () => {
    expect(calculate('10**4299')).toBe(`1${'0'.repeat(4299)}`);
  });

  it('runs as a tool: a text part, and a non-string expression is a tool error', async () => {
    const tool = calculatorTool();
    expect(await tool.run({ expression: '2.5+4' }, { outputDir: '/nonexistent', readable: [] })).toEqual([
      { type: 'text', text: '6.5' },
    ]);
    await expect(tool.run({ expression: 3 }, { outputDir: '/nonexistent', readable: [] })).rejects.toThrow(
      'Calculator: "expression" must be a string',
    );
  });
});

describe('the authored GTA fixtures', () => {
  it("give every gold Calculator return for the step's expression", () => {
    const file = join(import.meta.dirname, '../__fixtures__/data/dataset.json');
    const dataset = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { dialogs: Dialog[] }>;
    const pairs = Object.values(dataset).flatMap(({ dialogs }) =>
      dialogs.flatMap((d, i) => {
        const call = d.tool_calls?.[0]?.function;
        if (call?.name !== 'Calculator') return [];
        return [[String(call.arguments.expression), dialogs[i + 1]?.content?.content]];
      }),
    );
    expect(pairs).toEqual([
      ['4+8', '12'],
      ['3.5*60', '210.0'],
      ['2.5+4', '6.5'],
      ['16*0.75', '12.0'],
    ]);
    for (const [expression, gold] of pairs) expect(calculate(expression as string)).toBe(gold);
  });
});

interface Dialog {
  tool_calls?: Array<{ function: { name: string; arguments: Record<string, unknown> } }>;
  content?: { content?: string };
}
