/**
 * Python's text conventions, where Apiary must match an official Python harness character for
 * character: `repr()` of plain data (prompts), `str.strip()` and `str.strip(chars)` (parsers).
 */

/** Characters Python's `str.strip()` removes (str.isspace). */
export const PY_WHITESPACE =
  '\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEADING = new RegExp(`^[${PY_WHITESPACE}]+`);
const TRAILING = new RegExp(`[${PY_WHITESPACE}]+$`);

/** Printable ASCII other than space: never stripped (the common case skips both regexes). */
const isPlainAscii = (c: number) => c > 0x20 && c < 0x7f;

export function pyStrip(text: string): string {
  if (text.length === 0) return text;
  if (isPlainAscii(text.charCodeAt(0)) && isPlainAscii(text.charCodeAt(text.length - 1))) return text;
  return text.replace(LEADING, '').replace(TRAILING, '');
}

/** Python `str.strip(chars)` for a set of single characters. */
export function pyStripChars(s: string, chars: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start]!)) start++;
  while (end > start && chars.includes(s[end - 1]!)) end--;
  return s.slice(start, end);
}

/** `repr(str)`: single quotes unless the text has a single quote and no double quote. */
function pyReprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** `repr()` of JSON-like data: dicts in insertion order, `None`, `True`/`False`, floats as Python prints them. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return pyReprString(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object')
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${pyReprString(k)}: ${pyRepr(v)}`)
      .join(', ')}}`;
  return pyReprString(String(value));
}
