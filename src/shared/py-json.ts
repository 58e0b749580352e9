import { InputInvalidError } from './errors.js';
import { MAX_JSON_DEPTH } from './json-depth.js';

/**
 * A JSON value that remembers what Python's `json.loads` would have kept and JavaScript forgets:
 * the key order of objects (JS hoists integer-like keys), duplicate keys (last value wins, first
 * position kept, as in Python) and whether a number was written as a float (`3.0`) or an int.
 */
export type PyJson = null | boolean | string | PyNumber | PyJson[] | PyObject;
export interface PyNumber {
  readonly kind: 'number';
  /** The number exactly as written in the source. */
  readonly lexeme: string;
}
export interface PyObject {
  readonly kind: 'object';
  readonly entries: Map<string, PyJson>;
}

export function isPyObject(v: PyJson | undefined): v is PyObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'object';
}
export function isPyNumber(v: PyJson | undefined): v is PyNumber {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && v.kind === 'number';
}

/** `obj[key]` for a parsed object, undefined when absent or when `v` is not an object. */
export function pyGet(v: PyJson | undefined, key: string): PyJson | undefined {
  return isPyObject(v) ? v.entries.get(key) : undefined;
}

/** A string field, or undefined when absent, null or not a string. */
export function pyString(v: PyJson | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Converts a plain JS value (JSON-compatible) to PyJson; integral numbers become ints. */
export function toPyJson(value: unknown): PyJson {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') return { kind: 'number', lexeme: String(value) };
  if (Array.isArray(value)) return value.map(toPyJson);
  const entries = new Map<string, PyJson>();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) entries.set(k, toPyJson(v));
  return { kind: 'object', entries };
}

/**
 * A copy of `s` that shares no memory with the text it was sliced from. `parsePyJson` slices
 * strings out of its source (fast path) and V8 keeps a whole source alive, at two bytes per
 * character once it holds one non-Latin-1 character, as long as one slice of it (or a string
 * concatenated from slices) lives. The copy is flat and one byte per character when it can be;
 * exact for every string, lone surrogates included (JSON round trip).
 */
export function detachedString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** Deepest nesting `parsePyJson` accepts (Python's default recursion limit is 1000). */
const PY_JSON_MAX_DEPTH = MAX_JSON_DEPTH;

/**
 * Strict JSON parser producing {@link PyJson}. Errors name `source` and the character offset.
 * Fast paths: strings without escapes are sliced directly.
 */
export function parsePyJson(text: string, source = '<json>'): PyJson {
  let i = 0;
  const n = text.length;
  const fail = (msg: string): never => {
    throw new InputInvalidError({ file: source }, `invalid JSON at offset ${i}: ${msg}`);
  };
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
  };
  const str = (): string => {
    // text[i] === '"'
    const start = i + 1;
    let j = start;
    let escaped = false;
    for (;;) {
      if (j >= n) fail('unterminated string');
      const c = text.charCodeAt(j);
      if (c === 34) break;
      if (c === 92) {
        escaped = true;
        j += 2;
        continue;
      }
      if (c < 32) fail('control character in string');
      j++;
    }
    i = j + 1;
    if (!escaped) return text.slice(start, j);
    try {
      return JSON.parse(text.slice(start - 1, j + 1)) as string;
    } catch {
      return fail('bad escape in string');
    }
  };
  const NUM = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  let depth = 0;
  // after "{"
  const object = (): PyJson => {
    i++;
    const entries = new Map<string, PyJson>();
    ws();
    if (text.charCodeAt(i) === 125) {
      i++;
      return { kind: 'object', entries };
    }
    for (;;) {
      ws();
      if (text.charCodeAt(i) !== 34) fail('expected a key');
      const key = str();
      ws();
      if (text.charCodeAt(i) !== 58) fail('expected ":"');
      i++;
      entries.set(key, value());
      ws();
      const d = text.charCodeAt(i++);
      if (d === 44) continue;
      if (d === 125) return { kind: 'object', entries };
      i--;
      fail('expected "," or "}"');
    }
  };
  // after "["
  const array = (): PyJson => {
    i++;
    const arr: PyJson[] = [];
    ws();
    if (text.charCodeAt(i) === 93) {
      i++;
      return arr;
    }
    for (;;) {
      arr.push(value());
      ws();
      const d = text.charCodeAt(i++);
      if (d === 44) continue;
      if (d === 93) return arr;
      i--;
      fail('expected "," or "]"');
    }
  };
  const value = (): PyJson => {
    ws();
    if (i >= n) fail('unexpected end');
    const c = text.charCodeAt(i);
    if (c === 34) return str();
    if (c === 123 || c === 91) {
      // Python's json stops at its recursion limit too; without a cap the stack overflows (RangeError)
      if (++depth > PY_JSON_MAX_DEPTH) fail(`nested deeper than ${PY_JSON_MAX_DEPTH} levels`);
      const v = c === 123 ? object() : array();
      depth--;
      return v;
    }
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUM.lastIndex = i;
    const m = NUM.exec(text);
    if (!m) return fail('unexpected character');
    i += m[0].length;
    return { kind: 'number', lexeme: m[0] };
  };
  const out = value();
  ws();
  if (i < n) fail('trailing characters');
  return out;
}

/** Python `repr(float)`: shortest round-trip digits; scientific below 1e-4 or from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mant, expStr] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mant.replace('.', '');
  const exp = Number(expStr); // value = 0.d1d2… × 10^(exp+1)
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intLen = exp + 1;
  if (digits.length <= intLen) return `${sign}${digits}${'0'.repeat(intLen - digits.length)}.0`;
  return `${sign}${digits.slice(0, intLen)}.${digits.slice(intLen)}`;
}

/** How Python prints the number `json.loads` made of this lexeme. */
export function pyNumberText(lexeme: string): string {
  if (/[.eE]/.test(lexeme)) return pyFloatRepr(Number(lexeme));
  // int: arbitrary precision, "-0" is 0
  return /^-0+$/.test(lexeme) ? '0' : lexeme;
}

/** Python `json.dumps(s)` (ensure_ascii): escapes every char outside ' '..'~' plus `"` and `\`. */
export function pyJsonString(s: string): string {
  let out = '"';
  let last = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c >= 32 && c <= 126 && c !== 34 && c !== 92) continue;
    out += s.slice(last, k);
    last = k + 1;
    switch (c) {
      case 34:
        out += '\\"';
        break;
      case 92:
        out += '\\\\';
        break;
      case 10:
        out += '\\n';
        break;
      case 13:
        out += '\\r';
        break;
      case 9:
        out += '\\t';
        break;
      case 8:
        out += '\\b';
        break;
      case 12:
        out += '\\f';
        break;
      default:
        out += `\\u${c.toString(16).padStart(4, '0')}`;
    }
  }
  return `${out + s.slice(last)}"`;
}

/** Python `json.dumps(value)` with default arguments (separators ", " and ": ", ensure_ascii). */
export function pyJsonDumps(value: PyJson): string {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return pyJsonString(value);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(', ')}]`;
  if (value.kind === 'number') return pyNumberText(value.lexeme);
  const parts: string[] = [];
  for (const [k, v] of value.entries) parts.push(`${pyJsonString(k)}: ${pyJsonDumps(v)}`);
  return `{${parts.join(', ')}}`;
}
