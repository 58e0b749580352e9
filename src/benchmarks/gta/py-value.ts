import { isPyNumber, isPyObject, type PyJson, type PyObject, pyNumberText } from '../../shared/index.js';

/**
 * Python semantics over parsed JSON ({@link PyJson}) where GTA's evaluator relies on them:
 * `==` (ArgAcc), truthiness (`if ref:`), `str()` of a tool result.
 */

function numericValue(v: PyJson): number | undefined {
  if (v === true) return 1;
  if (v === false) return 0;
  return isPyNumber(v) ? Number(v.lexeme) : undefined;
}

/** Python `a == b` for values `json.loads` produced: `1 == 1.0 == True`, dicts ignore key order. */
export function pyEquals(a: PyJson, b: PyJson): boolean {
  const na = numericValue(a);
  const nb = numericValue(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na === nb;
  if (a === null || b === null || typeof a === 'string' || typeof b === 'string') return a === b;
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEquals(x, b[i]!))
    );
  const ea = (a as PyObject).entries;
  const eb = (b as PyObject).entries;
  if (ea.size !== eb.size) return false;
  for (const [k, v] of ea) {
    const w = eb.get(k);
    if (w === undefined || !pyEquals(v, w)) return false;
  }
  return true;
}

/** Python truthiness of a JSON value. */
export function pyTruthy(v: PyJson | undefined): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  if (v === true) return true;
  if (isPyNumber(v)) return Number(v.lexeme) !== 0;
  return v.entries.size > 0;
}

/** Python `str(v)` for a scalar as `format_result` prints it (non-text results). */
export function pyStr(v: PyJson): string {
  if (typeof v === 'string') return v;
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (isPyNumber(v)) return pyNumberText(v.lexeme);
  return JSON.stringify(v); // containers never occur in GTA tool returns
}

/** A fresh object with the given entries, in order. */
export function pyObject(entries: ReadonlyArray<readonly [string, PyJson]>): PyObject {
  return { kind: 'object', entries: new Map(entries) };
}

/** Deep copy (the loader rewrites arguments without touching the parsed file). */
export function pyClone(v: PyJson): PyJson {
  if (Array.isArray(v)) return v.map(pyClone);
  if (isPyObject(v)) return pyObject([...v.entries].map(([k, x]) => [k, pyClone(x)] as const));
  return v;
}
