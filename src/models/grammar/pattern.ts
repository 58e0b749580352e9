import { gbnfClass, gbnfLiteral } from './gbnf.js';

/**
 * JSON Schema `pattern` (an ECMAScript regex) as GBNF for the characters between a JSON string's
 * quotes. The safe subset: literal characters and escapes, classes (`[a-z]`, `[^…]`, `\d \w \s`
 * and their negations, `.`), groups (`(…)`, `(?:…)`, `(?<name>…)`), alternation, `? * +`,
 * `{m}` `{m,}` `{m,n}` up to {@link MAX_PATTERN_REPEAT}, and `^`/`$` at the ends.
 *
 * Approximations, all towards fewer strings (every string generated matches the pattern):
 * - the output matches the whole pattern, as if anchored (JSON Schema searches anywhere);
 * - `"`, `\` and control characters are left out of classes and `.`, and `\s` is a space only (so no
 *   JSON escape is ever needed inside a patterned string, except a literal `"` or `\`);
 * - `*`, `+` and `{m,}` stop at `maxRepeat` when it is given (a random model may never leave an
 *   unbounded loop).
 * Anything else (back-references, look-arounds, `\b`, `\p{…}`, flags) throws
 * {@link UnsupportedPattern}; the schema builder then falls back to a plain string and says so.
 */

export const MAX_PATTERN_REPEAT = 100;

export class UnsupportedPattern extends Error {}

type Range = readonly [number, number];

const DIGITS: Range[] = [[0x30, 0x39]];
const WORD: Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: Range[] = [[0x20, 0x20]];
/** What a patterned string never holds: control characters, `"` and `\` (they would need escapes). */
const EXCLUDED: Range[] = [
  [0x00, 0x1f],
  [0x22, 0x22],
  [0x5c, 0x5c],
];

/** `ranges` minus the excluded characters, sorted and merged. */
function allowed(ranges: readonly Range[]): Range[] {
  let out: Range[] = [...ranges].map((r) => [r[0], r[1]] as Range).sort((a, b) => a[0] - b[0]);
  for (const [xlo, xhi] of EXCLUDED)
    out = out.flatMap(([lo, hi]): Range[] => {
      if (hi < xlo || lo > xhi) return [[lo, hi]];
      const parts: Range[] = [];
      if (lo < xlo) parts.push([lo, xlo - 1]);
      if (hi > xhi) parts.push([xhi + 1, hi]);
      return parts;
    });
  const merged: Range[] = [];
  for (const r of out) {
    const last = merged.at(-1);
    if (last && r[0] <= last[1] + 1) merged[merged.length - 1] = [last[0], Math.max(last[1], r[1])];
    else merged.push(r);
  }
  return merged;
}

/** One character of the string as its JSON-escaped text, as a GBNF literal. */
function charLiteral(code: number): string {
  if (code === 0x22) return gbnfLiteral('\\"');
  if (code === 0x5c) return gbnfLiteral('\\\\');
  if (code < 0x20) {
    const short: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };
    return gbnfLiteral(short[code] ?? `\\u${code.toString(16).padStart(4, '0')}`);
  }
  return gbnfLiteral(String.fromCodePoint(code));
}

function classExpr(ranges: readonly Range[], negated: boolean): string {
  if (negated) return gbnfClass([...EXCLUDED, ...ranges], true);
  const kept = allowed(ranges);
  if (kept.length === 0)
    throw new UnsupportedPattern('a class of only control characters, quotes or backslashes');
  return gbnfClass(kept);
}

class PatternParser {
  private i = 0;

  constructor(
    private readonly src: string,
    private readonly maxRepeat: number | undefined,
  ) {}

  parse(): string {
    const expr = this.alternation(true);
    if (this.i < this.src.length) throw new UnsupportedPattern(`unexpected "${this.src[this.i]}"`);
    return expr;
  }

  private alternation(top: boolean): string {
    const alternatives = [this.sequence(top)];
    while (this.src[this.i] === '|') {
      this.i++;
      alternatives.push(this.sequence(top));
    }
    return alternatives.length === 1 ? alternatives[0]! : `(${alternatives.join(' | ')})`;
  }

  private sequence(top: boolean): string {
    const parts: string[] = [];
    const start = this.i;
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const c = this.src[this.i]!;
      if (c === '^' || c === '$') {
        const atEdge =
          top &&
          (c === '^'
            ? this.i === start
            : this.i + 1 === this.src.length || this.src[this.i + 1] === '|' || this.src[this.i + 1] === ')');
        if (!atEdge) throw new UnsupportedPattern(`an anchor "${c}" inside the pattern`);
        this.i++;
        continue;
      }
      const atom = this.atom();
      parts.push(this.quantified(atom));
    }
    // an empty alternative matches the empty string
    return parts.length === 0 ? '""' : parts.length === 1 ? parts[0]! : parts.join(' ');
  }

  private quantified(atom: string): string {
    const c = this.src[this.i];
    let min: number;
    let max: number | undefined;
    if (c === '?' || c === '*' || c === '+') {
      this.i++;
      [min, max] = c === '?' ? [0, 1] : c === '*' ? [0, undefined] : [1, undefined];
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) throw new UnsupportedPattern('a "{" that is not a repetition');
      this.i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? undefined : Number(m[3]);
      if (min > MAX_PATTERN_REPEAT || (max !== undefined && max > MAX_PATTERN_REPEAT))
        throw new UnsupportedPattern(`a repetition above ${MAX_PATTERN_REPEAT}`);
      if (max !== undefined && max < min) throw new UnsupportedPattern('a repetition {m,n} with n < m');
    } else return atom;
    if (this.src[this.i] === '?') this.i++; // lazy: the same strings
    if (this.src[this.i] === '+') throw new UnsupportedPattern('a possessive quantifier');
    if (max === undefined && this.maxRepeat !== undefined) max = Math.max(min, this.maxRepeat);
    const group = /^"[^"]*"$|^\[[^\]]*\]$/.test(atom) ? atom : `(${atom})`;
    if (max === undefined) return min === 0 ? `${group}*` : min === 1 ? `${group}+` : `${group}{${min},}`;
    if (min === 0 && max === 1) return `${group}?`;
    return min === max ? `${group}{${min}}` : `${group}{${min},${max}}`;
  }

  private atom(): string {
    const c = this.src[this.i]!;
    if (c === '(') {
      this.i++;
      if (this.src.startsWith('?:', this.i)) this.i += 2;
      else if (this.src[this.i] === '?') {
        const named = /^\?<([A-Za-z_$][\w$]*)>/.exec(this.src.slice(this.i));
        if (!named) throw new UnsupportedPattern('a look-around or inline flag');
        this.i += named[0].length;
      }
      const inner = this.alternation(false);
      if (this.src[this.i] !== ')') throw new UnsupportedPattern('an unclosed group');
      this.i++;
      return `(${inner})`;
    }
    if (c === '[') return this.charClass();
    if (c === '.') {
      this.i++;
      return classExpr([], true);
    }
    if (c === '\\') return this.escape(false).expr;
    if (c === '*' || c === '+' || c === '?' || c === '{' || c === '}' || c === ']')
      throw new UnsupportedPattern(`a stray "${c}"`);
    const code = this.src.codePointAt(this.i)!;
    this.i += code > 0xffff ? 2 : 1;
    return charLiteral(code);
  }

  /** An escape at `this.i` (the backslash): a class (`\d`) or one character. */
  private escape(inClass: boolean): { expr: string; ranges?: Range[]; negated?: boolean; code?: number } {
    const e = this.src[this.i + 1];
    if (e === undefined) throw new UnsupportedPattern('a trailing backslash');
    this.i += 2;
    const classes: Record<string, [Range[], boolean]> = {
      d: [DIGITS, false],
      D: [DIGITS, true],
      w: [WORD, false],
      W: [WORD, true],
      s: [SPACE, false],
      S: [[[0x09, 0x0d], ...SPACE], true],
    };
    const cls = classes[e];
    if (cls) return { expr: classExpr(cls[0], cls[1]), ranges: cls[0], negated: cls[1] };
    const controls: Record<string, number> = { n: 10, t: 9, r: 13, f: 12, v: 11, '0': 0 };
    let code: number | undefined = controls[e];
    if (code === undefined && (e === 'x' || e === 'u')) {
      const m = (e === 'x' ? /^[0-9A-Fa-f]{2}/ : /^[0-9A-Fa-f]{4}/).exec(this.src.slice(this.i));
      if (!m) throw new UnsupportedPattern(`a malformed \\${e} escape`);
      this.i += m[0].length;
      code = Number.parseInt(m[0], 16);
    }
    if (code === undefined && inClass && e === 'b') code = 8;
    if (code === undefined) {
      if (/[A-Za-z0-9]/.test(e)) throw new UnsupportedPattern(`the escape \\${e}`);
      code = e.codePointAt(0)!;
    }
    return { expr: charLiteral(code), code };
  }

  private charClass(): string {
    this.i++; // [
    let negated = false;
    if (this.src[this.i] === '^') {
      negated = true;
      this.i++;
    }
    const ranges: Range[] = [];
    while (this.i < this.src.length && this.src[this.i] !== ']') {
      const lo = this.classMember();
      if (lo === null) continue;
      if (this.src[this.i] === '-' && this.src[this.i + 1] !== ']' && this.i + 1 < this.src.length) {
        this.i++;
        const hi = this.classMember();
        if (hi === null || hi < lo) throw new UnsupportedPattern('a malformed class range');
        ranges.push([lo, hi]);
      } else ranges.push([lo, lo]);
    }
    if (this.src[this.i] !== ']') throw new UnsupportedPattern('an unclosed class');
    this.i++;
    ranges.push(...this.pending.splice(0));
    if (ranges.length === 0) throw new UnsupportedPattern('an empty class');
    return classExpr(ranges, negated);
  }

  /** One member of a class: a character code, or null after adding a shorthand class (`\d`). */
  private classMember(): number | null {
    const c = this.src[this.i]!;
    if (c === '\\') {
      const e = this.escape(true);
      if (e.ranges) {
        if (e.negated) throw new UnsupportedPattern('a negated shorthand inside a class');
        this.pending.push(...e.ranges);
        return null;
      }
      return e.code!;
    }
    const code = this.src.codePointAt(this.i)!;
    this.i += code > 0xffff ? 2 : 1;
    return code;
  }

  private readonly pending: Range[] = [];
}

/**
 * The GBNF for a string value matching `pattern` (the characters between the quotes), or throws
 * {@link UnsupportedPattern}.
 */
export function patternGbnf(pattern: string, options: { maxRepeat?: number } = {}): string {
  return new PatternParser(pattern, options.maxRepeat).parse();
}
