import { describe, expect, it } from 'vitest';
import {
  DenseEncoder,
  type DenseModel,
  DenseRetriever,
  encodeCorpus,
  WORD_MATCH_DEPTH,
} from './dense-encoder.js';
import { docWordLists, docWordListsProblem, WordMatcher } from './word-match.js';

// n-grams of length 9 do not fit in '<alpha>', so each word is its own row only:
// alpha = (1, 0), beta = (0, 1), gamma = (0.6, 0.8), omega = (−1, 0); unknown words have no row
const VOCABULARY = ['alpha', 'beta', 'gamma', 'omega'];
const model = (wordMatchWeight?: number): DenseModel => ({
  config: {
    dim: 2,
    buckets: 1,
    minN: 9,
    maxN: 9,
    ...(wordMatchWeight !== undefined ? { wordMatchWeight } : {}),
  },
  vocabulary: VOCABULARY,
  // pooling weights: alpha 1, beta 2, gamma 3, omega 1, unknown 0.5
  weights: Float32Array.from([1, 2, 3, 1, 0.5]),
  table: Float32Array.from([1, 0, 0, 1, 0.6, 0.8, -1, 0, 0, 0]),
  info: {},
});

describe('word lists of a corpus', () => {
  it('lists each document’s distinct analysed words as ids into one shared word list', () => {
    const lists = docWordLists(['Alpha beta alpha', '', 'Cities and beta']);
    expect(lists.words).toEqual(['alpha', 'beta', 'citi']);
    expect([...lists.offsets]).toEqual([0, 2, 2, 4]);
    expect([...lists.ids]).toEqual([0, 1, 2, 1]);
    expect(docWordListsProblem(lists, 3)).toBeUndefined();
  });

  it('names what is wrong with word lists that do not fit the corpus', () => {
    const lists = docWordLists(['alpha beta', 'gamma']);
    expect(docWordListsProblem(lists, 3)).toBe('3 word-list offsets for 3 documents (+1)');
    expect(docWordListsProblem({ ...lists, ids: Uint32Array.from([0, 1, 7]) }, 2)).toBe(
      'word id 7 outside the 3 corpus words',
    );
    expect(docWordListsProblem({ ...lists, offsets: Uint32Array.from([0, 3, 2]) }, 2)).toBe(
      'word-list offsets run 0..2 over 3 word ids',
    );
    expect(
      docWordListsProblem(
        { ...lists, offsets: Uint32Array.from([0, 3, 3]), ids: Uint32Array.from([0, 1, 2]) },
        2,
      ),
    ).toBeUndefined();
    expect(
      docWordListsProblem(
        { ...lists, offsets: Uint32Array.from([0, 3, 1, 3]), ids: Uint32Array.from([0, 1, 2]) },
        3,
      ),
    ).toBe('word-list offsets decrease at document 1');
  });
});

describe('word matching (late interaction)', () => {
  const m = model();
  const enc = new DenseEncoder(m.config, m.vocabulary, m.weights);
  const docs = ['alpha beta', 'gamma', 'delta', 'beta'];
  const matcher = new WordMatcher(enc, m.table, docWordLists(docs));

  it('averages, with the pooling weights, each query word’s best cosine with a document word', () => {
    // query alpha (weight 1) + gamma (3), total 4:
    // 'alpha beta': alpha 1, gamma max(0.6, 0.8) → (1 + 2.4)/4 = 0.85
    // 'gamma': alpha 0.6, gamma 1 → (0.6 + 3)/4 = 0.9;  'delta' (no row): 0;  'beta': (0 + 2.4)/4 = 0.6
    const got = matcher.scores('alpha gamma gamma', [0, 1, 2, 3]);
    expect([...got].map((x) => +x.toFixed(6))).toEqual([0.85, 0.9, 0, 0.6]);
  });

  it('counts a negative best cosine as no match, and a query without words as 0', () => {
    // omega · alpha = −1, omega · beta = 0 → best 0; omega · gamma = −0.6 → 0
    expect([...matcher.scores('omega', [0, 1])]).toEqual([0, 0]);
    expect([...matcher.scores('the of', [0, 1])]).toEqual([0, 0]);
  });

  it('gives an unknown query word (no row) no match, but its weight still counts', () => {
    // 'alpha zeta': alpha 1 · 1 + zeta 0.5 · 0 over 1.5
    expect(+(matcher.scores('alpha zeta', [0])[0] as number).toFixed(6)).toBe(+(1 / 1.5).toFixed(6));
  });

  it('adds β times the match to the dense score of the best documents only', async () => {
    const texts = docs;
    const withMatch = DenseRetriever.build(model(0.5), texts);
    const without = DenseRetriever.build(model(), texts);
    const q = 'alpha gamma gamma';
    const base = await without.scoreAll(q);
    const got = await withMatch.scoreAll(q);
    const match = [0.85, 0.9, 0, 0.6];
    expect([...got].map((x) => +x.toFixed(5))).toEqual(
      [...base].map((x, i) => +(x + 0.5 * (match[i] as number)).toFixed(5)),
    );
  });

  it(`re-scores the ${WORD_MATCH_DEPTH} best documents by the dense score, no others`, async () => {
    // WORD_MATCH_DEPTH copies of 'alpha' (cosine 1 with the query 'alpha') gain β · 1; 'gamma'
    // (cosine 0.6), past the depth, keeps 0.6 without its match bonus β · 0.6
    const texts = [...Array.from({ length: WORD_MATCH_DEPTH }, () => 'alpha'), 'gamma'];
    const r = DenseRetriever.build(model(1), texts);
    const got = await r.scoreAll('alpha');
    expect(got[0]).toBeCloseTo(2, 6);
    expect(got[WORD_MATCH_DEPTH - 1]).toBeCloseTo(2, 6);
    expect(got[WORD_MATCH_DEPTH]).toBeCloseTo(0.6, 6);
  });

  it('needs the documents’ word lists when the model matches words', () => {
    const vectors = encodeCorpus(model(0.5), docs);
    expect(() => new DenseRetriever(model(0.5), vectors)).toThrow(/pass the documents' word lists/);
    expect(() => new DenseRetriever(model(0.5), vectors, { docWords: docWordLists(['alpha']) })).toThrow(
      '2 word-list offsets for 4 documents (+1)',
    );
    expect(new DenseRetriever(model(0.5), vectors, { wordMatchWeight: 0 }).size).toBe(4);
  });
});
