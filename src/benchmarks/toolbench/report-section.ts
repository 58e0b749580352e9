import {
  type Block,
  chart,
  commonBlocks,
  comparisonBlocks,
  f2,
  type ReportRun,
} from '../../reports/index.js';
import type { ToolBenchRetrievalReport } from './retrieval-task.js';

const CUTS = [
  ['ndcg1', 'NDCG@1'],
  ['ndcg3', 'NDCG@3'],
  ['ndcg5', 'NDCG@5'],
] as const;

/** ToolBench retrieval: NDCG@1/3/5 and Recall@5/10 per query group (×100), as ToolBench logs them. */
export async function toolBenchSection(runs: readonly ReportRun[]): Promise<Block[]> {
  const reports = runs.map((r) => r.summary.report as ToolBenchRetrievalReport);
  const groups = [...new Set(reports.flatMap((rep) => rep.groups.map((g) => g.group)))];
  const blocks: Block[] = [...commonBlocks(runs)];
  blocks.push({
    kind: 'table',
    table: {
      caption: 'Retrieval by query group (×100)',
      columns: ['group', 'run', 'queries', 'NDCG@1', 'NDCG@3', 'NDCG@5', 'R@5', 'R@10'],
      rows: [...groups, 'all'].flatMap((group) =>
        runs.flatMap((r, i) => {
          const m = group === 'all' ? reports[i]!.all : reports[i]!.groups.find((g) => g.group === group);
          return m
            ? [
                [
                  group,
                  r.label,
                  String(m.queries),
                  f2(m.ndcg1),
                  f2(m.ndcg3),
                  f2(m.ndcg5),
                  f2(m.recall5),
                  f2(m.recall10),
                ],
              ]
            : [];
        }),
      ),
    },
  });
  blocks.push(
    await chart(
      'NDCG by query group',
      runs.flatMap((r, i) =>
        reports[i]!.groups.flatMap((g) =>
          CUTS.map(([k, name]) => ({
            x: g.group,
            series: runs.length > 1 ? `${r.label} ${name}` : name,
            value: g[k],
          })),
        ),
      ),
      { xTitle: 'query group', yTitle: 'NDCG (×100)', xOrder: groups },
    ),
  );
  blocks.push(
    ...comparisonBlocks(runs, 'NDCG@5', (l) => {
      const s = l.score as { ndcg5?: number } | null;
      return typeof s?.ndcg5 === 'number' ? s.ndcg5 : null;
    }),
  );
  return blocks;
}
