import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputInvalidError } from '../shared/index.js';
import { buildRetriever, type RetrieverKind } from './build-retriever.js';
import { trainDenseEncoder } from './dense-encoder.js';
import type { FieldedCorpus } from './field-features.js';
import { buildRetrievalIndex, corpusHash, indexBuildSteps, openRetrievalIndex } from './index-cache.js';
import { INDEX_FORMAT_VERSION, loadRetrievalIndex, saveRetrievalIndex } from './index-file.js';
import { docWordLists } from './word-match.js';

const corpus: FieldedCorpus = {
  texts: [
    'Hotels. book a hotel room',
    'Flights. find a cheap flight',
    'Hotels. search hotels by city',
    'Café. crème brûlée',
  ],
  second: [
    'book_room(hotel_name, nights)',
    'search_flights(origin, destination)',
    'search_hotels(city)',
    'menu()',
  ],
  names: ['bookRoom', 'searchFlights', 'searchHotels', 'menu'],
  descriptions: ['book a hotel room', 'find a cheap flight', 'search hotels by city', 'the menu'],
  groups: {
    texts: ['Hotels. rooms and stays in every city', 'Flights. cheap flights between cities', 'Café'],
    names: ['Hotels', 'Flights', 'Café'],
    descriptions: ['rooms', 'flights', 'food'],
    groupOf: Uint32Array.from([0, 1, 0, 2]),
    familyOf: Uint32Array.from([0, 0, 1]),
  },
};
const ranker = {
  weights: { 'doc.text': 1, 'group.coverage': 2, 'doc.name.coverage': 0.5, 'family.coverage': 1 },
  scaled: ['doc.text'],
};
const dir = mkdtempSync(join(tmpdir(), 'apiary-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hash = corpusHash(corpus);
const built = () =>
  buildRetrievalIndex(corpus, { catalog: 'demo', catalogHash: hash, ranker, labels: ['a', 'b', 'c', 'd'] });

describe('retrieval index files', () => {
  const path = join(dir, 'demo.apix');
  saveRetrievalIndex(path, built());

  it('round trip: every lexical kind ranks exactly as when built from the corpus', async () => {
    const loaded = loadRetrievalIndex(path);
    expect(loaded.catalog).toBe('demo');
    expect(loaded.catalogHash).toBe(hash);
    expect(loaded.labels).toEqual(['a', 'b', 'c', 'd']);
    expect(loaded.ranker).toEqual(ranker);
    expect([...(loaded.indexes.group?.familyOf ?? [])]).toEqual([0, 0, 1]);
    const kinds: RetrieverKind[] = ['bm25-plain', 'bm25', 'bm25-tool', 'bm25-fields', 'ranked'];
    for (const q of ['cheap hotel room in the city. Then a flight', 'crème brûlée', 'nothing matches']) {
      for (const kind of kinds) {
        const fresh = await buildRetriever(kind, corpus, { ranker });
        const fromFile = await buildRetriever(kind, corpus, {
          ranker,
          indexes: loaded.indexes,
          ...(loaded.plain ? { plain: loaded.plain } : {}),
        });
        expect([...(await fromFile.scoreAll(q))]).toEqual([...(await fresh.scoreAll(q))]);
      }
    }
  });

  it('keeps a dense encoder, its document vectors and word lists: dense and dense-hybrid rank as when built', async () => {
    const { model } = trainDenseEncoder(
      (corpus.descriptions ?? []).map((d, i) => ({ query: d, doc: corpus.texts[i] as string })),
      {
        config: { dim: 8, buckets: 64, minN: 3, maxN: 3, wordMatchWeight: 0.5 },
        epochs: 1,
        batchSize: 2,
        seed: 3,
      },
    );
    const densePath = join(dir, 'dense.apix');
    saveRetrievalIndex(
      densePath,
      buildRetrievalIndex(corpus, { catalog: 'demo', catalogHash: hash, dense: model }),
    );
    const loaded = loadRetrievalIndex(densePath);
    expect(loaded.dense?.vectors).toHaveLength(4 * 8);
    expect(loaded.dense?.model.vocabulary).toEqual(model.vocabulary);
    expect([...(loaded.dense?.model.table ?? [])]).toEqual([...model.table]);
    const words = docWordLists(corpus.texts);
    expect(loaded.dense?.docWords.words).toEqual(words.words);
    expect([...(loaded.dense?.docWords.offsets ?? [])]).toEqual([...words.offsets]);
    expect([...(loaded.dense?.docWords.ids ?? [])]).toEqual([...words.ids]);
    for (const kind of ['dense', 'dense-hybrid'] as const) {
      const fresh = await buildRetriever(kind, corpus, { dense: () => ({ model }) });
      const fromFile = await buildRetriever(
        kind,
        { texts: [] },
        { indexes: loaded.indexes, dense: () => loaded.dense as NonNullable<typeof loaded.dense> },
      );
      const q = 'cheap hotel room';
      expect([...(await fromFile.scoreAll(q))]).toEqual([...(await fresh.scoreAll(q))]);
    }
    expect(loadRetrievalIndex(path).dense).toBeUndefined();
    // word lists that do not fit the corpus are refused, with the section named
    const dense = loaded.dense as NonNullable<typeof loaded.dense>;
    const badPath = join(dir, 'dense-bad-words.apix');
    saveRetrievalIndex(badPath, {
      ...loaded,
      dense: { ...dense, docWords: { ...dense.docWords, ids: Uint32Array.from([...words.ids, 999]) } },
    });
    expect(() => loadRetrievalIndex(badPath)).toThrow(
      /dense\.wordIds.*word-list offsets run 0\.\.\d+ over \d+ word ids/,
    );
  });

  it('counts one build step per BM25 index (9 field indexes + bm25-plain)', () => {
    const steps: string[] = [];
    buildRetrievalIndex(corpus, { catalog: 'demo', catalogHash: hash, onStep: (s) => steps.push(s) });
    expect(steps).toHaveLength(indexBuildSteps(corpus));
    expect(steps).toEqual([
      'text',
      'second',
      'name',
      'description',
      'group.text',
      'group.text.b03',
      'group.text.k2b05',
      'group.name',
      'group.description',
      'plain',
    ]);
  });

  it('the catalog hash changes with any field', () => {
    const changed = {
      ...corpus,
      descriptions: ['book a hotel room', 'find a cheap flight', 'x', 'the menu'],
    };
    expect(corpusHash(changed)).not.toBe(hash);
    expect(corpusHash({ ...corpus })).toBe(hash);
  });

  const failure = (file: string): InputInvalidError => {
    try {
      loadRetrievalIndex(file);
    } catch (e) {
      return e as InputInvalidError;
    }
    throw new Error('expected the load to fail');
  };

  it('a damaged file is a clear error: bad magic, truncation, flipped byte, old version', () => {
    const bytes = readFileSync(path);
    const variant = (name: string, edit: (b: Buffer) => Buffer) => {
      const p = join(dir, name);
      writeFileSync(p, edit(Buffer.from(bytes)));
      return failure(p);
    };
    const magic = variant('magic.apix', (b) => {
      b.write('NOTANIDX', 0, 'latin1');
      return b;
    });
    expect(magic).toBeInstanceOf(InputInvalidError);
    expect(magic.message).toContain('not an apiary retrieval index');
    expect(variant('short.apix', (b) => b.subarray(0, b.length - 9)).message).toContain('truncated');
    const flipped = variant('flip.apix', (b) => {
      b[b.length - 20] = (b[b.length - 20] as number) ^ 0xff;
      return b;
    });
    expect(flipped.message).toContain('checksum mismatch');
    expect(flipped.field).toBe('crc32');
    const old = variant('old.apix', (b) => {
      const len = b.readUInt32LE(8);
      const header = b
        .toString('utf8', 12, 12 + len)
        .replace(`"version":${INDEX_FORMAT_VERSION}`, '"version":0');
      b.write(header, 12, 'utf8');
      return b;
    });
    expect(old.message).toContain(`format version 0, this apiary reads version ${INDEX_FORMAT_VERSION}`);
    expect(variant('empty.apix', () => Buffer.alloc(0)).message).toContain('bad magic');
  });

  it('openRetrievalIndex builds on first use, loads when current, rebuilds when stale or damaged', () => {
    const p = join(dir, 'cache.apix');
    const notes: string[] = [];
    let builds = 0;
    const open = (catalogHash: string) =>
      openRetrievalIndex({
        path: p,
        catalog: 'demo',
        catalogHash,
        build: () => {
          builds++;
          return { ...built(), catalogHash };
        },
        log: (m) => notes.push(m),
      });
    expect(open(hash).from).toBe('built');
    expect(open(hash).from).toBe('loaded');
    expect(builds).toBe(1);
    // the catalog changed: the file is stale
    expect(open('f'.repeat(64)).from).toBe('built');
    expect(notes.some((n) => n.includes('built for another version of catalog demo'))).toBe(true);
    writeFileSync(p, 'garbage');
    expect(open('f'.repeat(64)).from).toBe('built');
    expect(notes.some((n) => n.includes('is unusable') && n.includes('bad magic'))).toBe(true);
    expect(builds).toBe(3);
    expect(loadRetrievalIndex(p).catalogHash).toBe('f'.repeat(64));
    // an index of another catalog is an error, never overwritten
    expect(() =>
      openRetrievalIndex({ path: p, catalog: 'other', catalogHash: hash, build: () => built() }),
    ).toThrow(`index ${p} holds catalog demo, not other: pass another --index file`);
    expect(loadRetrievalIndex(p).catalog).toBe('demo');
  });
});
