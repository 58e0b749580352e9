import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRunSpec, runEval } from '../../harness/index.js';
import { buildRetriever } from '../../retrieval/index.js';
import { evaluateRetriever } from './evaluate.js';
import { toolBenchRetrievalDefinition } from './retrieval-task.js';
import { loadToolBenchSuite, toolBenchCorpus } from './suite.js';

const data = resolve(process.cwd(), '../shared/data');

describe('toolbench-retrieval on shared/data', () => {
  it('the harness run gives the numbers of `apiary retrieve eval` (bm25, every G1 file)', async () => {
    const loaded = await toolBenchRetrievalDefinition.load({
      options: { groups: ['G1_instruction', 'G1_category', 'G1_tool'] },
      solver: 'bm25',
      solverOptions: {},
      sampling: {},
      dataDir: data,
      seed: 0,
    });
    const spec = buildRunSpec(
      {
        task: { name: 'toolbench-retrieval', version: '1', options: {} },
        solver: { name: 'bm25', options: {} },
        model: null,
        sampling: null,
        data: loaded.dataSource,
        size: loaded.task.dataset.length,
        seed: 0,
        concurrency: 4,
      },
      { now: () => new Date(), gitRevision: () => null, packageVersion: () => 'test' },
    );
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-tb-data-')), 'results.jsonl');
    const r = await runEval({ task: loaded.task, spec, outFile: out, concurrency: 4 });
    const report = r.summary.report as Awaited<ReturnType<typeof toolBenchRetrievalDefinition.summarize>>;
    expect(report.groups.map((g) => [g.group, g.queries])).toEqual([
      ['G1_instruction', 124],
      ['G1_category', 116],
      ['G1_tool', 110],
    ]);
    const suite = loadToolBenchSuite(data);
    const retriever = await buildRetriever('bm25', toolBenchCorpus(suite), {});
    for (const g of report.groups) {
      const ref = await evaluateRetriever(retriever, suite.sets.get(g.group)!.queries);
      for (const m of ['ndcg1', 'ndcg3', 'ndcg5', 'recall5', 'recall10'] as const)
        expect(g[m]).toBeCloseTo(ref[m], 10);
    }
  });
});
