/**
 * Slot-value normalisation shared by the database build (`row_values.value_norm`) and the
 * simulated apps' matching, so that both sides of a comparison go through the same function.
 *
 * Rules, applied in this order (documented in docs/simulated-apps.md):
 * 1. `null`, `undefined`, `''` (after trimming) and SGD's `dontcare` have no value: they never filter.
 * 2. Booleans and the strings `true`/`false` (any case) → `true` / `false`.
 * 3. Decimal numbers (JS numbers or strings like `4.20`, `+3`, `007`) → the shortest decimal form
 *    (`4.2`, `3`, `7`). Numbers with more than 15 significant digits stay as text.
 * 4. Dates `YYYY-M-D` or `YYYY/M/D` → `YYYY-MM-DD` (zero-padded).
 * 5. Times with a colon or an am/pm marker (`13:30`, `1:30 pm`, `1:30PM`, `1 p.m.`, `13:30:00`) →
 *    24-hour `HH:MM`. A bare number is a number, not a time.
 * 6. Any other text: trimmed, inner whitespace collapsed to one space, lower-cased.
 */
export function normalizeSlotValue(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'string') return normalizeText(JSON.stringify(value));
  const text = normalizeText(value);
  if (text === '' || text === 'dontcare') return undefined;
  if (text === 'true' || text === 'false') return text;
  return normalizeNumber(text) ?? normalizeDate(text) ?? normalizeTime(text) ?? text;
}

function normalizeText(value: string): string {
  return value.trim().replace(/\s+/g, ' ').toLowerCase();
}

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;

function normalizeNumber(text: string): string | undefined {
  if (!NUMBER.test(text)) return undefined;
  const digits = text.replace(/^[-+]/, '').replace('.', '').replace(/^0+/, '');
  if (digits.replace(/0+$/, '').length > 15) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? String(n === 0 ? 0 : n) : undefined;
}

const DATE = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/;

function normalizeDate(text: string): string | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d] = m as unknown as [string, string, string, string];
  return `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}`;
}

const TIME = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(am|pm|a\.m\.?|p\.m\.?)?$/;

function normalizeTime(text: string): string | undefined {
  const m = TIME.exec(text);
  if (!m) return undefined;
  const [, hText, minText, , marker] = m;
  if (minText === undefined && marker === undefined) return undefined;
  let h = Number(hText);
  const min = minText === undefined ? 0 : Number(minText);
  if (min > 59) return undefined;
  if (marker) {
    if (h < 1 || h > 12) return undefined;
    const pm = marker.startsWith('p');
    if (h === 12) h = pm ? 12 : 0;
    else if (pm) h += 12;
  } else if (h > 24) return undefined;
  return `${String(h).padStart(2, '0')}:${String(min).padStart(2, '0')}`;
}
