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

export function tokenize(text: string, opts: TokenizeOptions = {}): string[] {
  const spaced = text.replace(CAMEL, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`));
  const out: string[] = [];
  for (const raw of spaced.toLowerCase().split(SPLIT)) {
    if (raw.length < 2) continue;
    if (!opts.keepStopwords && STOPWORDS.has(raw)) continue;
    out.push(raw);
  }
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
