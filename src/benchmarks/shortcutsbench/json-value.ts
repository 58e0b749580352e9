import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';
import { jsonDepthExceededAt, MAX_JSON_DEPTH, pyJsonString, pyNumberText } from '../../shared/index.js';

/**
 * JSON as Python's `json.loads` sees it (docs/shortcutsbench.md §11.15): numbers keep their source text, so
 * an int (`1`) and a float (`1.0`) stay distinct, and a duplicate key keeps its last value at its first
 * position. Known limit: JS objects list integer-like keys (`"12"`) first, Python keeps source order.
 */
export type Json = null | boolean | string | LosslessNumber | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export { isLosslessNumber, LosslessNumber };

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !isLosslessNumber(v);
}

/** Python's type of a parsed number: a float iff its lexeme has `.`, `e` or `E`. */
export function isFloatLexeme(n: LosslessNumber): boolean {
  return /[.eE]/.test(n.value);
}

/**
 * Parses JSON text keeping number lexemes; throws SyntaxError like JSON.parse (callers name the
 * file). The parser recurses: text nested deeper than MAX_JSON_DEPTH is refused first.
 */
export function parseJson(text: string): Json {
  const deepAt = jsonDepthExceededAt(text);
  if (deepAt >= 0) throw new SyntaxError(`nested deeper than ${MAX_JSON_DEPTH} levels at offset ${deepAt}`);
  return parse(text, null, {
    parseNumber: (s: string) => new LosslessNumber(s),
    onDuplicateKey: ({ newValue }) => newValue,
  }) as Json;
}

/** JSON text with every number written as it was read (`space` as JSON.stringify). */
export function stringifyJson(value: Json, space?: number): string {
  return stringify(value, null, space) ?? 'null';
}

/** A deep copy (numbers are immutable and shared). */
/**
 * `obj[key] = value` as an own property, even for the key `__proto__` (JSON may have one: an
 * assignment would change the prototype instead and lose the key).
 */
export function setOwn(obj: JsonObject, key: string, value: Json): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

export function cloneJson<T extends Json>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, cloneJson(v));
    return out as T;
  }
  return value;
}

/**
 * Python `json.dumps(value)` (no `indent`: separators `", "`/`": "`, one line, as the official
 * runner writes each result line) or `json.dumps(value, indent=n)` (separators `","`/`": "`);
 * both escape non-ASCII (`ensure_ascii`). Numbers print as Python prints what it parsed.
 */
export function dumpsPythonJson(value: Json, indent?: number): string {
  return dumpAt(value, indent, 0);
}

function dumpAt(value: Json, indent: number | undefined, depth: number): string {
  if (value === null) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'string') return pyJsonString(value);
  if (isLosslessNumber(value)) return pyNumberText(value.value);
  const items = Array.isArray(value)
    ? value.map((v) => dumpAt(v, indent, depth + 1))
    : Object.entries(value).map(([k, v]) => `${pyJsonString(k)}: ${dumpAt(v, indent, depth + 1)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (items.length === 0) return open + close;
  if (indent === undefined) return `${open}${items.join(', ')}${close}`;
  const inner = `\n${' '.repeat(indent * (depth + 1))}`;
  return `${open}${inner}${items.join(`,${inner}`)}\n${' '.repeat(indent * depth)}${close}`;
}
