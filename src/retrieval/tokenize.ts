/**
 * The one tokenizer of the package (documented in docs/retrieval.md):
 * 1. split camelCase (`getWeatherByCity` → get Weather By City, `HTTPServer` → HTTP Server);
 * 2. lower-case; 3. split on every character that is not a Unicode letter or digit
 *    (so `_`, `-`, `/`, JSON punctuation separate words);
 * 4. drop tokens shorter than two characters and, unless `keepStopwords`, a short list of English
 *    stopwords.
 * Options switch steps off or swap the word list for other analyzers (the textbook BM25 of
 * `bm25-plain`, the baseline agent's API selection). Two stemmers go with it: `stem`, a light
 * plural stripper used by BM25 (not by word vectors, whose vocabulary has the inflected forms), and
 * `stemInflections`, which also strips -ing/-ed and keeps readable stems.
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
  /** Keep stopwords (default false: drop the words of `stopwords`). */
  keepStopwords?: boolean;
  /** The words to drop (default `STOPWORDS`). */
  stopwords?: ReadonlySet<string>;
  /** Split camelCase words (default true). */
  splitCamelCase?: boolean;
  /** Word characters: any Unicode letter or digit (default), or only ASCII a–z and 0–9. */
  letters?: 'unicode' | 'ascii';
  /** Shortest token kept (default 2). */
  minLength?: number;
}

const CAMEL = /([\p{Ll}\p{N}])(\p{Lu})|(\p{Lu})(\p{Lu}\p{Ll})/gu;
const SPLIT = /[^\p{L}\p{N}]+/u;
const NON_ASCII = /[^\x00-\x7f]/;

export function tokenize(text: string, opts: TokenizeOptions = {}): string[] {
  return opts.letters !== 'ascii' && NON_ASCII.test(text)
    ? tokenizeRegex(text, opts)
    : tokenizeAscii(text, opts);
}

/** The reference implementation (any Unicode text; `letters` is ignored): the regexes above. */
export function tokenizeRegex(text: string, opts: TokenizeOptions = {}): string[] {
  const spaced =
    opts.splitCamelCase === false
      ? text
      : text.replace(CAMEL, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`));
  const out: string[] = [];
  for (const raw of spaced.toLowerCase().split(SPLIT)) keep(raw, opts, out);
  return out;
}

function keep(raw: string, opts: TokenizeOptions, out: string[]): void {
  if (raw.length < (opts.minLength ?? 2)) return;
  if (!opts.keepStopwords && (opts.stopwords ?? STOPWORDS).has(raw)) return;
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
 * Property-tested against `tokenizeRegex`. On other text every non-ASCII character separates words
 * (what `letters: 'ascii'` asks for).
 */
export function tokenizeAscii(text: string, opts: TokenizeOptions = {}): string[] {
  const out: string[] = [];
  const n = text.length;
  const camel = opts.splitCamelCase !== false;
  const minLength = opts.minLength ?? 2;
  let start = -1; // start of the current word, -1 outside one
  const flush = (end: number) => {
    if (start >= 0 && end - start >= minLength) keep(text.slice(start, end).toLowerCase(), opts, out);
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
    if (!camel) {
      i++;
      continue;
    }
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
 * Suffix stripping that keeps stems readable (the baseline agent matches them as word prefixes):
 * plural -ies → -y, -es after s/sh/ch/x or a consonant + us (buses → bus), other final -s
 * (not -ss, -us; words of 4+ letters); then -ing (words of 6+ letters) or -ed (5+).
 * So `cities` → city, `classes` → class, `booking`/`booked` → book.
 */
export function stemInflections(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:ss|sh|ch|x|[^aeiou]us)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  return w;
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

/** The words of a text as the dense encoder sees them: the package tokenizer, then the light `stem`. */
export const denseWords = (text: string): string[] => tokenize(text).map(stem);
