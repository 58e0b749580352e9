import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryAgentTrace } from '../../agents/index.js';
import { buildRetriever, ndcgAtK, recallAtK } from '../../retrieval/index.js';
import { sha256OfFiles } from '../../shared/index.js';
import { solveSample } from '../../tasks/solver.js';
import { writeToolBenchFixtures } from './__fixtures__/data-root.js';
import { evaluateRetriever } from './evaluate.js';
import { ndcgFromSummary, recallFromSummary, summarizeRanking } from './ranking-summary.js';
import { TOOLBENCH_RETRIEVAL_SOLVERS, toolBenchRetrievalDefinition } from './retrieval-task.js';
import { loadToolBenchSuite, toolBenchCorpus } from './suite.js';

describe('ranking summary', () => {
  it('gives the same NDCG@1/3/5 and Recall@5/10 as the full score vector (ties included)', () => {
    // few distinct values, so ties straddle every cut-off
    const vector = fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 2, maxLength: 40 });
    fc.assert(
      fc.property(vector, fc.array(fc.nat(), { maxLength: 6 }), (raw, picks) => {
        const scores = raw.map((x) => x / 4);
        const relevant = [...new Set(picks.map((p) => p % scores.length))];
        const rel = new Set(relevant);
        const r = JSON.parse(JSON.stringify(summarizeRanking(scores, relevant)));
        for (const k of [1, 3, 5]) expect(ndcgFromSummary(r, rel.size, k)).toBe(ndcgAtK(scores, rel, k));
        for (const k of [5, 10]) expect(recallFromSummary(r, relevant, k)).toBe(recallAtK(scores, rel, k));
      }),
    );
  });

  it('records the top 10, the size of each tied score group and the relevant scores', () => {
    const scores = [0.5, 0, 0.5, 1, 0, 0, 0, 0, 0, 0, 0, 0];
    expect(summarizeRanking(scores, [2, 11])).toEqual({
      top: [3, 0, 2, 1, 4, 5, 6, 7, 8, 9],
      scores: [1, 0.5, 0.5, 0, 0, 0, 0, 0, 0, 0],
      tieCounts: [1, 2, 9],
      relevantScores: [0.5, 0],
    });
  });
});

describe('toolbench-retrieval task', () => {
  it('loads the query groups of --data, hashes the files and scores as `retrieve eval` does', async () => {
    const data = writeToolBenchFixtures();
    const loaded = await toolBenchRetrievalDefinition.load({
      options: { groups: ['G1_instruction', 'G1_tool', 'G1_category'] },
      solver: 'bm25',
      solverOptions: {},
      sampling: {},
      dataDir: data,
      seed: 0,
    });
    const tb = join(data, 'toolbench');
    expect(loaded.dataSource).toEqual({
      path: tb,
      sha256: sha256OfFiles([
        join(tb, 'tools.jsonl'),
        join(tb, 'queries', 'G1_instruction.json'),
        join(tb, 'queries', 'G1_tool.json'),
      ]),
    });
    const { task } = loaded;
    expect(task.dataset.map((s) => [s.id, s.category])).toEqual([
      ['G1_instruction:11', 'G1_instruction'],
      ['G1_tool:21', 'G1_tool'],
    ]);
    const scores = [];
    for (const s of task.dataset) scores.push(await task.scorer(s, await solveSample(task, s, { seed: 0 })));
    const report = task.summarize(scores);
    // the same numbers as evaluateRetriever over each group (the `retrieve eval` path)
    const suite = loadToolBenchSuite(data);
    const r = await buildRetriever('bm25', toolBenchCorpus(suite), {});
    for (const g of report.groups) {
      const ref = await evaluateRetriever(r, suite.sets.get(g.group)!.queries);
      for (const m of ['ndcg1', 'ndcg3', 'ndcg5', 'recall5', 'recall10'] as const) expect(g[m]).toBe(ref[m]);
    }
    // G1_instruction: all 4 documents tie, 2 relevant: NDCG@1 = 2/4 (as in the retrieve CLI test)
    expect(report.groups[0]).toMatchObject({ group: 'G1_instruction', queries: 1, ndcg1: 50, recall5: 100 });
    expect(report.all.ndcg1).toBe(75);
    expect(toolBenchRetrievalDefinition.metrics(report)).toMatchObject({ ndcg1: 75, recall10: 100 });
    expect(toolBenchRetrievalDefinition.formatReport!(report).split('\n')).toEqual([
      'ToolBench retrieval: metrics ×100',
      'group              queries NDCG@1 NDCG@3 NDCG@5    R@5   R@10',
      // NDCG@3 = 0.5·(1 + 1/log2 3 + 1/2) / (1 + 1/log2 3) = 65.33; NDCG@5 = 78.53 (retrieve CLI test)
      'G1_instruction           1  50.00  65.33  78.53 100.00 100.00',
      'G1_tool                  1 100.00 100.00 100.00 100.00 100.00',
      'all                      2  75.00  82.66  89.27 100.00 100.00',
    ]);
  });

  it('without groups it loads every query file of the folder, the G1 files first', async () => {
    const data = writeToolBenchFixtures();
    const queries = join(data, 'toolbench', 'queries');
    copyFileSync(join(queries, 'G1_tool.json'), join(queries, 'G2_instruction.json'));
    const loaded = await toolBenchRetrievalDefinition.load({
      options: {},
      solver: 'bm25',
      solverOptions: {},
      sampling: {},
      dataDir: data,
      seed: 0,
    });
    expect(loaded.task.dataset.map((s) => [s.id, s.category])).toEqual([
      ['G1_instruction:11', 'G1_instruction'],
      ['G1_tool:21', 'G1_tool'],
      ['G2_instruction:21', 'G2_instruction'],
    ]);
  });

  it('a failed query scores zero; --limit keeps the first N queries of each group', async () => {
    const loaded = await toolBenchRetrievalDefinition.load({
      options: { groups: ['G1_tool'] },
      solver: 'bm25',
      solverOptions: {},
      sampling: {},
      dataDir: writeToolBenchFixtures(),
      seed: 0,
      limit: 0,
    });
    expect(loaded.task.dataset).toEqual([]);
    const full = await toolBenchRetrievalDefinition.load({
      options: { groups: ['G1_tool'] },
      solver: 'bm25',
      solverOptions: {},
      sampling: {},
      dataDir: writeToolBenchFixtures(),
      seed: 0,
    });
    const s = full.task.dataset[0]!;
    expect(await full.task.scorer(s, { output: null, error: 'boom' })).toEqual({
      id: s.id,
      group: 'G1_tool',
      ndcg1: 0,
      ndcg3: 0,
      ndcg5: 0,
      recall5: 0,
      recall10: 0,
    });
  });
});

describe('toolbench retrieval solvers as values', () => {
  it('one registered solver per retriever kind; a model-file kind names its missing argument', async () => {
    for (const [name, def] of Object.entries(TOOLBENCH_RETRIEVAL_SOLVERS)) expect(def.name).toBe(name);
    await expect(
      toolBenchRetrievalDefinition.load({
        options: { groups: ['G1_tool'] },
        solver: 'trained',
        solverOptions: {},
        sampling: {},
        dataDir: writeToolBenchFixtures(),
        seed: 0,
      }),
    ).rejects.toThrow(
      'solver "trained" option "modelFile": Invalid input: expected string, received undefined',
    );
  });
});

describe('toolbench-retrieval events', () => {
  it('a query solved gives one stop whose answer is its top APIs, no model turns', async () => {
    const data = writeToolBenchFixtures();
    const { task } = await toolBenchRetrievalDefinition.load({
      options: { groups: ['G1_instruction'] },
      solver: 'bm25',
      solverOptions: {},
      sampling: {},
      dataDir: data,
      seed: 0,
    });
    const events = memoryAgentTrace();
    const solved = await solveSample(task, task.dataset[0]!, { seed: 0, events });
    // the output and score fit the schemas the results reader checks records against
    const def = toolBenchRetrievalDefinition;
    expect(def.outputSchema!.parse(solved.output)).toEqual(solved.output);
    const score = await task.scorer(task.dataset[0]!, { output: solved.output });
    expect(def.scoreSchema!.parse(score)).toEqual(score);
    expect(events.events).toEqual([
      {
        type: 'stop',
        step: 0,
        reason: 'final',
        answer: (solved.output as { apis: string[] }).apis.join('\n'),
        usage: { inputTokens: 0, outputTokens: 0 },
        totalMs: expect.any(Number),
      },
    ]);
  });
});
