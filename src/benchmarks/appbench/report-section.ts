import {
  type Block,
  type Cell,
  type ChartDatum,
  chart,
  commonBlocks,
  comparisonBlocks,
  f2,
  publishedLabel,
  type ReportRun,
} from '../../reports/index.js';
import type { AppBenchGroupReport, AppBenchReport } from './score-appbench.js';

/** The categories of MetaBench Table 3 (single/multiple apps × single/multiple APIs). */
export const APPBENCH_PUBLISHED_CATEGORIES = ['SS', 'SM', 'MS', 'MM'] as const;

/** MetaBench Table 3: F1_app, F1_api and Succ per category. */
export interface MetaBenchPublishedRow {
  model: string;
  byCategory: Record<string, { appF1: number; apiF1: number; success: number }>;
}

/** The published MetaBench rows and where they come from (`split`: the data they were measured on). */
export interface MetaBenchPublished {
  split: string;
  source: string;
  rows: MetaBenchPublishedRow[];
}

const pct = (x: number) => x * 100;

const byGroup = (groups: readonly AppBenchGroupReport[], g: string) => groups.find((x) => x.group === g);

/**
 * MetaBench Table 3 layout (F1_app, F1_api, Succ per category SS/SM/MS/MM, official scoring) with
 * the paper's rows beside the runs; the corrected scores; the plan-shape breakdowns and charts.
 */
export async function appBenchSection(
  runs: readonly ReportRun[],
  published: MetaBenchPublished,
): Promise<Block[]> {
  const reports = runs.map((r) => r.summary.report as AppBenchReport);
  const cats = APPBENCH_PUBLISHED_CATEGORIES;
  const columns = ['model', ...cats.flatMap((c) => [`${c} F1_app`, `${c} F1_api`, `${c} Succ`])];
  const runRow = (label: string, report: AppBenchReport, mode: 'official' | 'corrected'): Cell[] => [
    label,
    ...cats.flatMap((c) => {
      const g = byGroup(report.byCategory, c.toLowerCase());
      // a category none of whose samples the official scorer kept has no official numbers
      const scored = g && (mode === 'corrected' || g.official.n > 0);
      return scored
        ? [f2(pct(g[mode].appF1)), f2(pct(g[mode].apiF1)), f2(pct(g[mode].success))]
        : ['—', '—', '—'];
    }),
  ];
  const pub = published;
  const blocks: Block[] = [...commonBlocks(runs)];
  blocks.push({
    kind: 'table',
    table: {
      caption: `By category, official scoring (MetaBench Table 3 layout, %); published: ${pub.source}`,
      columns,
      rows: [
        ...runs.map((r, i) => runRow(r.label, reports[i]!, 'official')),
        ...pub.rows.map((p) => [
          publishedLabel(p.model, pub.split),
          ...cats.flatMap((c) => [
            f2(p.byCategory[c]!.appF1),
            f2(p.byCategory[c]!.apiF1),
            f2(p.byCategory[c]!.success),
          ]),
        ]),
      ],
      publishedRows: pub.rows.map((_, i) => runs.length + i),
    },
  });
  blocks.push({
    kind: 'table',
    table: {
      caption: 'By category, corrected scoring (%)',
      columns,
      rows: runs.map((r, i) => runRow(r.label, reports[i]!, 'corrected')),
    },
  });
  const succ: ChartDatum[] = [
    ...runs.flatMap((r, i) =>
      cats.flatMap((c) => {
        const g = byGroup(reports[i]!.byCategory, c.toLowerCase());
        return g ? [{ x: c, series: r.label, value: pct(g.official.success) }] : [];
      }),
    ),
    ...pub.rows.flatMap((p) =>
      cats.map((c) => ({
        x: c,
        series: `${p.model} (published)`,
        value: p.byCategory[c]!.success,
        published: true,
      })),
    ),
  ];
  blocks.push(
    await chart('Succ by category, official scoring (published: lighter bars)', succ, {
      xTitle: 'category',
      yTitle: 'Succ (%)',
      xOrder: [...cats],
    }),
  );
  for (const [key, title] of [
    ['byParallelScale', 'number of apps used in parallel (independent sub-plans of the gold plan)'],
    ['bySequentialScale', 'number of calls in sequence (longest chain of the gold plan)'],
  ] as const) {
    const groups = [...new Set(reports.flatMap((rep) => rep[key].map((g) => g.group)))].sort(
      (a, b) => Number(a) - Number(b),
    );
    blocks.push({
      kind: 'table',
      table: {
        caption: `By ${title}, %`,
        columns: ['group', ...runs.flatMap((r) => [`${r.label}: n`, `off Succ`, `cor API F1`, `cor Succ`])],
        rows: groups.map((grp) => [
          grp,
          ...reports.flatMap((rep) => {
            const g = byGroup(rep[key], grp);
            return g
              ? [
                  String(g.total),
                  f2(pct(g.official.success)),
                  f2(pct(g.corrected.apiF1)),
                  f2(pct(g.corrected.success)),
                ]
              : ['0', '—', '—', '—'];
          }),
        ]),
      },
    });
    blocks.push(
      await chart(
        `Corrected Succ by ${title}`,
        runs.flatMap((r, i) =>
          reports[i]![key].map((g) => ({ x: g.group, series: r.label, value: pct(g.corrected.success) })),
        ),
        {
          xTitle: key === 'byParallelScale' ? 'apps in parallel' : 'calls in sequence',
          yTitle: 'Succ (%)',
          xOrder: groups,
        },
      ),
    );
  }
  blocks.push(
    ...comparisonBlocks(runs, 'corrected success (1 = whole plan right)', (l) => {
      const s = l.score as { corrected?: { success?: number } } | null;
      return typeof s?.corrected?.success === 'number' ? s.corrected.success : null;
    }),
  );
  return blocks;
}
