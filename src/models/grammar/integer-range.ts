/**
 * GBNF for the decimal integers of a closed range, digit by digit: exactly the values in range,
 * written without leading zeros, `-0` or exponent. Magnitudes stop at 15 digits (every integer a
 * JavaScript number holds exactly), so an unbounded side is ±999,999,999,999,999.
 */

const MAX_INTEGER_DIGITS = 15;
export const MAX_INTEGER_MAGNITUDE = 10 ** MAX_INTEGER_DIGITS - 1;

const digitClass = (lo: number, hi: number) => (lo === hi ? `"${lo}"` : `[${lo}-${hi}]`);
const anyDigits = (n: number) => (n === 0 ? '' : n === 1 ? '[0-9]' : `[0-9]{${n}}`);

/** Alternatives matching the digit strings of one length between `lo` and `hi` (same length). */
function sameLength(lo: string, hi: string): string[] {
  const n = lo.length;
  if (n === 1) return [digitClass(Number(lo), Number(hi))];
  const a = Number(lo[0]);
  const b = Number(hi[0]);
  const restLo = lo.slice(1);
  const restHi = hi.slice(1);
  const zeros = '0'.repeat(n - 1);
  const nines = '9'.repeat(n - 1);
  const join = (head: string, tails: string[]) =>
    tails.length === 1 ? `${head} ${tails[0]}` : `${head} (${tails.join(' | ')})`;
  if (a === b) return [join(`"${a}"`, sameLength(restLo, restHi))];
  if (restLo === zeros && restHi === nines) return [`${digitClass(a, b)} ${anyDigits(n - 1)}`];
  const out: string[] = [];
  let from = a;
  let to = b;
  if (restLo !== zeros) {
    out.push(join(`"${a}"`, sameLength(restLo, nines)));
    from = a + 1;
  }
  if (restHi !== nines) to = b - 1;
  if (from <= to) out.push(`${digitClass(from, to)} ${anyDigits(n - 1)}`);
  if (restHi !== nines) out.push(join(`"${b}"`, sameLength(zeros, restHi)));
  return out;
}

/** Alternatives for the non-negative integers in [lo, hi] (both safe integers, lo ≤ hi). */
function nonNegative(lo: number, hi: number): string[] {
  const out: string[] = [];
  for (let digits = String(lo).length; digits <= String(hi).length; digits++) {
    const first = digits === 1 ? 0 : 10 ** (digits - 1);
    const last = 10 ** digits - 1;
    const a = Math.max(lo, first);
    const b = Math.min(hi, last);
    if (a <= b) out.push(...sameLength(String(a), String(b)));
  }
  return out;
}

/**
 * A GBNF expression for the integers in [lo, hi], or null when the range is empty. Bounds beyond
 * 15 digits are clamped to {@link MAX_INTEGER_MAGNITUDE}.
 */
export function integerRangeGbnf(lo: number, hi: number): string | null {
  const a = Math.max(Math.ceil(lo), -MAX_INTEGER_MAGNITUDE);
  const b = Math.min(Math.floor(hi), MAX_INTEGER_MAGNITUDE);
  if (a > b) return null;
  const alternatives: string[] = [];
  if (a < 0) {
    const negatives = nonNegative(Math.max(1, -b), -a);
    alternatives.push(negatives.length === 1 ? `"-" ${negatives[0]}` : `"-" (${negatives.join(' | ')})`);
  }
  if (b >= 0) alternatives.push(...nonNegative(Math.max(0, a), b));
  return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' | ')})`;
}
