/**
 * The one tokenizer of the retrieval domain (documented in docs/retrieval.md):
 * 1. split camelCase (`getWeatherByCity` → get Weather By City, `HTTPServer` → HTTP Server);
 * 2. lower-case; 3. split on every character that is not a Unicode letter or digit
 *    (so `_`, `-`, `/`, JSON punctuation separate words);
 * 4. drop tokens of one character and, unless `keepStopwords`, a short list of English stopwords.
 * `stem` is an optional light plural stripper used by BM25 (not by word vectors, whose
 * vocabulary has the inflected forms).
 */

export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by for from has have he her his how i if in into is it its me my of on or our ' +
    'she so than that the their them then there these they this to us was we were what when where which who ' +
    'will with would you your can could do does did am been being also any all about me some such please ' +
    'im ive id'
  ).split(' '),
);

export interface TokenizeOptions {
  keepStopwords?: boolean;
}

const CAMEL = /([\p{Ll}\p{N}])(\p{Lu})|(\p{Lu})(\p{Lu}\p{Ll})/gu;
const SPLIT = /[^\p{L}\p{N}]+/u;
const NON_ASCII = /[^\x00-\x7f]/;

export function tokenize(text: string, opts: TokenizeOptions = {}): string[] {
  return NON_ASCII.test(text) ? tokenizeRegex(text, opts) : tokenizeAscii(text, opts);
}

/** The reference implementation (any Unicode text): the regexes above. */
export function tokenizeRegex(text: string, opts: TokenizeOptions = {}): string[] {
  const spaced = text.replace(CAMEL, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`));
  const out: string[] = [];
  for (const raw of spaced.toLowerCase().split(SPLIT)) keep(raw, opts, out);
  return out;
}

function keep(raw: string, opts: TokenizeOptions, out: string[]): void {
  if (raw.length < 2) return;
  if (!opts.keepStopwords && STOPWORDS.has(raw)) return;
  out.push(raw);
}

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * The same tokens for ASCII text in one pass over char codes (BM25 index builds spend most of
 * their time here; ~3× faster than the regexes). The camelCase rule follows the regex's
 * left-to-right, non-overlapping matching: at i, "lower/digit + Upper" splits between them and
 * resumes after the pair; "Upper + Upper lower" splits after the first and resumes after all three.
 * Property-tested against `tokenizeRegex`.
 */
export function tokenizeAscii(text: string, opts: TokenizeOptions = {}): string[] {
  const out: string[] = [];
  const n = text.length;
  let start = -1; // start of the current word, -1 outside one
  const flush = (end: number) => {
    if (start >= 0 && end - start >= 2) keep(text.slice(start, end).toLowerCase(), opts, out);
    start = -1;
  };
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (!(isUpper(c) || isLower(c) || isDigit(c))) {
      flush(i);
      i++;
      continue;
    }
    if (start < 0) start = i;
    const c1 = i + 1 < n ? text.charCodeAt(i + 1) : 0;
    if ((isLower(c) || isDigit(c)) && isUpper(c1)) {
      flush(i + 1);
      start = i + 1;
      i += 2;
    } else if (isUpper(c) && isUpper(c1) && i + 2 < n && isLower(text.charCodeAt(i + 2))) {
      flush(i + 1);
      start = i + 1;
      i += 3;
    } else i++;
  }
  flush(n);
  return out;
}

/**
 * Light suffix stripping so that singular and plural meet: `ies`→`i`, `sses`→`ss`, final `s`
 * dropped (not after `s`, `u`, `i`); then a final `y` after a consonant → `i` and a final `e`
 * dropped (words of 5+ letters). So `movies`/`movie` → `movi`, `cities`/`city` → `citi`.
 */
export function stem(token: string): string {
  let t = token;
  if (t.length > 4 && t.endsWith('ies')) t = `${t.slice(0, -3)}i`;
  else if (t.endsWith('sses')) t = t.slice(0, -2);
  else if (t.length > 3 && t.endsWith('s') && !/[sui]s$/.test(t)) t = t.slice(0, -1);
  if (t.length > 2 && /[^aeiou]y$/.test(t)) t = `${t.slice(0, -1)}i`;
  else if (t.length > 4 && t.endsWith('e')) t = t.slice(0, -1);
  return t;
}
