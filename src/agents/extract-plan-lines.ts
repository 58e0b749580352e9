/**
 * Tolerant cleaner for model replies: keeps only lines that look like AppBench plan lines
 * (`App: [outs = api(args)]`) and strips what models wrap around them. Never throws.
 *
 * Per line: drop code-fence lines (```), remove `**` emphasis (and `__` wrapping a whole line) and inline backticks,
 * strip list markers (`1.`, `2)`, `-`, `*`, `•`, `Step 3:`), then keep the line if it matches
 * `Word: [ ... = name( ... ) ... ]`. A bare call written with the App prefix in the API name
 * (`[x = Rents_getride(...)]` or `x = Rents_getride(...)`) is rewritten to `Rents: [x = Rents_getride(...)]`;
 * a line holding only `App:` is joined with the call on the next line.
 *
 * The reply is the model's: every step is linear in its length. The two line shapes were once
 * backtracking regexes (`Word: [` + `=a()` × 4000 took 40 s); they are scanners now
 * ({@link matchPlanLine}, {@link matchBareCall}) that accept exactly what those regexes accepted:
 *   plan line  /^([A-Za-z_]\w*)\s*:\s*\[[^\]]*=\s*\w+\s*\(.*\)[^\]]*\]$/
 *   bare call  /^\[?\s*([^[\]=]+?=\s*([A-Z][A-Za-z]*)_\w+\s*\(.*\))\s*\]?$/
 * The regexes left below are anchored, with neighbouring quantifiers over disjoint characters.
 */
const LIST_MARKER = /^(?:(?:step\s*)?\d+\s*[.):]\s*|[-*•+]\s+|>\s*)/i;
/** An `App:` line waiting for its call on the next line. */
const APP_ONLY_LINE = /^\W*[A-Za-z_]\w*\s*:\W*$/;

const isWordCode = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isLetterCode = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isWordStartCode = (c: number) => isLetterCode(c) || c === 95;
/** What `.` does not match (a lone `\r` survives the split of a reply into lines). */
const isLineTerminatorCode = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
const SPACE = /\s/;
const isSpaceAt = (s: string, i: number) => i < s.length && SPACE.test(s[i]!);

function skipSpaces(s: string, i: number): number {
  while (isSpaceAt(s, i)) i++;
  return i;
}

/**
 * Where `\s*\w+\s*\(` starting at `from` ends (the index after `(`), or -1. The three parts take
 * disjoint characters, so the match is unique: one pass, no backtracking. Scanning from each `=`
 * covers only spaces and word characters, so scans from different `=` never overlap.
 */
function callOpenEnd(s: string, from: number): number {
  let i = skipSpaces(s, from);
  const wordStart = i;
  while (i < s.length && isWordCode(s.charCodeAt(i))) i++;
  if (i === wordStart) return -1;
  i = skipSpaces(s, i);
  return s[i] === '(' ? i + 1 : -1;
}

/**
 * Whether a `)` lies in [lo, hi) with no line terminator between `open` (just after `(`) and it:
 * the `.*\)` of the regexes. `nextParen`/`nextBreak` are the next `)` / line terminator at or
 * after an index (precomputed once per line).
 */
function parenReachable(lo: number, open: number, nextParen: Int32Array, nextBreak: Int32Array): boolean {
  if (lo >= nextParen.length) return false;
  const p = nextParen[lo]!;
  return p >= 0 && (nextBreak[open]! < 0 || p < nextBreak[open]!);
}

/** Next index ≥ i holding a character that passes `test` (-1: none), for every i. */
function nextIndexTable(s: string, test: (c: number) => boolean): Int32Array {
  const table = new Int32Array(s.length + 1);
  let next = -1;
  table[s.length] = -1;
  for (let i = s.length - 1; i >= 0; i--) {
    if (test(s.charCodeAt(i))) next = i;
    table[i] = next;
  }
  return table;
}

/** The app name when `s` is a whole plan line `App: [ … = api( … ) … ]`, else undefined. */
function matchPlanLine(s: string): string | undefined {
  if (s.length === 0 || !isWordStartCode(s.charCodeAt(0))) return undefined;
  let i = 1;
  while (i < s.length && isWordCode(s.charCodeAt(i))) i++;
  const app = s.slice(0, i);
  i = skipSpaces(s, i);
  if (s[i] !== ':') return undefined;
  i = skipSpaces(s, i + 1);
  if (s[i] !== '[') return undefined;
  const bodyStart = i + 1;
  const last = s.length - 1;
  if (last < bodyStart || s[last] !== ']') return undefined;
  // `[^\]]*` before the call: the `=` comes before the body's first `]` (the closing one included).
  const firstBracket = s.indexOf(']', bodyStart);
  // `[^\]]*\]$` after the call: the `)` comes after the body's last `]` other than the closing one.
  const lastInnerBracket = s.lastIndexOf(']', last - 1);
  const afterLo = Math.max(lastInnerBracket + 1, bodyStart);
  let nextParen: Int32Array | undefined;
  let nextBreak: Int32Array | undefined;
  for (let eq = s.indexOf('=', bodyStart); eq >= 0 && eq < firstBracket; eq = s.indexOf('=', eq + 1)) {
    const open = callOpenEnd(s, eq + 1);
    if (open < 0 || open > last) continue;
    nextParen ??= nextIndexTable(s, (c) => c === 41);
    nextBreak ??= nextIndexTable(s, isLineTerminatorCode);
    const lo = Math.max(open, afterLo);
    if (lo < last && parenReachable(lo, open, nextParen, nextBreak) && nextParen[lo]! < last) return app;
  }
  return undefined;
}

/** `App: [outs = App_api(…)]` for a bare call whose API name carries its app, else undefined. */
function matchBareCall(s: string): string | undefined {
  let start = s[0] === '[' ? 1 : 0;
  const eq = s.indexOf('=', start);
  if (eq < 0) return undefined;
  // `\s*[^[\]=]+?`: at least one character before the first `=`, none of them a bracket
  if (eq === start) return undefined;
  for (let i = start; i < eq; i++) if (s[i] === '[' || s[i] === ']') return undefined;
  start = skipSpaces(s, start);
  // `([A-Z][A-Za-z]*)_\w+\s*\(`
  let i = skipSpaces(s, eq + 1);
  const c0 = s.charCodeAt(i);
  if (!(c0 >= 65 && c0 <= 90)) return undefined;
  const appStart = i;
  while (i < s.length && isLetterCode(s.charCodeAt(i))) i++;
  if (s[i] !== '_') return undefined;
  const app = s.slice(appStart, i);
  // `\w+` right after the `_` (callOpenEnd would allow spaces before it)
  if (!isWordCode(s.charCodeAt(i + 1))) return undefined;
  const open = callOpenEnd(s, i + 1);
  if (open < 0) return undefined;
  // `.*\)\s*\]?$`: the last `)`, followed only by spaces and an optional `]`
  const close = s.lastIndexOf(')');
  if (close < open) return undefined;
  let k = skipSpaces(s, close + 1);
  if (s[k] === ']') k++;
  if (k !== s.length) return undefined;
  for (let j = open; j < close; j++) if (isLineTerminatorCode(s.charCodeAt(j))) return undefined;
  return `${app}: [${s.slice(start, close + 1).trim()}]`;
}

/** `s` without its trailing `*`, backticks and spaces (a scan, not `/[*`\s]+$/`). */
function trimEmphasisEnd(s: string): string {
  let end = s.length;
  while (end > 0 && (s[end - 1] === '*' || s[end - 1] === '`' || SPACE.test(s[end - 1]!))) end--;
  return s.slice(0, end);
}

export function cleanPlanLine(line: string): string | undefined {
  let s = line.trim();
  if (s.startsWith('```')) return undefined;
  s = s.replaceAll('**', '');
  if (s.length >= 4 && s.startsWith('__') && s.endsWith('__') && !hasLineTerminator(s)) s = s.slice(2, -2);
  s = s.replaceAll('`', '').trim();
  for (let i = 0; i < 3; i++) {
    const next = s.replace(LIST_MARKER, '').trim();
    if (next === s) break;
    s = next;
  }
  s = withoutTrailingPunctuation(s);
  const app = matchPlanLine(s);
  if (app !== undefined) {
    const body = s.slice(s.indexOf('[') + 1).trim();
    return `${app}: [${body.trimStart()}`;
  }
  return matchBareCall(s);
}

function hasLineTerminator(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (isLineTerminatorCode(s.charCodeAt(i))) return true;
  return false;
}

/** A trailing comma, semicolon or full stop after the closing bracket goes: `…] ,` → `…]`. */
function withoutTrailingPunctuation(s: string): string {
  let end = s.length;
  while (end > 0 && SPACE.test(s[end - 1]!)) end--;
  if (end === 0 || !',;.'.includes(s[end - 1]!)) return s;
  let k = end - 1;
  while (k > 0 && SPACE.test(s[k - 1]!)) k--;
  return k > 0 && s[k - 1] === ']' ? s.slice(0, k) : s;
}

/** The plan lines of a reply, cleaned and joined with `\n` ('' when there are none). */
export function extractPlanLines(text: string): string {
  if (typeof text !== 'string' || text.length === 0) return '';
  const out: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    let cleaned = cleanPlanLine(line);
    // "Rents:" alone, the call on the next line
    if (cleaned === undefined && APP_ONLY_LINE.test(line) && i + 1 < lines.length) {
      const joined = cleanPlanLine(`${trimEmphasisEnd(line)} ${lines[i + 1]?.trim() ?? ''}`);
      if (joined !== undefined) {
        cleaned = joined;
        i++;
      }
    }
    if (cleaned !== undefined) out.push(cleaned);
  }
  return out.join('\n');
}
