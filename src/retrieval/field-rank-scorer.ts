import type { Bm25Index } from './bm25.js';
import { type FieldIndexes, familyCount, groupMaxInto, splitSentences } from './field-features.js';
import type { RankerModel } from './linear-ranker.js';
import { diversifyBySentence, type SentenceDiversity } from './sentence-diversity.js';

/** The largest value of a vector (0 for an empty or non-positive one). */
function maxOf(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) if ((a[i] as number) > m) m = a[i] as number;
  return m;
}

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const x = Math.abs(a[i] as number);
    if (x > m) m = x;
  }
  return m;
}

/**
 * `ranked`'s score, Σ_f w_f · x_f(d), computed without materialising the 18 per-document feature
 * vectors that `FieldFeatures.compute` builds (for training): group-level features are summed
 * once per group (12,300 tools instead of 46,802 APIs) and added to the members in one pass; BM25
 * is accumulated into reused buffers from terms analyzed once per text; name coverage is counted
 * through the name index's postings; features with weight 0 are not computed. Same features and
 * scaling as `LinearRankRetriever` over `FieldFeatures` (sums in float64, so scores can differ in
 * the last float32 bit; docs/retrieval.md reports the NDCG check).
 */
export class FieldRankScorer {
  private readonly n: number;
  private readonly w: (f: string) => number;
  private readonly scaled: ReadonlySet<string>;
  private readonly bufA: Float32Array;
  private readonly bufB: Float32Array;
  private readonly ds: Float32Array;
  private readonly hits: Uint32Array;
  private readonly logSize?: Float32Array;
  private readonly families: number;
  /** Per-sentence doc scores kept for the diversification, reused across queries (no garbage per query). */
  private readonly sentenceBufs: Float32Array[] = [];

  /**
   * With `diversity`, the best documents are then re-ranked by `diversifyBySentence` over the
   * request's sentences (the doc scores per sentence are those `doc.sentence` is made of).
   */
  constructor(
    private readonly ix: FieldIndexes,
    model: RankerModel,
    private readonly diversity?: SentenceDiversity,
  ) {
    this.n = ix.text.size;
    this.w = (f) => model.weights[f] ?? 0;
    this.scaled = new Set(model.scaled);
    this.bufA = new Float32Array(this.n);
    this.bufB = new Float32Array(this.n);
    this.ds = new Float32Array(this.n);
    this.hits = new Uint32Array(this.n);
    const g = ix.group;
    this.families = g?.familyOf ? familyCount(g.familyOf) : 0;
    if (g) {
      const size = new Float32Array(g.count);
      for (const k of g.groupOf) size[k] = (size[k] as number) + 1;
      this.logSize = size.map((s) => (s > 0 ? Math.log(s) : 0));
    }
  }

  /** Adds w · x / scale into acc (scale = max |x| when the feature is scaled). */
  private addScaled(acc: Float64Array, f: string, x: ArrayLike<number>): void {
    const w = this.w(f);
    if (w === 0) return;
    const m = this.scaled.has(f) ? maxAbs(x) : 0;
    const c = m > 0 ? w / m : w;
    for (let i = 0; i < acc.length; i++) acc[i] = (acc[i] as number) + c * (x[i] as number);
  }

  /** Share of each document's distinct indexed words found in `words`, times w, into acc. */
  private addCoverage(acc: Float64Array, w: number, index: Bm25Index, words: ReadonlySet<string>): void {
    if (w === 0) return;
    const hits = index.size === this.n ? this.hits : new Uint32Array(index.size);
    hits.fill(0);
    index.countMatches(words, hits);
    const distinct = index.distinctTermsPerDoc();
    for (let i = 0; i < acc.length; i++)
      if (hits[i]) acc[i] = (acc[i] as number) + (w * (hits[i] as number)) / (distinct[i] as number);
  }

  /** doc.text + doc.second of already-analyzed terms, in float32 as `FieldFeatures` sums them. */
  private docScore(terms: readonly string[], out: Float32Array): Float32Array {
    this.ix.text.scoreTermsInto(terms, out);
    if (this.ix.second) {
      const t = this.ix.second.scoreTermsInto(terms, this.bufB);
      for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) + (t[i] as number);
    }
    return out;
  }

  /**
   * Scores every document for a query; `extra` holds further per-document features by name
   * (e.g. `trained`), weighted and scaled like the rest.
   */
  score(query: string, extra?: ReadonlyMap<string, ArrayLike<number>>): Float32Array {
    const { ix, n, w } = this;
    const text = ix.text;
    const terms = text.terms(query);
    const words = new Set(terms);
    const acc = new Float64Array(n);
    // doc-level BM25 fields; doc.text + doc.second are kept for group.top2 (computed once)
    const needTop2 = Boolean(ix.group && w('group.top2'));
    const docText = needTop2 || w('doc.text') ? text.scoreTermsInto(terms, this.bufA) : undefined;
    const docSecond =
      ix.second && (needTop2 || w('doc.second')) ? ix.second.scoreTermsInto(terms, this.bufB) : undefined;
    if (docText) this.addScaled(acc, 'doc.text', docText);
    if (docSecond) this.addScaled(acc, 'doc.second', docSecond);
    const top2Doc = needTop2 ? new Float32Array(n) : undefined;
    if (top2Doc && docText)
      for (let i = 0; i < n; i++)
        top2Doc[i] = (docText[i] as number) + (docSecond ? (docSecond[i] as number) : 0);
    if (ix.name && w('doc.name')) this.addScaled(acc, 'doc.name', ix.name.scoreTermsInto(terms, this.ds));
    if (ix.description && w('doc.description'))
      this.addScaled(acc, 'doc.description', ix.description.scoreTermsInto(terms, this.ds));
    if (ix.name) this.addCoverage(acc, w('doc.name.coverage'), ix.name, words);
    for (const [f, x] of extra ?? []) this.addScaled(acc, f, x);

    const g = ix.group;
    const wSentence = w('doc.sentence');
    const wGroupSentence = g ? w('group.sentence') : 0;
    const wCover = g ? w('group.coverage') : 0;
    const wCoverText = g ? w('group.coverage.text') : 0;
    const wFamily = g?.familyOf ? w('family.coverage') : 0;
    const count = g?.count ?? 0;
    const cover = new Float64Array(count);
    const coverText = new Float64Array(count);
    const familyCover = new Float64Array(this.families);
    // group.sentence is the best doc.sentence of a group's members
    const docSentence = wSentence || wGroupSentence ? new Float32Array(n) : undefined;
    const diversify = this.diversity && this.diversity.lambda !== 0 ? this.diversity : undefined;
    const sentenceScores: Float32Array[] = [];
    if (docSentence || wCover || wCoverText || wFamily || diversify) {
      const sentences = splitSentences(query);
      const share = 1 / sentences.length;
      const best = new Float32Array(count);
      const groupBuf = new Float32Array(count);
      const familyBest = new Float32Array(this.families);
      for (const s of sentences) {
        const st = text.terms(s);
        const ds = this.docScore(st, this.ds);
        if (diversify && sentences.length > 1) {
          const buf = this.sentenceBufs[sentenceScores.length] ?? new Float32Array(n);
          this.sentenceBufs[sentenceScores.length] = buf;
          buf.set(ds);
          sentenceScores.push(buf);
        }
        const m = maxOf(ds) || 1;
        if (docSentence)
          for (let i = 0; i < n; i++) {
            const r = (ds[i] as number) / m;
            if (r > (docSentence[i] as number)) docSentence[i] = r;
          }
        if (g && (wCover || wFamily)) {
          groupMaxInto(ds, g.groupOf, best);
          for (let k = 0; k < count; k++) cover[k] = (cover[k] as number) + ((best[k] as number) / m) * share;
          if (wFamily && g.familyOf) {
            groupMaxInto(best, g.familyOf, familyBest);
            for (let c = 0; c < this.families; c++)
              familyCover[c] = (familyCover[c] as number) + ((familyBest[c] as number) / m) * share;
          }
        }
        if (g && wCoverText) {
          const ts = g.text.scoreTermsInto(st, groupBuf);
          const mt = maxOf(ts) || 1;
          for (let k = 0; k < count; k++)
            coverText[k] = (coverText[k] as number) + ((ts[k] as number) / mt) * share;
        }
      }
      if (docSentence) this.addScaled(acc, 'doc.sentence', docSentence);
    }
    const finish = (scores: Float32Array) =>
      diversify && sentenceScores.length > 1
        ? diversifyBySentence(scores, sentenceScores, diversify)
        : scores;
    if (!g) return finish(Float32Array.from(acc));

    // group-level features, summed per group, then added to every member
    const gacc = new Float64Array(count);
    const groupBm25: Array<[string, Bm25Index | undefined]> = [
      ['group.text', g.text],
      ['group.text.b03', g.textB03],
      ['group.text.k2b05', g.textK2],
      ['group.name', g.name],
      ['group.description', g.description],
    ];
    const gbuf = new Float32Array(count);
    for (const [f, index] of groupBm25)
      if (index && w(f)) this.addScaled(gacc, f, index.scoreTermsInto(terms, gbuf));
    this.addScaled(gacc, 'group.coverage', cover);
    if (wGroupSentence && docSentence)
      this.addScaled(gacc, 'group.sentence', groupMaxInto(docSentence, g.groupOf, new Float32Array(count)));
    this.addScaled(gacc, 'group.coverage.text', coverText);
    if (wFamily && g.familyOf)
      for (let k = 0; k < count; k++)
        gacc[k] = (gacc[k] as number) + wFamily * (familyCover[g.familyOf[k] as number] as number);
    if (top2Doc) {
      const d = top2Doc;
      const top1 = new Float32Array(count);
      const top2 = new Float32Array(count);
      for (let i = 0; i < n; i++) {
        const k = g.groupOf[i] as number;
        const x = d[i] as number;
        if (x > (top1[k] as number)) {
          top2[k] = top1[k] as number;
          top1[k] = x;
        } else if (x > (top2[k] as number)) top2[k] = x;
      }
      for (let k = 0; k < count; k++) top1[k] = (top1[k] as number) + (top2[k] as number);
      this.addScaled(gacc, 'group.top2', top1);
    }
    const logSize = this.logSize as Float32Array;
    this.addScaled(gacc, 'group.log-size', logSize);
    const wSingle = w('group.single');
    if (wSingle)
      for (let k = 0; k < count; k++) if (logSize[k] === 0) gacc[k] = (gacc[k] as number) + wSingle;
    if (g.name) this.addCoverage(gacc, w('group.name.coverage'), g.name, words);

    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = (acc[i] as number) + (gacc[g.groupOf[i] as number] as number);
    return finish(out);
  }
}
