import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  writeToolBenchFixtures,
  writeTwoToolQueryFile,
} from '../../benchmarks/toolbench/__fixtures__/data-root.js';
import { evaluateRetriever, loadToolBenchSuite, toolBenchCorpus } from '../../benchmarks/toolbench/index.js';
import { buildRetriever, composedTestRequests, saveTrainCheckpoint } from '../../retrieval/index.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

describe('apiary retrieve', () => {
  const data = writeToolBenchFixtures();
  /** `retrieve train --retriever dense --data <fixtures> --out <out> …`; `small` adds an 8-d, 512-bucket encoder. */
  const trainDense = (out: string, args: string[], small = true) =>
    apiary(
      'retrieve',
      'train',
      '--retriever',
      'dense',
      ...(small ? ['--dim', '8', '--buckets', '512'] : []),
      ...args,
      '--data',
      data,
      '--out',
      out,
    );

  it('eval: NDCG with tie averaging over the whole corpus', async () => {
    const r = await apiary(
      'retrieve',
      'eval',
      '--dataset',
      'toolbench',
      '--retriever',
      'bm25',
      '--data',
      data,
      '--json',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    const instr = out.results.find((x: { file: string }) => x.file === 'G1_instruction');
    // 1 of 3 queries kept; no query word occurs in the corpus → all 4 documents tie, 2 relevant:
    // NDCG@1 = 2/4; NDCG@5 = 0.5·(1 + 1/log2 3 + 1/2 + 1/log2 5) / (1 + 1/log2 3)
    expect(instr.queries).toBe(1);
    expect(instr.total).toBe(3);
    expect(instr.ndcg1).toBeCloseTo(50, 6);
    const d = (r: number) => 1 / Math.log2(r + 1);
    expect(instr.ndcg5).toBeCloseTo((100 * 0.5 * (d(1) + d(2) + d(3) + d(4))) / (d(1) + d(2)), 6);
    const tool = out.results.find((x: { file: string }) => x.file === 'G1_tool');
    expect(tool.ndcg1).toBe(100);
  });

  it('eval scores every query file of the folder by default (G1 first), and says when a file keeps no query', async () => {
    const root = writeToolBenchFixtures();
    const queries = join(root, 'toolbench', 'queries');
    const g1tool = JSON.parse(readFileSync(join(queries, 'G1_tool.json'), 'utf8'));
    // G2: the G1_tool request again; G3: one whose gold API is not in the corpus (dropped)
    writeFileSync(join(queries, 'G2_instruction.json'), JSON.stringify(g1tool));
    writeFileSync(
      join(queries, 'G3_instruction.json'),
      JSON.stringify([{ ...g1tool[0], 'relevant APIs': [['Nope', 'Missing']] }]),
    );
    writeFileSync(join(queries, 'notes.txt'), 'not a query file');
    const r = await apiary(
      'retrieve',
      'eval',
      '--dataset',
      'toolbench',
      '--retriever',
      'bm25',
      '--data',
      root,
    );
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n').filter((l) => /^G\d_/.test(l));
    expect(rows.map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      ['G1_instruction', '1/3'],
      ['G1_tool', '1/1'],
      ['G2_instruction', '1/1'],
      ['G3_instruction', '0/1'],
    ]);
    expect(rows[2]?.slice(18)).toBe(rows[1]?.slice(18));
    expect(rows[3]).toContain('no query kept: every one names an API missing from the corpus');
    const only = await apiary(
      'retrieve',
      'eval',
      '--retriever',
      'bm25',
      '--data',
      root,
      '--files',
      'G2_instruction',
      '--json',
    );
    expect(JSON.parse(only.stdout).results.map((x: { file: string }) => x.file)).toEqual(['G2_instruction']);
  });

  it('eval --compose-tools 2 scores requests of two tools joined from each file (5 per request)', async () => {
    const root = writeToolBenchFixtures();
    // a SkyCast request and a GoalLine request: each one's only partner is the other
    writeTwoToolQueryFile(root, 'G2_instruction');
    const r = await apiary(
      'retrieve',
      'eval',
      '--retriever',
      'bm25',
      '--data',
      root,
      '--compose-tools',
      '2',
      '--json',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.composeTools).toBe(2);
    // the library's numbers for the same composed requests
    const suite = loadToolBenchSuite(root, ['G2_instruction']);
    const composed = composedTestRequests(suite.sets.get('G2_instruction')?.queries ?? [], suite.toolOf, 2);
    expect(composed).toHaveLength(10);
    expect(composed[0]?.relevant.map((d) => suite.toolOf[d])).toEqual([0, 1]);
    const expected = await evaluateRetriever(
      await buildRetriever('bm25', toolBenchCorpus(suite), {}),
      composed,
    );
    const g2 = out.results.find((x: { file: string }) => x.file === 'G2_instruction');
    expect(g2).toMatchObject({ queries: 10, total: 10, ndcg5: expected.ndcg5, recall10: expected.recall10 });
    // the G1 fixture files keep one request each: nothing to compose
    const text = await apiary(
      'retrieve',
      'eval',
      '--retriever',
      'bm25',
      '--data',
      root,
      '--compose-tools',
      '2',
    );
    expect(text.stdout).toContain('requests of 2 tools composed from each file');
    expect(text.stdout).toMatch(
      /G1_tool +0\/5 +no request composed: the file's kept requests use fewer than 2 tools/,
    );
    const appbench = await apiary('retrieve', 'eval', '--dataset', 'appbench', '--compose-tools', '2');
    expect(appbench.code).toBe(2);
    expect(appbench.stderr).toContain('--compose-tools applies to --dataset toolbench only');
  });

  it('train (holdout) then eval flags the files the model saw', async () => {
    const model = join(mkdtempSync(join(tmpdir(), 'apiary-model-')), 'm.aprm');
    const t = await apiary(
      'retrieve',
      'train',
      '--data',
      data,
      '--out',
      model,
      '--holdout',
      'G1_tool',
      '--epochs',
      '2',
      '--synthetic',
      '2',
      '--no-word-vectors',
      '--ranker-multi-tool',
      '2',
      '--json',
    );
    expect(t.code).toBe(0);
    expect(existsSync(model)).toBe(true);
    const trained = JSON.parse(t.stdout);
    expect(trained).toMatchObject({ trainOn: ['G1_instruction'], heldOut: ['G1_tool'] });
    // one training file: the ranker learns field weights only (no `trained` feature)
    expect(trained.ranker.info).toMatchObject({
      trainOn: ['G1_instruction'],
      queries: 1,
      multiToolRequests: 2,
      trainedFeature: false,
    });
    expect(Object.keys(trained.ranker.weights)).toContain('group.coverage');
    expect(trained.ranker.weights.trained).toBeUndefined();
    const ranked = await apiary(
      'retrieve',
      'eval',
      '--retriever',
      'ranked',
      '--model',
      model,
      '--data',
      data,
      '--json',
    );
    expect(ranked.code).toBe(0);
    const rows = JSON.parse(ranked.stdout).results;
    expect(
      rows.map((x: { file: string; trainedOnThisFile: boolean }) => [x.file, x.trainedOnThisFile]),
    ).toEqual([
      ['G1_instruction', true],
      ['G1_tool', false],
    ]);
    const e = await apiary('retrieve', 'eval', '--retriever', 'trained', '--model', model, '--data', data);
    expect(e.code).toBe(0);
    expect(e.stdout).toMatch(/G1_instruction .*model trained on this file/);
    expect(e.stdout).not.toMatch(/G1_tool .*model trained on this file/);
  });

  it('query: top-k APIs of a catalog', async () => {
    const r = await apiary(
      'retrieve',
      'query',
      'football league standings',
      '--catalog',
      'toolbench',
      '--data',
      data,
      '-k',
      '2',
      '--json',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).hits[0].api).toBe('Sports/GoalLine/League table');
    const ab = await apiary('retrieve', 'query', 'reserve a table at a restaurant', '-k', '1');
    expect(ab.stdout).toMatch(/^1\. Restaurants\.reserverestaurant/);
  });

  it('index build writes the index file; query and eval load it; a damaged file is rebuilt with a note', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-index-'));
    const index = join(dir, 'tb.apix');
    const b = await apiary(
      'retrieve',
      'index',
      'build',
      '--catalog',
      'toolbench',
      '--data',
      data,
      '--out',
      index,
      '--json',
    );
    expect(b.code).toBe(0);
    const built = JSON.parse(b.stdout);
    expect(built).toMatchObject({ path: index, catalog: 'toolbench', documents: 4, ranker: false });
    expect(built.catalogHash).toMatch(/^[0-9a-f]{64}$/);
    const q = await apiary(
      'retrieve',
      'query',
      'football league standings',
      '--catalog',
      'toolbench',
      '--data',
      data,
      '--index',
      index,
      '--retriever',
      'bm25-fields',
      '-k',
      '1',
    );
    expect(q.code).toBe(0);
    expect(q.stderr).toMatch(/index: loaded .*tb\.apix/);
    expect(q.stdout).toMatch(/^1\. Sports\/GoalLine\/League table/);
    writeFileSync(index, 'not an index');
    const e = await apiary(
      'retrieve',
      'eval',
      '--retriever',
      'bm25',
      '--data',
      data,
      '--index',
      index,
      '--json',
    );
    expect(e.code).toBe(0);
    expect(e.stderr).toContain('is unusable');
    expect(e.stderr).toContain('not an apiary retrieval index');
    expect(e.stderr).toMatch(/index written to .*tb\.apix/);
    expect(JSON.parse(e.stdout).results.find((x: { file: string }) => x.file === 'G1_tool').ndcg1).toBe(100);
  });

  it('train --retriever dense --synthetic-requests adds requests made from the catalog', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-dense-syn-'));
    const model = join(dir, 'd.apdm');
    const t = await trainDense(model, ['--synthetic-requests', '3', '--json']);
    expect(t.code).toBe(0);
    // only SkyCast (tools.jsonl line 1) has two APIs: 3 requests naming both, 2 pairs each
    expect(JSON.parse(t.stdout)).toMatchObject({ syntheticRequests: 3, queryPairs: 16 });
    expect(t.stderr).toContain('6 from 3 synthetic requests');
    const bad = await trainDense(join(dir, 'x.apdm'), ['--synthetic-requests', '-1'], false);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--synthetic-requests');
    rmSync(dir, { recursive: true, force: true });
  });

  it('train --retriever dense writes an encoder; index build keeps its vectors; query and eval use them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-dense-'));
    const model = join(dir, 'd.apdm');
    const index = join(dir, 'tb.apix');
    const t = await trainDense(model, ['--json']);
    expect(t.code).toBe(0);
    // catalog views of the 4 APIs + the kept G1_instruction request (2 relevant APIs) × 8 repeats;
    // G1_tool is held out by default
    expect(JSON.parse(t.stdout)).toMatchObject({
      out: model,
      trainOn: ['G1_instruction'],
      heldOut: ['G1_tool'],
      queryPairs: 16,
      oversample: 8,
      negatives: 4,
      scale: 12,
      epochs: 1,
      benchmark: 'toolbench',
    });
    expect(t.stderr).toContain('16 from G1_instruction');
    const noModel = await apiary(
      'retrieve',
      'query',
      'x',
      '--catalog',
      'toolbench',
      '--data',
      data,
      '--retriever',
      'dense',
      '--index',
      index,
    );
    expect(noModel.code).not.toBe(0);
    expect(noModel.stderr).toContain('--retriever dense');
    const b = await apiary(
      'retrieve',
      'index',
      'build',
      '--catalog',
      'toolbench',
      '--data',
      data,
      '--retriever',
      'dense',
      '--model',
      model,
      '--out',
      index,
      '--json',
    );
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ documents: 4, dense: true });
    const q = await apiary(
      'retrieve',
      'query',
      'league table',
      '--catalog',
      'toolbench',
      '--data',
      data,
      '--retriever',
      'dense',
      '--index',
      index,
      '-k',
      '4',
      '--json',
    );
    expect(q.code).toBe(0);
    const hits = JSON.parse(q.stdout).hits as Array<{ api: string; score: number }>;
    expect(hits).toHaveLength(4);
    // one sentence: a cosine plus 0.5 × the word match (each at most 1)
    for (const h of hits) expect(Math.abs(h.score)).toBeLessThanOrEqual(1.5001);
    expect(hits.some((h) => h.score > 1)).toBe(true);
    // in memory from the model file: the same scores as from the index's vectors
    const m = await apiary(
      'retrieve',
      'query',
      'league table',
      '--catalog',
      'toolbench',
      '--data',
      data,
      '--retriever',
      'dense',
      '--model',
      model,
      '--no-index',
      '-k',
      '4',
      '--json',
    );
    expect(JSON.parse(m.stdout).hits).toEqual(hits);
    const e = await apiary(
      'retrieve',
      'eval',
      '--retriever',
      'dense-hybrid',
      '--data',
      data,
      '--index',
      index,
      '--json',
    );
    expect(e.code).toBe(0);
    const results = JSON.parse(e.stdout).results as Array<{ file: string; trainedOnThisFile: boolean }>;
    expect(results.map((x) => [x.file, x.trainedOnThisFile])).toEqual([
      ['G1_instruction', true],
      ['G1_tool', false],
    ]);
  }, 60_000); // 7 CLI processes in a row

  it('train --retriever dense --holdout all trains on the catalog alone; an unknown file is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-dense-'));
    const all = await trainDense(join(dir, 'all.apdm'), [
      '--holdout',
      'all',
      '--tool-context',
      '0',
      '--json',
    ]);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({
      trainOn: [],
      heldOut: ['G1_instruction', 'G1_tool'],
      queryPairs: 0,
    });
    const bad = await trainDense(join(dir, 'x.apdm'), ['--holdout', 'G9'], false);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('G9');
  });

  it('train --resume: refused without checkpoints or when they were made with other options; checkpoints go once the model is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-resume-'));
    const model = join(dir, 'm.aprm');
    const args = ['retrieve', 'train', '--data', data, '--out', model, '--holdout', 'none', '--epochs', '1'];
    const none = await apiary(...args, '--no-word-vectors', '--resume');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`--resume: no checkpoints in ${model}.ckpt`);
    mkdirSync(`${model}.ckpt`);
    const state = {
      epoch: 0,
      nextBatch: 0,
      randCalls: 0,
      w: new Float64Array(1),
      adam: { m: new Float64Array(1), v: new Float64Array(1), t: 0 },
      epochLosses: [],
      lossSoFar: 0,
    };
    saveTrainCheckpoint(join(`${model}.ckpt`, 'projection.json'), {
      stage: 'projection',
      config: {
        stage: 'projection',
        trainOn: ['G1_instruction', 'G1_tool'],
        epochs: 1,
        synthetic: 0,
        seed: 42,
        wordVectors: true,
      },
      state,
    });
    const other = await apiary(...args, '--no-word-vectors', '--resume');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('was made with other options (wordVectors: checkpoint true, now false)');
    const fresh = await apiary(...args, '--no-word-vectors', '--synthetic', '1', '--json');
    expect(fresh.code).toBe(0);
    const trained = JSON.parse(fresh.stdout);
    expect(trained).toMatchObject({ trainOn: ['G1_instruction', 'G1_tool'], heldOut: [] });
    // by default the ranker weighs the field features only, even with two training files
    expect(trained.ranker.info).toMatchObject({
      trainOn: ['G1_instruction', 'G1_tool'],
      trainedFeature: false,
    });
    expect(trained.ranker.weights.trained).toBeUndefined();
    expect(existsSync(model)).toBe(true);
    expect(existsSync(`${model}.ckpt`)).toBe(false);
    // --ranker-trained-feature: one held-out projection per file (nested), then the cosine is weighed
    const nested = await apiary(
      ...args,
      '--no-word-vectors',
      '--synthetic',
      '1',
      '--ranker-trained-feature',
      '--overwrite',
      '--json',
    );
    expect(nested.code).toBe(0);
    expect(nested.stderr).toContain('ranker: training the feature model for G1_tool on G1_instruction');
    const withFeature = JSON.parse(nested.stdout);
    expect(withFeature.ranker.info).toMatchObject({ trainedFeature: true });
    expect(typeof withFeature.ranker.weights.trained).toBe('number');
    const both = await apiary(...args, '--ranker-trained-feature', '--ranker-fields-only', '--overwrite');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--ranker-trained-feature and --ranker-fields-only exclude each other');
  });

  it('usage errors exit 2', async () => {
    const r = await apiary('retrieve', 'query', 'x', '--retriever', 'nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('[USAGE] --retriever must be one of bm25-plain | bm25 | bm25-tool |');
    expect(r.stderr).toContain('| ranked | dense | dense-hybrid (got "nope")');
    const m = await apiary('retrieve', 'eval', '--retriever', 'trained', '--data', data);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/--model FILE/);
    const noRanker = await apiary('retrieve', 'eval', '--retriever', 'ranked', '--data', data);
    expect(noRanker.code).toBe(2);
    expect(noRanker.stderr).toMatch(/--model FILE/);
  });
});
