import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { indexCatalog, loadCatalog } from '../../../catalog/index.js';
import { appRegistry, dispatchCall } from '../../../exec/index.js';
import { toolHandler } from '../../../tools/tool.js';
import { registerBuiltinPlugins } from '../../builtin.js';
import { calculate, calculatorTool, MAX_EXPRESSION_CHARS, MAX_INT_DIGITS } from './calculator.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

/**
 * Issue 24, row 8: Calculator expressions whose cost grew without bound (`perm(10**3000, 5000)`
 * never ended; `round(1, -(10**8))` and `(-3)**(10**8)` held the main thread 4–20 s), and the
 * evaluation ran on the main thread, where `dispatchCall`'s time limit could not fire. Each attack
 * goes through dispatchCall with a time limit and must end, coded, well within it.
 */

const dir = mkdtempSync(join(tmpdir(), 'apiary-calc-attacks-'));
const tool = calculatorTool();
afterAll(async () => {
  await tool.dispose?.();
  rmSync(dir, { recursive: true, force: true });
});
const catalog = indexCatalog(loadCatalog('gta'));
const apps = appRegistry([toolHandler(tool, { outputDir: dir, readable: [] })]);
const calc = (expression: string, timeoutMs: number, signal?: AbortSignal) =>
  dispatchCall(
    { app: 'Calculator', api: 'Calculator', args: { expression } },
    { catalog, apps, timeoutMs, ...(signal ? { signal } : {}) },
  );

/** Attacks too long to be their own test titles. */
const LONG: Record<string, string> = {
  '1+1+… (10,002 characters)': '1+'.repeat(5001),
  '((((…1…)))) 4000 deep': `${'('.repeat(4000)}1${')'.repeat(4000)}`,
};

const tooLarge = (what: string) =>
  `Calculator: OverflowError: integer result too large: ${what} would have more than 10000 digits (the calculator's limit)`;

/** Counts the ticks of a 10 ms timer on this thread while `work` runs. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const t0 = performance.now();
  try {
    const value = await work();
    return { value, ticks, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

// Each term is a Euclid on a 33,000-bit and a 31,700-bit integer (both within the size cap):
// about 0.1 s each here, so 120 of them run for many seconds.
const RUNAWAY = `${'gcd(2**33000-1, 3**20000-1)+'.repeat(120)}0`;

describe('Calculator attacks (issue 24, row 8)', () => {
  it('the limit is 10,000 digits and the expression 10,000 characters', () => {
    expect([MAX_INT_DIGITS, MAX_EXPRESSION_CHARS]).toEqual([10_000, 10_000]);
  });

  it.each([
    ['perm(10**3000, 5000)', tooLarge('perm()')],
    ['(-3)**(10**8)', tooLarge('**')],
    ['pow(-3, 10**8)', tooLarge('pow()')],
    ['comb(10**3000, 5000)', tooLarge('comb()')],
    ['comb(10**15, 5*10**14)', tooLarge('comb()')],
    ['perm(10**15)', tooLarge('perm()')],
    ['factorial(10**8)', tooLarge('factorial()')],
    ['factorial(3249)', tooLarge('factorial()')],
    // As intermediates (a printed result over the limit is Python's ValueError, calculator.test.ts).
    ['lcm(10**5000+1, 10**5000+3) % 7', tooLarge('lcm()')],
    ['10**5000 * 10**5000 % 7', tooLarge('*')],
    ['(-2)**33220 % 7', tooLarge('**')],
    [
      '1+1+… (10,002 characters)',
      `Calculator: SyntaxError: the expression has 10002 characters (the calculator's limit is 10000)`,
    ],
    ['((((…1…)))) 4000 deep', 'Calculator: RecursionError: the expression is nested too deeply'],
  ])('refuses %s at once, naming the function and the limit', async (label, message) => {
    const expression = LONG[label] ?? label;
    const outcome = await calc(expression, 5000);
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'TOOL_FAILED', appCode: 'TOOL_FAILED', message },
    });
    expect(outcome.durationMs).toBeLessThan(2000);
  });

  it.each([
    ['round(1, -(10**8))', '0'],
    ['round(-7, -(10**9))', '0'],
    ['round(123456, -3)', '123000'],
    ['round(1.5, -400)', '0.0'],
    ['(-1)**(10**100)', '1'],
    ['isqrt(10**300)', `1${'0'.repeat(150)}`],
  ])('computes %s quickly where Python gives the same answer', async (expression, text) => {
    const outcome = await calc(expression, 5000);
    expect(outcome).toMatchObject({ ok: true, content: [{ type: 'text', text }] });
    expect(outcome.durationMs).toBeLessThan(2000);
  });

  it('results up to the limit still compute: 2**33219 has 10,000 digits, factorial(3248) 9,998', () => {
    // Python prints at most 4,300 digits, so these big values are checked through a smaller result
    // (each expected value is what /usr/bin/python3 prints).
    expect(calculate('2**33219 // 2**33218')).toBe('2');
    expect(calculate('factorial(3248) // factorial(3247)')).toBe('3248');
    expect(calculate('comb(20000, 10000) % 1000')).toBe('640');
    // operands beyond float range are sized from their leading bits
    expect(calculate('comb(10**3000, 3) // 10**8990')).toBe('1666666666');
    expect(calculate('perm(10**400, 3)')).toHaveLength(1_200);
  });

  it("a runaway expression is stopped at the call's time limit while this thread goes on", async () => {
    const { value: outcome, ticks, ms } = await ticksDuring(() => calc(RUNAWAY, 1000));
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', message: 'no answer within 1000 ms' },
    });
    expect(ms).toBeLessThan(1500);
    // a 10 ms timer fired all along (on the main thread it would not have fired once)
    expect(ticks).toBeGreaterThan(40);
    // the thread that ran it was ended; the next call gets a fresh one
    expect(await calc('4+8', 5000)).toMatchObject({ ok: true, content: [{ type: 'text', text: '12' }] });
  });

  it("the caller's cancellation stops a runaway expression at once", async () => {
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 200);
    const { value: outcome, ticks, ms } = await ticksDuring(() => calc(RUNAWAY, 30_000, ctrl.signal));
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'CANCELLED', message: 'Calculator.Calculator was cancelled during the call' },
    });
    expect(ms).toBeLessThan(700);
    expect(ticks).toBeGreaterThan(5);
    expect(await calc('2**10', 5000)).toMatchObject({ ok: true, content: [{ type: 'text', text: '1024' }] });
  });

  it('the tool itself rejects with a coded error when its signal aborts mid-run', async () => {
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(new Error('deadline')), 100);
    await expect(
      tool.run({ expression: RUNAWAY }, { outputDir: dir, readable: [], signal: ctrl.signal }),
    ).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: 'Calculator: stopped (deadline); its worker thread was ended',
    });
  });
});

/** Random nested expressions over every function with a size check, with small and huge operands. */
const operand = fc.oneof(
  fc.integer({ min: -50, max: 50 }).map(String),
  fc.integer({ min: 0, max: 4000 }).map(String),
  fc.integer({ min: 1, max: 12 }).map((k) => `10**${10 ** (k % 5) * k}`),
  fc.integer({ min: 1, max: 9 }).map((k) => `(-3)**(10**${k})`),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((x) => `(${x})`),
);
const expression: fc.Arbitrary<string> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    operand,
    fc
      .tuple(tie('node'), fc.constantFrom('+', '-', '*', '/', '//', '%', '**'), tie('node'))
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc
      .tuple(fc.constantFrom('comb', 'perm', 'gcd', 'lcm', 'round', 'pow'), tie('node'), tie('node'))
      .map(([f, a, b]) => `${f}(${a}, ${b})`),
    fc
      .tuple(fc.constantFrom('factorial', 'isqrt', 'abs', 'int', 'sqrt', 'log', 'perm'), tie('node'))
      .map(([f, a]) => `${f}(${a})`),
  ),
})).node;

describe('Calculator cost (property)', () => {
  it('any nested expression ends, with a value or a coded error, within 2 s', () => {
    fc.assert(
      fc.property(expression, (e) => {
        const t0 = performance.now();
        try {
          calculate(e);
        } catch (error) {
          expect((error as { code?: string }).code).toBe('TOOL_FAILED');
        }
        expect(performance.now() - t0).toBeLessThan(2000);
      }),
      { numRuns: 300, seed: 24 },
    );
  });
});
