import { createRequire } from 'node:module';
import type { FactoryFunctionMap, MathJsInstance, MathNode } from 'mathjs';
import type { ContentPart } from '../../../apps/index.js';
import { ApiaryError, pyFloatRepr } from '../../../shared/index.js';
import type { ExecutableTool } from '../../../tools/index.js';
import { toolThreads } from './tool-threads.js';

/**
 * GTA's Calculator: "a single Python expression, `math` available, no imports" (AgentLego's
 * Calculator `eval`s it with the math module in scope and prints `str(result)`). Here mathjs
 * parses the expression and a small tree walker evaluates only whitelisted nodes, operators,
 * names and functions, with Python's int/float semantics (ints exact as BigInt, `/` gives a
 * float, `//` and `%` floor, `round` rounds half to even) and Python's `str` of the result.
 * Nothing is ever evaluated as code.
 */

// A restricted mathjs instance, made on first use (loading mathjs takes longer than the whole CLI
// start, and most commands never calculate): literals become BigInt when integral (Python ints),
// floats otherwise. The functions that could run text as code or change the instance are replaced.
let restricted: { math: MathJsInstance; parse: MathJsInstance['parse'] } | undefined;
function mathjs(): { math: MathJsInstance; parse: MathJsInstance['parse'] } {
  if (restricted) return restricted;
  const { create, all } = createRequire(import.meta.url)('mathjs') as typeof import('mathjs');
  const math = create(all as FactoryFunctionMap, { number: 'bigint', numberFallback: 'number' });
  const parse = math.parse;
  const refuse = () => {
    throw new Error('disabled in the calculator');
  };
  math.import(
    {
      import: refuse,
      createUnit: refuse,
      evaluate: refuse,
      parse: refuse,
      compile: refuse,
      simplify: refuse,
      derivative: refuse,
      resolve: refuse,
      reviver: refuse,
    },
    { override: true },
  );
  restricted = { math, parse };
  return restricted;
}

/** A Python tuple (`(1, 2)`, `divmod`'s result): told apart from a list only by how it prints. */
interface PyTuple {
  tuple: PyValue[];
}
/** A Python value the calculator can produce: bool, int (BigInt), float, a list or a tuple. */
type PyValue = boolean | bigint | number | PyValue[] | PyTuple;

/** Python raises; the tool reports `<ErrorType>: <message>` as Python would print it. */
class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Every integer the calculator holds (literal, intermediate or result) has at most this many decimal
 * digits. Python 3.11+ refuses to print an int above 4,300 digits (`sys.int_info.default_max_str_digits`),
 * so every result the reference Calculator can print fits, with room for intermediates; and the
 * costliest BigInt operation on two such numbers (a product, a quotient, `toString`) takes well
 * under a millisecond, so an expression's cost is bounded by its length. Each function estimates
 * the size of its result first and refuses before computing (a product of 10^3000 × … 5000 factors
 * would otherwise run for minutes).
 */
export const MAX_INT_DIGITS = 10_000;
/** Longest expression read (a GTA expression is a few dozen characters); bounds the number of operations. */
export const MAX_EXPRESSION_CHARS = 10_000;
const INT_LIMIT = 10n ** BigInt(MAX_INT_DIGITS);

const isTuple = (v: PyValue): v is PyTuple => typeof v === 'object' && !Array.isArray(v);
function num(v: PyValue): number {
  if (Array.isArray(v)) throw new PyError('TypeError', 'a list is not a number');
  if (isTuple(v)) throw new PyError('TypeError', 'a tuple is not a number');
  return Number(v);
}
/** Python's bool is an int subclass: arithmetic on True/False is arithmetic on 1/0. */
const unbool = (v: PyValue): PyValue => (typeof v === 'boolean' ? BigInt(v) : v);
function isInt(v: PyValue): v is bigint {
  return typeof v === 'bigint';
}
const abs = (v: bigint) => (v < 0n ? -v : v);

/** Python's own limit on printing an int (`sys.int_info.default_max_str_digits`). */
const PY_MAX_STR_DIGITS = 4300;
const strLimit = () =>
  new PyError(
    'ValueError',
    `Exceeds the limit (${PY_MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`,
  );
/**
 * Results Python would still compute in moments (2**100000 has 30 103 digits) and then refuse to
 * print; beyond this, Python itself runs for minutes or out of memory, so our OverflowError stands.
 */
const PY_COMPUTABLE_DIGITS = 1_000_000;

/** An int over the calculator's limit; `digits` estimates its size (for deciding what Python would print). */
class TooLarge extends PyError {
  /** Set once the int is known to feed a further operation (whose result Python might print). */
  intermediate = false;
  constructor(
    what: string,
    readonly digits: number,
  ) {
    super(
      'OverflowError',
      `integer result too large: ${what} would have more than ${MAX_INT_DIGITS} digits (the calculator's limit)`,
    );
  }
}
function tooLarge(what: string, digits = 2 * MAX_INT_DIGITS): PyError {
  return new TooLarge(what, digits);
}
/** `v` when it has at most MAX_INT_DIGITS digits, else the OverflowError naming `what` made it. */
function checkedInt(v: bigint, what: string): bigint {
  if ((v < 0n ? -v : v) >= INT_LIMIT) throw tooLarge(what);
  return v;
}
/** log10 of a positive integer of any size (from its leading bits when it is beyond float range). */
function log10Of(n: bigint): number {
  const x = Number(n);
  if (Number.isFinite(x)) return Math.log10(x);
  const shift = n.toString(16).length * 4 - 960;
  return Math.log10(Number(n >> BigInt(shift))) + shift * Math.log10(2);
}
/**
 * Refuses before computing when an estimated result size is over the limit (a little slack for
 * rounding). `partial`: the estimate stopped counting at the limit (perm, comb, factorial), so the
 * true size is unknown and Python might not compute it at all.
 */
function refuseAbove(log10Estimate: number, what: string, partial = false): void {
  if (!(log10Estimate <= MAX_INT_DIGITS + 0.5))
    throw tooLarge(what, partial ? Number.POSITIVE_INFINITY : log10Estimate);
}
/** Python's math functions and `**` raise where float arithmetic (`*`, `+`) gives inf. */
function finiteFloat(x: number, message: string): number {
  if (!Number.isFinite(x)) throw new PyError('OverflowError', message);
  return x;
}

/** Python's floor division and modulo on ints (BigInt division truncates toward zero). */
function intFloorDiv(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new PyError('ZeroDivisionError', 'integer division or modulo by zero');
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}
function intMod(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new PyError('ZeroDivisionError', 'integer division or modulo by zero');
  const r = a % b;
  return r !== 0n && r < 0n !== b < 0n ? r + b : r;
}
function floatMod(a: number, b: number): number {
  if (b === 0) throw new PyError('ZeroDivisionError', 'float modulo');
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

function power(base: PyValue, exponent: PyValue, what = '**'): PyValue {
  const [a, b] = [unbool(base), unbool(exponent)];
  if (isInt(a) && isInt(b) && b >= 0n) {
    // 0, 1 and -1 stay small whatever the exponent; any other base grows with it (negative ones too).
    if (a === 0n) return b === 0n ? 1n : 0n;
    if (a === 1n) return 1n;
    if (a === -1n) return b % 2n === 0n ? 1n : -1n;
    refuseAbove(Number(b) * log10Of(abs(a)), what);
    return checkedInt(a ** b, what);
  }
  const x = num(a);
  const y = num(b);
  if (x === 0 && y < 0) throw new PyError('ZeroDivisionError', '0.0 cannot be raised to a negative power');
  if (x < 0 && !Number.isInteger(y))
    throw new PyError('ValueError', 'a negative number to a fractional power is complex');
  return finiteFloat(x ** y, 'power result too large');
}

function binary(op: string, left: PyValue, right: PyValue): PyValue {
  const [a, b] = [unbool(left), unbool(right)];
  switch (op) {
    case '+':
      return isInt(a) && isInt(b) ? checkedInt(a + b, '+') : num(a) + num(b);
    case '-':
      return isInt(a) && isInt(b) ? checkedInt(a - b, '-') : num(a) - num(b);
    case '*':
      return isInt(a) && isInt(b) ? checkedInt(a * b, '*') : num(a) * num(b);
    case '/': {
      if (num(b) === 0) throw new PyError('ZeroDivisionError', 'division by zero');
      return num(a) / num(b);
    }
    case './': // our spelling of Python's `//`
      if (isInt(a) && isInt(b)) return intFloorDiv(a, b);
      if (num(b) === 0) throw new PyError('ZeroDivisionError', 'float floor division by zero');
      return Math.floor(num(a) / num(b));
    case '%':
      return isInt(a) && isInt(b) ? intMod(a, b) : floatMod(num(a), num(b));
    case '^': // our spelling of Python's `**`
      return power(a, b);
    default:
      throw new PyError('SyntaxError', `operator "${op}" is not supported`);
  }
}

/** Python's round(): ties to even; round(x) is an int, round(x, n) keeps the type of x. */
function pyRound(x: PyValue, ndigits?: PyValue): PyValue {
  if (ndigits === undefined) {
    if (isInt(x)) return x;
    const v = num(x);
    if (!Number.isFinite(v)) throw new PyError('ValueError', 'cannot convert float to integer');
    const f = Math.floor(v);
    const diff = v - f;
    const r = diff > 0.5 || (diff === 0.5 && f % 2 !== 0) ? f + 1 : f;
    return BigInt(r);
  }
  if (!isInt(ndigits)) throw new PyError('TypeError', 'ndigits must be an integer');
  if (isInt(x)) {
    if (ndigits >= 0n) return x;
    // |x| < 10^digits ≤ unit / 10: rounds to 0 without building a huge power of ten.
    if (x === 0n || -ndigits > BigInt(abs(x).toString().length)) return 0n;
    const unit = 10n ** -ndigits;
    const q = intFloorDiv(x, unit);
    const rest = x - q * unit;
    const up = rest * 2n > unit || (rest * 2n === unit && q % 2n !== 0n);
    return (up ? q + 1n : q) * unit;
  }
  const n = Number(ndigits);
  const v = num(x);
  if (!Number.isFinite(v) || n > 300) return v;
  if (n <= 0) {
    const unit = 10 ** -n;
    if (!Number.isFinite(unit)) return v * 0; // Python's round(1.5, -400) is 0.0 (sign kept)
    return Number(pyRound(v / unit)) * unit;
  }
  const tie = exactTie(v, n);
  if (tie === undefined) return Number(v.toFixed(n)); // toFixed rounds the exact binary value
  const even = tie % 2n === 0n ? tie : tie + 1n;
  return (v < 0 ? -1 : 1) * Number(`${even}e-${n}`);
}

/**
 * When |v| × 10^n lies exactly halfway between two integers, the lower one (else undefined):
 * Python rounds such ties to even where toFixed rounds them up. v = M × 2^E exactly, so
 * v × 10^n = M × 5^n × 2^(n+E), a half-integer exactly when n + E = -1 with M odd.
 */
function exactTie(v: number, n: number): bigint | undefined {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(v));
  const bits = view.getBigUint64(0);
  const biased = Number(bits >> 52n);
  let m = bits & ((1n << 52n) - 1n);
  let e = biased === 0 ? -1074 : biased - 1075;
  if (biased !== 0) m |= 1n << 52n;
  if (m === 0n) return undefined;
  while ((m & 1n) === 0n) {
    m >>= 1n;
    e += 1;
  }
  if (n + e !== -1) return undefined;
  return (m * 5n ** BigInt(n) - 1n) / 2n;
}

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [abs(a), abs(b)];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}
/** lo × (lo+1) × … × hi, by halves so the big multiplications are few and balanced. */
function rangeProduct(lo: bigint, hi: bigint): bigint {
  if (lo > hi) return 1n;
  if (hi - lo < 16n) {
    let r = lo;
    for (let i = lo + 1n; i <= hi; i++) r *= i;
    return r;
  }
  const mid = (lo + hi) / 2n;
  return rangeProduct(lo, mid) * rangeProduct(mid + 1n, hi);
}

/** i ↦ log10(n − i) for 0 ≤ i < n, exact enough at any size (i is negligible beside an n beyond 2^53). */
function log10Minus(n: bigint): (i: number) => number {
  if (n < 2n ** 53n) return (i) => Math.log10(Number(n) - i);
  const log = log10Of(n);
  return () => log;
}
/** A loop bound: the count, or Infinity when it is beyond exact floats (the size check ends such loops). */
const steps = (k: bigint) => (k < 2n ** 53n ? Number(k) : Number.POSITIVE_INFINITY);

/**
 * perm(n, k) = n × (n-1) × … (k factors), refused before it is computed when its digits, summed
 * factor by factor, pass the limit. The sum stops there: while the factors are ≥ 2 each adds at
 * least 0.3 digits, so the loop runs a few thousand times at most.
 */
function fallingFactorial(n: bigint, k: bigint, what: string): bigint {
  const factor = log10Minus(n);
  let digits = 0;
  for (let i = 0; i < steps(k); i++) {
    digits += factor(i);
    refuseAbove(digits, what, true);
  }
  return checkedInt(rangeProduct(n - k + 1n, n), what);
}

/** comb(n, k) for 0 ≤ k ≤ n; the size check sums log10 of C(n, i+1) / C(n, i) (≥ 0.3 each, k ≤ n/2). */
function binomial(n: bigint, k: bigint): bigint {
  const small = k < n - k ? k : n - k;
  const factor = log10Minus(n);
  let digits = 0;
  for (let i = 0; i < steps(small); i++) {
    digits += factor(i) - Math.log10(i + 1);
    refuseAbove(digits, 'comb()', true);
  }
  return checkedInt(rangeProduct(n - small + 1n, n) / rangeProduct(1n, small), 'comb()');
}

/** ⌊√n⌋ by Newton's method from above (a float first guess is off by far more than 1 for big n). */
function intSqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(16).length * 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

function nonNegative(fn: string, a: PyValue, b: PyValue): [bigint, bigint] {
  const [x, y] = [intOf(a, fn), intOf(b, fn)];
  if (x < 0n || y < 0n) throw new PyError('ValueError', `${fn}() arguments must be non-negative`);
  return [x, y];
}

function intOf(v: PyValue, fn: string): bigint {
  if (isInt(v)) return v;
  const x = num(v);
  if (Number.isInteger(x)) return BigInt(x);
  throw new PyError('TypeError', `${fn}() only accepts integral values`);
}

function toIntTrunc(v: PyValue): bigint {
  if (isInt(v)) return v;
  const x = num(v);
  if (!Number.isFinite(x)) throw new PyError('ValueError', 'cannot convert float to integer');
  return BigInt(Math.trunc(x));
}

function domain(ok: boolean): void {
  if (!ok) throw new PyError('ValueError', 'math domain error');
}

/** The items of a list or tuple, else undefined. */
const itemsOf = (v: PyValue | undefined): PyValue[] | undefined =>
  Array.isArray(v) ? v : v !== undefined && isTuple(v) ? v.tuple : undefined;
function listOf(args: PyValue[], fn: string): PyValue[] {
  if (args.length === 0) throw new PyError('TypeError', `${fn} expected at least 1 argument, got 0`);
  const items = itemsOf(args[0]);
  if (args.length > 1 || !items) return args;
  if (items.length === 0) throw new PyError('ValueError', `${fn}() arg is an empty sequence`);
  return items;
}
function compare(a: PyValue, b: PyValue): number {
  return isInt(a) && isInt(b) ? (a < b ? -1 : a > b ? 1 : 0) : num(a) - num(b);
}

const float1 = (f: (x: number) => number) => (x: PyValue) => finiteFloat(f(num(x)), 'math range error');

/** Python builtins and `math` functions the calculator offers (bare or as `math.<name>`). */
const FUNCTIONS: Record<string, (...args: PyValue[]) => PyValue> = {
  abs: (x) => (isInt(x) ? (x < 0n ? -x : x) : Math.abs(num(x))),
  round: (x, n) => pyRound(x, n),
  min: (...a) => listOf(a, 'min').reduce((m, v) => (compare(v, m) < 0 ? v : m)),
  max: (...a) => listOf(a, 'max').reduce((m, v) => (compare(v, m) > 0 ? v : m)),
  sum: (list, start = 0n) => {
    const items = itemsOf(list);
    if (!items) throw new PyError('TypeError', 'sum() takes a list');
    return items.reduce<PyValue>((s, v) => binary('+', s, v), start);
  },
  divmod: (a, b) => {
    if (!isInt(unbool(a)) || !isInt(unbool(b))) {
      if (num(b) === 0) throw new PyError('ZeroDivisionError', 'float divmod()');
    }
    return { tuple: [binary('./', a, b), binary('%', a, b)] };
  },
  pow: (a, b) => power(a, b, 'pow()'),
  int: (x) => toIntTrunc(x),
  float: (x) => num(x),
  sqrt: (x) => {
    domain(num(x) >= 0);
    return mathjs().math.sqrt(num(x)) as number;
  },
  isqrt: (x) => {
    const n = intOf(x, 'isqrt');
    domain(n >= 0n);
    return intSqrt(n);
  },
  exp: float1(Math.exp),
  log: (x, base) => {
    domain(num(x) > 0 && (base === undefined || num(base) > 0));
    const ln = mathjs().math.log(num(x)) as number;
    return base === undefined ? ln : ln / (mathjs().math.log(num(base)) as number);
  },
  log10: (x) => {
    domain(num(x) > 0);
    return Math.log10(num(x));
  },
  log2: (x) => {
    domain(num(x) > 0);
    return Math.log2(num(x));
  },
  sin: float1(Math.sin),
  cos: float1(Math.cos),
  tan: float1(Math.tan),
  asin: (x) => {
    domain(Math.abs(num(x)) <= 1);
    return Math.asin(num(x));
  },
  acos: (x) => {
    domain(Math.abs(num(x)) <= 1);
    return Math.acos(num(x));
  },
  atan: float1(Math.atan),
  atan2: (y, x) => Math.atan2(num(y), num(x)),
  sinh: float1(Math.sinh),
  cosh: float1(Math.cosh),
  tanh: float1(Math.tanh),
  degrees: (x) => (num(x) * 180) / Math.PI,
  radians: (x) => (num(x) * Math.PI) / 180,
  hypot: (...a) => Math.hypot(...a.map(num)),
  fabs: (x) => Math.abs(num(x)),
  floor: (x) => (isInt(x) ? x : toIntTrunc(Math.floor(num(x)))),
  ceil: (x) => (isInt(x) ? x : toIntTrunc(Math.ceil(num(x)))),
  trunc: (x) => toIntTrunc(x),
  factorial: (x) => {
    const n = intOf(x, 'factorial');
    if (n < 0n) throw new PyError('ValueError', 'factorial() not defined for negative values');
    return fallingFactorial(n, n, 'factorial()');
  },
  gcd: (...a) => a.map((v) => intOf(v, 'gcd')).reduce(gcd, 0n),
  // Each step's product has at most twice the limit's digits (cheap); the running lcm is checked.
  lcm: (...a) =>
    a
      .map((v) => intOf(v, 'lcm'))
      .reduce((l, v) => (l === 0n || v === 0n ? 0n : checkedInt(abs(l * v) / gcd(l, v), 'lcm()')), 1n),
  comb: (n, k) => {
    const [a, b] = nonNegative('comb', n, k);
    return b > a ? 0n : binomial(a, b);
  },
  perm: (n, k) => {
    const [a, b] = nonNegative('perm', n, k ?? n);
    return b > a ? 0n : fallingFactorial(a, b, 'perm()');
  },
};

/** Functions that return one of their arguments as it is (max(True, False) is True); the others see bools as ints. */
const KEEPS_BOOLS = new Set(['min', 'max', 'divmod']);

/** The name the tuple syntax `(a, b)` is rewritten to (a `$` cannot appear in Python input). */
const TUPLE = '$tuple';

const CONSTANTS: Record<string, PyValue> = {
  True: true,
  False: false,
  pi: Math.PI,
  e: Math.E,
  tau: 2 * Math.PI,
  inf: Number.POSITIVE_INFINITY,
  nan: Number.NaN,
};

/** `math.<name>` (an accessor with dot notation on the symbol `math`) → `<name>`. */
function mathMember(node: MathNode): string | undefined {
  if (node.type !== 'AccessorNode') return undefined;
  const { object, index } = node as unknown as {
    object: MathNode;
    index: { dotNotation: boolean; dimensions: MathNode[] };
  };
  const dim = index.dimensions[0];
  if (object.type !== 'SymbolNode' || (object as unknown as { name: string }).name !== 'math')
    return undefined;
  if (!index.dotNotation || dim?.type !== 'ConstantNode') return undefined;
  return String((dim as unknown as { value: unknown }).value);
}

function notDefined(name: string): PyError {
  return new PyError('NameError', `name '${name}' is not defined`);
}

/**
 * Evaluates `node`; `isResult` when its value is what gets printed (the root, and what parentheses,
 * signs, lists and tuples pass through). An int over our limit there is one Python would compute
 * and then refuse to print, so it fails as Python's print does (when Python could compute it).
 */
function evaluate(node: MathNode, isResult = false): PyValue {
  try {
    return evaluateNode(node, isResult);
  } catch (e) {
    if (!(e instanceof TooLarge)) throw e;
    if (isResult && !e.intermediate && e.digits <= PY_COMPUTABLE_DIGITS) throw strLimit();
    if (!isResult) e.intermediate = true;
    throw e;
  }
}

function evaluateNode(node: MathNode, isResult: boolean): PyValue {
  switch (node.type) {
    case 'ConstantNode': {
      const value = (node as unknown as { value: unknown }).value;
      if (typeof value === 'bigint' || typeof value === 'number') return value;
      throw new PyError('TypeError', 'only numbers are allowed (no strings or other literals)');
    }
    case 'ParenthesisNode':
      return evaluate((node as unknown as { content: MathNode }).content, isResult);
    case 'SymbolNode': {
      const name = (node as unknown as { name: string }).name;
      if (Object.hasOwn(CONSTANTS, name)) return CONSTANTS[name] as PyValue;
      throw notDefined(name);
    }
    case 'AccessorNode': {
      const name = mathMember(node);
      if (name !== undefined && Object.hasOwn(CONSTANTS, name) && typeof CONSTANTS[name] === 'number')
        return CONSTANTS[name];
      throw new PyError('AttributeError', `unsupported attribute access "${node.toString()}"`);
    }
    case 'ArrayNode':
      return (node as unknown as { items: MathNode[] }).items.map((item) => evaluate(item, isResult));
    case 'OperatorNode': {
      const { op, args, implicit, isPercentage } = node as unknown as {
        op: string;
        args: MathNode[];
        implicit: boolean;
        isPercentage?: boolean;
      };
      if (implicit) throw new PyError('SyntaxError', `missing operator in "${node.toString()}"`);
      // mathjs reads a trailing `%` as "per cent"; in Python it is only the modulo operator.
      if (isPercentage) throw new PyError('SyntaxError', '"%" needs a right operand (no per cent in Python)');
      const values = args.map((arg) => evaluate(arg, isResult && args.length === 1));
      if (values.length === 1) {
        const v = unbool(values[0] as PyValue);
        if (op === '-') return isInt(v) ? -v : -num(v);
        if (op === '+') return isInt(v) ? v : num(v);
        throw new PyError('SyntaxError', `operator "${op}" is not supported`);
      }
      if (values.length !== 2) throw new PyError('SyntaxError', `operator "${op}" is not supported`);
      return binary(op, values[0] as PyValue, values[1] as PyValue);
    }
    case 'FunctionNode': {
      const { fn, args } = node as unknown as { fn: MathNode; args: MathNode[] };
      const name = fn.type === 'SymbolNode' ? (fn as unknown as { name: string }).name : mathMember(fn);
      if (name === TUPLE && fn.type === 'SymbolNode')
        return { tuple: args.map((arg) => evaluate(arg, isResult)) };
      if (name === undefined || !Object.hasOwn(FUNCTIONS, name)) throw notDefined(name ?? fn.toString());
      const values = args.map((arg) => evaluate(arg));
      return (FUNCTIONS[name] as (...a: PyValue[]) => PyValue)(
        ...(KEEPS_BOOLS.has(name) ? values : values.map(unbool)),
      );
    }
    default:
      throw new PyError('SyntaxError', `${node.type.replace(/Node$/, '').toLowerCase()} is not allowed`);
  }
}

/** Python's `str()` of a calculator value. */
function pyStr(v: PyValue): string {
  if (Array.isArray(v)) return `[${v.map(pyStr).join(', ')}]`;
  if (isTuple(v))
    return v.tuple.length === 1 ? `(${pyStr(v.tuple[0] as PyValue)},)` : `(${v.tuple.map(pyStr).join(', ')})`;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'bigint') {
    const text = v.toString();
    if (text.length - (v < 0n ? 1 : 0) > PY_MAX_STR_DIGITS) throw strLimit();
    return text;
  }
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return pyFloatRepr(v);
}

/**
 * Python operators mathjs spells differently: `**` → `^`, `//` → `./` (mathjs's element-wise
 * division, at the same precedence as `*`, which the walker reads as floor division). Python's own
 * `^` (xor), `./`, `;` and newlines are refused first so nothing is misread.
 */
function toMathjsSyntax(python: string): string {
  // `4.` is a float literal in Python; spelled `4.0` it cannot be read as `4` `./`.
  const expression = python.replace(/(\d)\.(?![\d.])/g, '$1.0');
  const bad = /\^|\.\/|;|\n|=|:|!|\?|\$/.exec(expression);
  if (bad) throw new PyError('SyntaxError', `"${bad[0] === '\n' ? '\\n' : bad[0]}" is not allowed`);
  return tuplesAsCalls(expression.replaceAll('**', '^').replaceAll('//', ' ./ '));
}

/**
 * Python's tuple syntax, which mathjs cannot read: a parenthesis that is not a call's and holds a
 * top-level comma (`(1, 2)`, `(1,)`) or nothing (`()`) becomes a call of TUPLE; a trailing comma is dropped.
 */
function tuplesAsCalls(expression: string): string {
  // One pass (the expression may be 10 000 characters of brackets): `last` is the index of the
  // last character that is not a space, read before the current one.
  const out = expression.split('');
  const opens: { at: number; hasComma: boolean; call: boolean }[] = [];
  let last = -1;
  for (let i = 0; i < out.length; i++) {
    const c = out[i] as string;
    if (c === '(' || c === '[') {
      const before = last < 0 ? '' : (out[last] as string);
      opens.push({ at: i, hasComma: false, call: c === '[' || /[\w)\]]/.test(before) });
    } else if (c === ',') {
      const group = opens.at(-1);
      if (group) group.hasComma = true;
    } else if (c === ')' || c === ']') {
      const group = opens.pop();
      if (group && !group.call && c === ')') {
        const empty = last === group.at;
        if (group.hasComma || empty) {
          out[group.at] = `${TUPLE}(`;
          if (out[last] === ',') out[last] = ' '; // `(1,)`: a trailing comma
        }
      }
    }
    if (!/\s/.test(c)) last = i;
  }
  return out.join('');
}

/** The parser and the evaluator recurse once per nesting level; a stack overflow says so. */
const tooDeep = () => new PyError('RecursionError', 'the expression is nested too deeply');
const isStackOverflow = (e: unknown) => e instanceof RangeError && /call stack/i.test(e.message);

/**
 * Evaluates a single Python arithmetic expression as AgentLego's Calculator would print it:
 * `"4+8"` → `"12"`, `"3.5*60"` → `"210.0"`, `"0.1+0.2"` → `"0.30000000000000004"`. Throws an
 * ApiaryError (`TOOL_FAILED`) with Python's error type and message for anything else.
 */
export function calculate(expression: string): string {
  try {
    if (expression.length > MAX_EXPRESSION_CHARS)
      throw new PyError(
        'SyntaxError',
        `the expression has ${expression.length} characters (the calculator's limit is ${MAX_EXPRESSION_CHARS})`,
      );
    let tree: MathNode;
    try {
      tree = mathjs().parse(toMathjsSyntax(expression.trim()));
    } catch (e) {
      if (e instanceof PyError) throw e;
      if (isStackOverflow(e)) throw tooDeep();
      throw new PyError('SyntaxError', (e as Error).message);
    }
    try {
      return pyStr(evaluate(tree, true));
    } catch (e) {
      throw isStackOverflow(e) ? tooDeep() : e;
    }
  } catch (e) {
    if (e instanceof PyError)
      throw new ApiaryError('TOOL_FAILED', `Calculator: ${e.pyType}: ${e.message}`, { cause: e });
    throw new ApiaryError('TOOL_FAILED', `Calculator: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * GTA's Calculator tool (`expression`: a Python expression). Evaluates on a tool worker thread,
 * so the call's time limit and cancellation stop it (tool-threads.ts).
 */
export function calculatorTool(): ExecutableTool {
  const threads = toolThreads();
  return {
    name: 'Calculator',
    async run(args, ctx): Promise<ContentPart[]> {
      const expression = args.expression;
      if (typeof expression !== 'string')
        throw new ApiaryError('TOOL_FAILED', 'Calculator: "expression" must be a string');
      const text = await threads.run('Calculator', { kind: 'calculate', expression }, ctx.signal);
      return [{ type: 'text', text: text as string }];
    },
    dispose: () => threads.dispose(),
  };
}
