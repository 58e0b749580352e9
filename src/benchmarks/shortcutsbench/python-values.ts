import { pyRepr } from '../../shared/index.js';
import { isFloatLexeme, isJsonObject, isLosslessNumber, type Json, LosslessNumber } from './json-value.js';

/**
 * The Python semantics the official scorer relies on (docs/shortcutsbench.md §9.2, §9.3): `float()`, `int()`,
 * `str()`, `==` and truthiness over parsed JSON values. Numbers are lexeme-preserving
 * (json-value.ts) so ints and floats stay apart as in Python.
 */

/** What Python's `float()`/`int()` produce: a double or an arbitrary-precision int. */
type PyNum = { kind: 'float'; value: number } | { kind: 'int'; value: bigint };

// Python float(): optional sign, digits with single underscores between digits, optional
// fraction and exponent, or inf/infinity/nan in any case, surrounded by whitespace.
const DIGITS = '\\d(?:_?\\d)*';
const FLOAT_TEXT = new RegExp(
  `^[+-]?(?:(?:${DIGITS}(?:\\.(?:${DIGITS})?)?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`,
  'i',
);
const INT_TEXT = new RegExp(`^[+-]?${DIGITS}$`);
// str.strip() whitespace for conversions (int() and float() strip the same set)
const PY_SPACE = /^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g;

/** Python `float(x)` for a JSON value; undefined where Python raises. */
function pyFloat(x: Json): number | undefined {
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (isLosslessNumber(x)) return Number(x.value);
  if (typeof x !== 'string') return undefined;
  const t = x.replace(PY_SPACE, '');
  if (!FLOAT_TEXT.test(t)) return undefined;
  const lower = t.toLowerCase().replace(/^[+-]/, '');
  const sign = t.startsWith('-') ? -1 : 1;
  if (lower === 'inf' || lower === 'infinity') return sign * Number.POSITIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  return Number(t.replaceAll('_', ''));
}

/** Python `int(x)` for a JSON value; undefined where Python raises. */
function pyInt(x: Json): bigint | undefined {
  if (typeof x === 'boolean') return x ? 1n : 0n;
  if (isLosslessNumber(x)) {
    if (!isFloatLexeme(x)) return BigInt(x.value);
    const f = Number(x.value); // int(float) truncates; inf/nan raise
    return Number.isFinite(f) ? BigInt(Math.trunc(f)) : undefined;
  }
  if (typeof x !== 'string') return undefined;
  const t = x.replace(PY_SPACE, '');
  return INT_TEXT.test(t) ? BigInt(t.replaceAll('_', '')) : undefined;
}

/** Python `str(x)` of a parsed JSON value (dicts and lists as their repr). */
export function pyStr(x: Json): string {
  if (typeof x === 'string') return x;
  if (isLosslessNumber(x))
    return isFloatLexeme(x) ? pyFloatRepr(Number(x.value)) : BigInt(x.value).toString();
  return pyRepr(toPlain(x));
}

function pyFloatRepr(f: number): string {
  if (Number.isNaN(f)) return 'nan';
  if (!Number.isFinite(f)) return f > 0 ? 'inf' : '-inf';
  return Number.isInteger(f) && Math.abs(f) < 1e16 ? `${f}.0` : String(f);
}

function toPlain(x: Json): unknown {
  if (isLosslessNumber(x)) return Number(x.value);
  if (Array.isArray(x)) return x.map(toPlain);
  if (isJsonObject(x)) return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, toPlain(v)]));
  return x;
}

function numeric(x: Json): PyNum | undefined {
  if (typeof x === 'boolean') return { kind: 'int', value: x ? 1n : 0n };
  if (isLosslessNumber(x))
    return isFloatLexeme(x)
      ? { kind: 'float', value: Number(x.value) }
      : { kind: 'int', value: BigInt(x.value) };
  return undefined;
}

function numEquals(a: PyNum, b: PyNum): boolean {
  if (a.kind === 'int' && b.kind === 'int') return a.value === b.value;
  const fa = a.kind === 'float' ? a.value : Number(a.value);
  const fb = b.kind === 'float' ? b.value : Number(b.value);
  return fa === fb;
}

/** Python `a == b` over parsed JSON (True == 1 == 1.0; dicts by key set, lists in order). */
export function pyEquals(a: Json, b: Json): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na || nb) return !!na && !!nb && numEquals(na, nb);
  if (a === null || b === null || typeof a === 'string' || typeof b === 'string') return a === b;
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => pyEquals(v, b[i]!))
    );
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && pyEquals(a[k]!, b[k]!));
  }
  return false;
}

/** Python truthiness: empty string/list/dict, 0, 0.0, False and None are false. */
export function pyTruthy(x: Json | undefined): boolean {
  if (x === undefined || x === null || x === false) return false;
  if (x === true) return true;
  if (typeof x === 'string') return x.length > 0;
  if (isLosslessNumber(x)) return Number(x.value) !== 0;
  if (Array.isArray(x)) return x.length > 0;
  return Object.keys(x).length > 0;
}

const isFloat = (x: Json) => isLosslessNumber(x) && isFloatLexeme(x);
const isInt = (x: Json) => typeof x === 'boolean' || (isLosslessNumber(x) && !isFloatLexeme(x));

function boolAsInt(x: Json): Json {
  return typeof x === 'boolean' ? new LosslessNumber(x ? '1' : '0') : x;
}

/**
 * The official `judge_equal` (docs/shortcutsbench.md §9.2): booleans as ints; a float on either side compares
 * both as `float()` (a failed conversion is unequal); else an int on either side compares both as `int()` (a
 * failed conversion compares `str()` forms); else Python `==` (strings case-sensitive).
 */
export function judgeEqualOfficial(goldValue: Json, predValue: Json): boolean {
  const gold = boolAsInt(goldValue);
  const pred = boolAsInt(predValue);
  if (isFloat(gold) || isFloat(pred)) {
    const a = pyFloat(gold);
    const b = pyFloat(pred);
    return a !== undefined && b !== undefined && a === b;
  }
  if (isInt(gold) || isInt(pred)) {
    const a = pyInt(gold);
    if (a === undefined) return pyStr(gold) === pyStr(pred);
    const b = pyInt(pred);
    // Python converted `a` before `b` raised: str() of the converted int against the raw value
    if (b === undefined) return a.toString() === pyStr(pred);
    return a === b;
  }
  return pyEquals(gold, pred);
}

/**
 * Corrected `judge_equal`: a number is the same number however it is spelt (`5` ≡ `"5.0"` ≡ `5.0`),
 * booleans also match `"true"`/`"false"` in any case; other strings still compare exactly.
 */
export function judgeEqualCorrected(gold: Json, pred: Json): boolean {
  if (typeof gold === 'boolean' || typeof pred === 'boolean') {
    const asBool = (x: Json) =>
      typeof x === 'boolean'
        ? x
        : typeof x === 'string'
          ? { true: true, false: false }[x.trim().toLowerCase()]
          : undefined;
    const a = asBool(gold);
    const b = asBool(pred);
    if (a !== undefined && b !== undefined) return a === b;
  }
  if (
    isLosslessNumber(gold) ||
    isLosslessNumber(pred) ||
    typeof gold === 'boolean' ||
    typeof pred === 'boolean'
  ) {
    const a = pyFloat(gold);
    const b = pyFloat(pred);
    return a !== undefined && b !== undefined && a === b;
  }
  return pyEquals(gold, pred);
}
