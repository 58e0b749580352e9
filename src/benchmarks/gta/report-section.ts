import {
  type Block,
  type Cell,
  chart,
  commonBlocks,
  comparisonBlocks,
  f2,
  publishedLabel,
  type ReportRun,
} from '../../reports/index.js';
import type { GtaLeaderboardRow } from './leaderboard.js';
import type { GtaRunReport, GtaSampleScore } from './report-scores.js';
import { GTA_CATEGORIES } from './tool-f1.js';

/** The published GTA leaderboard and where it comes from (`split`: the data it was measured on). */
export interface GtaPublished {
  split: string;
  source: string;
  rows: GtaLeaderboardRow[];
}

const LEADERBOARD = [
  'InstAcc',
  'ToolAcc',
  'ArgAcc',
  'SummAcc',
  'P_F1',
  'O_F1',
  'L_F1',
  'C_F1',
  'AnsAcc',
] as const;
const SHORT: Record<(typeof GTA_CATEGORIES)[number], string> = {
  perception: 'P',
  operation: 'O',
  logic: 'L',
  creativity: 'C',
};

function runCells(r: GtaRunReport): string[] {
  const s = r.step;
  const f = r.categoryF1;
  return [
    f2(s?.instAcc),
    f2(s?.toolAcc),
    f2(s?.argAcc),
    f2(s?.summAcc),
    ...GTA_CATEGORIES.map((c) => f2(f?.[c].f1)),
    f2(r.ansAcc),
  ];
}

/**
 * GTA in the leaderboard's layout (step-by-step InstAcc/ToolAcc/ArgAcc/SummAcc, end-to-end F1 per
 * tool category and AnsAcc) with the published leaderboard beside the runs, then F1 per tool.
 */
export async function gtaSection(runs: readonly ReportRun[], published: GtaPublished): Promise<Block[]> {
  const reports = runs.map((r) => r.summary.report as GtaRunReport);
  const pub = published;
  const blocks: Block[] = [...commonBlocks(runs)];
  for (const [i, r] of runs.entries())
    if (reports[i]!.unreadable)
      blocks.push({
        kind: 'warning',
        text: `${r.label}: ${reports[i]!.unreadable} sample score(s) not in the GTA score shape (left out).`,
      });
  blocks.push({
    kind: 'table',
    table: {
      caption: `Step-by-step and end-to-end metrics (%); published: ${pub.source}`,
      columns: ['model', ...LEADERBOARD],
      rows: [
        ...runs.map((r, i): Cell[] => [r.label, ...runCells(reports[i]!)]),
        ...pub.rows.map((p): Cell[] => [
          publishedLabel(p.model, pub.split),
          ...[p.instAcc, p.toolAcc, p.argAcc, p.summAcc, p.pF1, p.oF1, p.lF1, p.cF1, p.ansAcc].map(f2),
        ]),
      ],
      publishedRows: pub.rows.map((_, i) => runs.length + i),
    },
  });
  const cats = GTA_CATEGORIES.map((c) => c);
  blocks.push(
    await chart(
      'Tool-selection F1 by tool category (published: lighter bars)',
      [
        ...runs.flatMap((r, i) => {
          const f = reports[i]!.categoryF1;
          return f ? cats.map((c) => ({ x: c, series: r.label, value: f[c].f1 })) : [];
        }),
        ...pub.rows
          .map((p) => [p.pF1, p.oF1, p.lF1, p.cF1] as const)
          .flatMap((vals, j) =>
            cats.map((c, k) => ({
              x: c,
              series: `${pub.rows[j]!.model} (published)`,
              value: vals[k]!,
              published: true,
            })),
          ),
      ],
      { xTitle: 'tool category', yTitle: 'F1 (%)', xOrder: cats },
    ),
  );
  const tools = [...new Set(reports.flatMap((rep) => rep.byTool.map((t) => t.tool)))];
  if (tools.length) {
    blocks.push({
      kind: 'table',
      table: {
        caption: 'End-to-end tool-selection F1 by tool (%; hit / gold calls, predicted calls)',
        columns: ['tool', 'category', ...runs.map((r) => r.label)],
        rows: tools.map((tool) => {
          const any = reports.flatMap((rep) => rep.byTool).find((t) => t.tool === tool)!;
          return [
            tool,
            SHORT[any.category as keyof typeof SHORT] ?? any.category,
            ...reports.map((rep) => {
              const t = rep.byTool.find((x) => x.tool === tool);
              return t ? `${f2(t.f1)} (${t.hit}/${t.gold}, ${t.predicted})` : '—';
            }),
          ];
        }),
      },
    });
    blocks.push(
      await chart(
        'Tool-selection F1 by tool',
        runs.flatMap((r, i) => reports[i]!.byTool.map((t) => ({ x: t.tool, series: r.label, value: t.f1 }))),
        { xTitle: 'tool', yTitle: 'F1 (%)', xOrder: tools },
      ),
    );
  }
  blocks.push(
    ...comparisonBlocks(
      runs,
      'score (step mode: right tool / gold tool steps; end to end: answer right)',
      (l) => {
        const s = l.score as GtaSampleScore | null;
        if (s?.step && s.step.totalTool > 0) return s.step.tool / s.step.totalTool;
        return typeof s?.e2e?.answerCorrect === 'boolean' ? Number(s.e2e.answerCorrect) : null;
      },
    ),
  );
  return blocks;
}
