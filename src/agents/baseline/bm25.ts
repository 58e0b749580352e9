/**
 * A small BM25 (k1 = 1.2, b = 0.75) over short documents, with a tokenizer that lower-cases,
 * splits on non-alphanumerics and underscores, drops stop words and applies a crude suffix
 * stemmer (plural -s/-es/-ies, buses → bus, -ing, -ed). Used only by the baseline agent.
 */

const STOP = new Set(
  'a an the and or of to in on at for from with by is are be me my i you your we our us it its this that these those as into onto about please can could would like need want some any all also then will just do does get'.split(
    ' ',
  ),
);

export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(?:ss|sh|ch|x|[^aeiou]us)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  return w;
}

export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 1 && !STOP.has(t))
    .map(stem);
}

export class Bm25 {
  private readonly docs: Map<string, number>[];
  private readonly lengths: number[];
  private readonly avgLength: number;
  private readonly df = new Map<string, number>();

  constructor(
    texts: readonly string[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.docs = texts.map((t) => {
      const tf = new Map<string, number>();
      for (const tok of tokenize(t)) tf.set(tok, (tf.get(tok) ?? 0) + 1);
      return tf;
    });
    this.lengths = this.docs.map((d) => [...d.values()].reduce((s, v) => s + v, 0));
    this.avgLength = this.lengths.reduce((s, v) => s + v, 0) / Math.max(1, this.lengths.length);
    for (const d of this.docs) for (const tok of d.keys()) this.df.set(tok, (this.df.get(tok) ?? 0) + 1);
  }

  /** BM25 score of every document for the query tokens (repeated query tokens count once). */
  scores(queryTokens: readonly string[]): number[] {
    const n = this.docs.length;
    const unique = [...new Set(queryTokens)];
    return this.docs.map((doc, i) => {
      let s = 0;
      for (const q of unique) {
        const tf = doc.get(q);
        if (!tf) continue;
        const df = this.df.get(q) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const len = this.lengths[i] ?? 0;
        s += (idf * tf * (this.k1 + 1)) / (tf + this.k1 * (1 - this.b + (this.b * len) / this.avgLength));
      }
      return s;
    });
  }
}
