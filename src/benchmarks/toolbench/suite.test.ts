import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Bm25Index,
  buildRetriever,
  FIELD_FEATURES,
  RANKER_INITIAL,
  type Retriever,
} from '../../retrieval/index.js';
import { writeToolBenchFixtures, writeTwoToolQueryFile } from './__fixtures__/data-root.js';
import {
  loadToolBenchEvalSuite,
  loadToolBenchSuite,
  RANKER_MULTI_TOOL_REQUESTS,
  toolBenchCorpus,
  toolBenchQueryFiles,
  trainToolBenchRanker,
} from './suite.js';

describe('ranked retriever on the fixture suite', () => {
  const suite = loadToolBenchSuite(writeToolBenchFixtures(undefined, ['G1_tool']), ['G1_tool']);
  const corpus = toolBenchCorpus(suite);

  it('exposes tool names and descriptions as fields', () => {
    expect(suite.toolNames).toHaveLength(suite.toolTexts.length);
    expect(corpus.groups?.names).toContain('GoalLine');
    expect(corpus.names).toContain('League table');
  });

  it('with the initial weights it scores doc.text/max + doc.second/max + 3·group.text/max', async () => {
    const ranked = await buildRetriever('ranked', corpus, { ranker: RANKER_INITIAL });
    const q = 'football league standings';
    const scaled = (idx: Bm25Index) => {
      const v = idx.scoreAllSync(q);
      const m = Math.max(...v);
      return [...v].map((x) => x / m);
    };
    const l = scaled(new Bm25Index(corpus.texts));
    const s = scaled(new Bm25Index(corpus.second as string[]));
    const t = scaled(new Bm25Index(corpus.groups?.texts as string[]));
    const expected = l.map((x, i) => x + (s[i] as number) + 3 * (t[suite.toolOf[i] as number] as number));
    expect([...(await ranked.scoreAll(q))]).toEqual(expected.map((x) => expect.closeTo(x, 5)));
  });

  it('trains weights for every field feature (no trained feature without feature models)', async () => {
    const r = await trainToolBenchRanker(suite, { trainOn: ['G1_tool'] });
    expect(Object.keys(r.weights)).toEqual([...FIELD_FEATURES]);
    expect(r.info).toMatchObject({
      trainOn: ['G1_tool'],
      queries: 1,
      trainedFeature: false,
      trainNdcg5: 100,
    });
    await expect(trainToolBenchRanker(suite, { trainOn: ['G1_nope'] })).rejects.toThrow(/G1_nope/);
  });

  it('learns from two-tool requests composed of the training queries (one per query by default)', async () => {
    // one file holding a SkyCast request and a GoalLine request: each composes with the other
    const root = writeToolBenchFixtures(undefined, []);
    writeTwoToolQueryFile(root, 'G1_category');
    const two = loadToolBenchSuite(root, ['G1_category']);
    expect(two.sets.get('G1_category')?.queries).toHaveLength(2);
    const mixed = await trainToolBenchRanker(two, { trainOn: ['G1_category'] });
    expect(mixed.info).toMatchObject({ queries: 4, multiToolRequests: RANKER_MULTI_TOOL_REQUESTS });
    expect(RANKER_MULTI_TOOL_REQUESTS).toBe(1);
    const alone = await trainToolBenchRanker(two, { trainOn: ['G1_category'], multiToolRequests: 0 });
    expect(alone.info).toMatchObject({ queries: 2, multiToolRequests: 0 });
    const twice = await trainToolBenchRanker(two, { trainOn: ['G1_category'], multiToolRequests: 2 });
    expect(twice.info).toMatchObject({ queries: 6 });
    await expect(
      trainToolBenchRanker(two, { trainOn: ['G1_category'], multiToolRequests: 0.5 }),
    ).rejects.toThrow('multiToolRequests must be a whole number ≥ 0, got 0.5');
    const fields = FIELD_FEATURES.filter((f) => f !== 'group.sentence');
    const older = await trainToolBenchRanker(two, { trainOn: ['G1_category'], fields });
    expect(Object.keys(older.weights)).toEqual(fields);
  });

  it('lists the query files of a folder: G1 first, then the others by name; symlinks count, other files do not', () => {
    const root = writeToolBenchFixtures(undefined, ['G1_tool', 'G1_instruction']);
    const dir = join(root, 'toolbench', 'queries');
    writeFileSync(join(dir, 'G3_instruction.json'), '[]');
    symlinkSync(join(dir, 'G1_tool.json'), join(dir, 'G2_category.json'));
    writeFileSync(join(dir, 'README.md'), '');
    mkdirSync(join(dir, 'old.json'));
    expect(toolBenchQueryFiles(root)).toEqual(['G1_instruction', 'G1_tool', 'G2_category', 'G3_instruction']);
    expect(toolBenchQueryFiles(join(root, 'nowhere'))).toEqual([]);
  });

  it('loadToolBenchEvalSuite: the files given, else every file of the folder; an error when none is there', () => {
    const root = writeToolBenchFixtures();
    expect([...loadToolBenchEvalSuite(root).sets.keys()]).toEqual(['G1_instruction', 'G1_tool']);
    expect([...loadToolBenchEvalSuite(root, ['G1_tool']).sets.keys()]).toEqual(['G1_tool']);
    expect(() => loadToolBenchEvalSuite(root, ['G2_nope'])).toThrow(/G2_nope/);
    const empty = writeToolBenchFixtures(undefined, []);
    expect(() => loadToolBenchEvalSuite(empty)).toThrow(/\*\.json/);
  });

  it('without entries keeps every text equal (copied out of the file text)', () => {
    const lean = loadToolBenchSuite(writeToolBenchFixtures(undefined, ['G1_tool']), ['G1_tool'], {
      entries: false,
    });
    expect(lean.docs.map(({ entry: _, ...d }) => d)).toEqual(suite.docs.map(({ entry: _, ...d }) => d));
    expect(lean.docs[0]?.entry.entries.size).toBe(0);
    expect(suite.docs[0]?.entry.entries.size).toBe(7);
    expect(lean.texts).toEqual(suite.texts);
    expect(lean.toolTexts).toEqual(suite.toolTexts);
    expect(lean.sets.get('G1_tool')?.queries).toEqual(suite.sets.get('G1_tool')?.queries);
  });

  it('takes any retriever as the trained feature (featureRetrievers at training, rankFeature at query time)', async () => {
    // a stand-in "dense" score: 1 for the first API, 0 elsewhere
    const first: Retriever = {
      name: 'first',
      scoreAll: async () => Float32Array.from(corpus.texts, (_, i) => (i === 0 ? 1 : 0)),
      search: async () => [],
    };
    const r = await trainToolBenchRanker(suite, {
      trainOn: ['G1_tool'],
      featureRetrievers: new Map([['G1_tool', first]]),
    });
    expect(Object.keys(r.weights)).toEqual([...FIELD_FEATURES, 'trained']);
    expect(r.info).toMatchObject({ trainedFeature: true });
    await expect(
      trainToolBenchRanker(suite, {
        trainOn: ['G1_tool'],
        featureRetrievers: new Map([['G1_other', first]]),
      }),
    ).rejects.toThrow(/feature retriever for/);
    // query time: the ranker's trained weight applies to rankFeature's scores (scaled by their max, 1)
    const weights = { 'doc.text': 0, trained: 2 };
    const ranked = await buildRetriever('ranked', corpus, {
      ranker: { weights, scaled: ['trained'] },
      rankFeature: () => first,
    });
    const got = [...(await ranked.scoreAll('football'))];
    expect(got).toEqual(corpus.texts.map((_, i) => (i === 0 ? 2 : 0)));
  });

  it('asks for a model when no weights are given', async () => {
    await expect(buildRetriever('ranked', corpus, {})).rejects.toThrow(/ranker weights/);
  });
});
