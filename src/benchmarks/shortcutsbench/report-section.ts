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
import type { ShortcutsBothModes } from './register.js';
import type { Accuracy, ShortcutsReport } from './summary.js';

/** ShortcutsBench: accuracy of recognising the necessary system/user inputs, per level. */
export interface ShortcutsPublishedRow {
  model: string;
  /** `L1`…`L4` and `overall`. */
  byLevel: Record<string, number>;
}

/** The published input-recognition rows and where they come from. */
export interface ShortcutsPublished {
  split: string;
  source: string;
  rows: ShortcutsPublishedRow[];
}

const LEVELS = ['L1', 'L2', 'L3', 'L4'] as const;
const METRICS = [
  ['api', 'API selection'],
  ['primitive', 'primitive parameters'],
  ['previousOutput', 'previous outputs'],
  ['systemInput', 'system/user inputs'],
] as const;

/** `57.14 (8/14)`; `—` for an empty denominator. */
const acc = (a: Accuracy | undefined): string =>
  !a || typeof a.accuracy !== 'number' ? '—' : `${f2(a.accuracy)} (${a.num}/${a.den})`;
const value = (a: Accuracy | undefined): number | null =>
  a && typeof a.accuracy === 'number' ? a.accuracy : null;

/**
 * ShortcutsBench by level, category and candidate-list size (official scoring, as the paper),
 * with the paper's input-recognition accuracies beside the runs' system/user-input accuracy.
 */
export async function shortcutsSection(
  runs: readonly ReportRun[],
  published: ShortcutsPublished,
): Promise<Block[]> {
  const reports = runs.map((r) => (r.summary.report as ShortcutsBothModes).official);
  const pub = published;
  const blocks: Block[] = [...commonBlocks(runs)];
  blocks.push({
    kind: 'table',
    table: {
      caption: `By level (official scoring, %); published: ${pub.source}`,
      columns: ['model', 'metric', 'overall', ...LEVELS],
      rows: [
        ...runs.flatMap((r, i) =>
          METRICS.map(([key, name]): Cell[] => {
            const t = reports[i]![key];
            return [r.label, name, acc(t.overall), ...LEVELS.map((l) => acc(t.byLevel[l]))];
          }),
        ),
        ...pub.rows.map((p) => [
          publishedLabel(p.model, pub.split),
          'system/user inputs',
          f2(p.byLevel.overall),
          ...LEVELS.map((l) => f2(p.byLevel[l])),
        ]),
      ],
      publishedRows: pub.rows.map((_, i) => runs.length * METRICS.length + i),
    },
  });
  const input: ChartDatum[] = [
    ...runs.flatMap((r, i) =>
      LEVELS.flatMap((l) => {
        const v = value(reports[i]!.systemInput.byLevel[l]);
        return v === null ? [] : [{ x: l, series: r.label, value: v }];
      }),
    ),
    ...pub.rows.flatMap((p) =>
      LEVELS.map((l) => ({ x: l, series: `${p.model} (published)`, value: p.byLevel[l]!, published: true })),
    ),
  ];
  blocks.push(
    await chart('System/user input recognition by level (published: lighter bars)', input, {
      xTitle: 'level',
      yTitle: 'accuracy (%)',
      xOrder: [...LEVELS],
    }),
  );
  blocks.push(
    await chart(
      'API selection accuracy by level',
      runs.flatMap((r, i) =>
        LEVELS.flatMap((l) => {
          const v = value(reports[i]!.api.byLevel[l]);
          return v === null ? [] : [{ x: l, series: r.label, value: v }];
        }),
      ),
      { xTitle: 'level', yTitle: 'accuracy (%)', xOrder: [...LEVELS] },
    ),
  );
  const categories = reports[0]?.byCategory.map((c) => c.category) ?? [];
  blocks.push({
    kind: 'table',
    table: {
      caption: 'By category (official: the 8 categories of §4.6), API selection and system/user inputs, %',
      columns: ['category', ...runs.flatMap((r) => [`${r.label}: n`, 'API', 'inputs'])],
      rows: categories.map((c) => [
        c,
        ...reports.flatMap((rep) => {
          const row = rep.byCategory.find((x) => x.category === c);
          return row ? [String(row.shortcuts), acc(row.api), acc(row.systemInput)] : ['0', '—', '—'];
        }),
      ]),
    },
  });
  blocks.push(
    await chart(
      'API selection accuracy by category',
      runs.flatMap((r, i) =>
        reports[i]!.byCategory.flatMap((c) => {
          const v = value(c.api);
          return v === null ? [] : [{ x: c.category, series: r.label, value: v }];
        }),
      ),
      { xTitle: 'category', yTitle: 'accuracy (%)', xOrder: categories },
    ),
  );
  const buckets = reports[0]?.byApiListSize.map((b) => b.bucket) ?? [];
  blocks.push({
    kind: 'table',
    table: {
      caption:
        'By size of the candidate API list: API selection accuracy (%), wrong answers, hallucinated ids',
      columns: ['candidates', ...runs.flatMap((r) => [`${r.label}: API`, 'wrong', 'hallucinated'])],
      rows: buckets.map((b) => [
        b,
        ...reports.flatMap((rep: ShortcutsReport) => {
          const row = rep.byApiListSize.find((x) => x.bucket === b);
          return row ? [acc(row.api), String(row.wrong), String(row.hallucinations)] : ['—', '—', '—'];
        }),
      ]),
    },
  });
  blocks.push(
    await chart(
      'API selection accuracy by candidate-list size',
      runs.flatMap((r, i) =>
        reports[i]!.byApiListSize.flatMap((b) => {
          const v = value(b.api);
          return v === null ? [] : [{ x: b.bucket, series: r.label, value: v }];
        }),
      ),
      { xTitle: 'candidate APIs', yTitle: 'accuracy (%)', xOrder: buckets },
    ),
  );
  blocks.push(
    ...comparisonBlocks(
      runs,
      'API selection accuracy (official, correct actions / evaluated actions)',
      (l) => {
        const s = l.score as { official?: { api?: { num: number; den: number } } } | null;
        const t = s?.official?.api;
        return t && t.den > 0 ? t.num / t.den : null;
      },
    ),
  );
  return blocks;
}
