import type { SampleLine } from '../../harness/index.js';
import { type ChartDatum, type ChartOptions, groupedBarSpec, renderChartSvg } from '../charts.js';
import { compareSamples, formatSpecDifferences, specDifferences } from '../compare.js';
import type { Block, Cell, HtmlTable } from '../html.js';
import type { ReportRun } from '../run.js';

/** `12.35`: two decimals, as the papers print percentages. */
export const f2 = (x: number | null | undefined): string =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(2);

export const publishedLabel = (model: string, split: string) => `${model} (published, ${split})`;

export async function chart(title: string, data: readonly ChartDatum[], opts: ChartOptions): Promise<Block> {
  return { kind: 'chart', title, svg: await renderChartSvg(groupedBarSpec(data, opts)) };
}

const short = (s: string | null) => (s ? s.slice(0, 12) : '—');

/** What each run is: task, solver, model, sampling, data, size, errors, cost of running it. */
function runFactsTable(runs: readonly ReportRun[]): HtmlTable {
  const row = (name: string, f: (r: ReportRun) => string): Cell[] => [name, ...runs.map(f)];
  const opts = (o: Record<string, unknown>) =>
    Object.entries(o)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
      .join(', ');
  return {
    caption: 'Runs',
    columns: ['', ...runs.map((r) => r.label)],
    rows: [
      row('folder', (r) => r.folder),
      row('task', (r) => `${r.summary.spec.task.name} v${r.summary.spec.task.version}`),
      row('task options', (r) => opts(r.summary.spec.task.options) || '—'),
      row('solver', (r) => {
        const o = opts(r.summary.spec.solver.options);
        return `${r.summary.spec.solver.name}${o ? ` (${o})` : ''}`;
      }),
      row('model', (r) => r.summary.spec.model?.id ?? 'none'),
      row('sampling', (r) => {
        const s = r.summary.spec.sampling;
        return s
          ? `temperature ${s.temperature ?? '-'}, top_p ${s.topP ?? 'omitted'}, max tokens ${s.maxOutputTokens ?? '-'}`
          : '—';
      }),
      row('data (sha256)', (r) => `${r.summary.spec.data.path} (${short(r.summary.spec.data.sha256)})`),
      row(
        'samples × epochs',
        (r) => `${r.summary.samples} × ${r.summary.spec.epochs} (${r.summary.records} records)`,
      ),
      row('errors', (r) => String(r.summary.errors)),
      row('tokens in / out', (r) => `${r.summary.usage.inputTokens} / ${r.summary.usage.outputTokens}`),
      row('latency ms (mean, p95)', (r) => `${r.summary.latencyMs.mean}, ${r.summary.latencyMs.p95}`),
      row('started', (r) => r.summary.spec.startedAt),
    ],
  };
}

/** `0.4167 ± 0.0231` with several epochs, `0.4167` with one. */
function formatEstimate(mean: number, ci95: number | null): string {
  const m = Number.isInteger(mean) ? String(mean) : mean.toFixed(4);
  return ci95 === null ? m : `${m} ± ${ci95.toFixed(4)}`;
}

/** The task's headline metrics, per run: mean ± 95% CI over epochs where a run has several. */
function headlineTable(runs: readonly ReportRun[]): HtmlTable | null {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r.summary.headline)))];
  if (!names.length) return null;
  const several = runs.some((r) => r.summary.epochsUsed.length > 1);
  return {
    caption: several
      ? 'Headline metrics: mean ± 95% CI over epochs (Student t); per-epoch values below'
      : 'Headline metrics',
    columns: ['metric', ...runs.map((r) => r.label)],
    rows: names.map((n) => [
      n,
      ...runs.map((r) => {
        const m = r.summary.headline[n];
        if (!m) return '—';
        const epochs = m.perEpoch.length > 1 ? ` [${m.perEpoch.map((v) => v.toFixed(4)).join(', ')}]` : '';
        return `${formatEstimate(m.mean, m.ci95)}${epochs}`;
      }),
    ]),
  };
}

/** Rows shown in the changed-sample list at most (the count is always given). */
const MAX_CHANGED_ROWS = 500;

/**
 * For two or more runs of one task: a warning naming the spec fields that differ, and the samples
 * whose per-sample value (`valueName`) changed between runs.
 */
export function comparisonBlocks(
  runs: readonly ReportRun[],
  valueName: string,
  sampleValue: (line: SampleLine) => number | null,
): Block[] {
  if (runs.length < 2) return [];
  const blocks: Block[] = [];
  const diffs = specDifferences(runs.map((r) => r.summary.spec));
  if (diffs.length)
    blocks.push({
      kind: 'warning',
      text: `The runs' specs differ, so their numbers may not be comparable: ${formatSpecDifferences(diffs)}.`,
    });
  const { changed, missing } = compareSamples(
    runs.map((r) => r.lines),
    sampleValue,
  );
  const fmt = (v: number | null) => (v === null ? 'missing' : Number.isInteger(v) ? String(v) : v.toFixed(4));
  blocks.push({
    kind: 'table',
    table: {
      caption: `Samples whose ${valueName} changed: ${changed.length}${changed.length > MAX_CHANGED_ROWS ? ` (first ${MAX_CHANGED_ROWS} shown)` : ''}`,
      columns: ['sample', 'category', ...runs.map((r) => r.label)],
      rows: changed
        .slice(0, MAX_CHANGED_ROWS)
        .map((c) => [
          c.id,
          c.category ?? '—',
          ...c.values.map((v) => ({ text: fmt(v), className: 'changed' })),
        ]),
    },
  });
  // Samples some run lacks (a partial or limited run) are not changes: counted apart, per run.
  if (missing.length) {
    const perRun = runs
      .map((r, i) => [r.label, missing.filter((m) => m.values[i] === null).length] as const)
      .filter(([, n]) => n > 0)
      .map(([label, n]) => `${label}: ${n}`);
    blocks.push({
      kind: 'note',
      text: `Samples missing from some run, not compared: ${missing.length} (missing in ${perRun.join('; ')}).`,
    });
  }
  return blocks;
}

/** Facts, headline metrics and notes every task section starts with. */
export function commonBlocks(runs: readonly ReportRun[]): Block[] {
  const blocks: Block[] = [{ kind: 'table', table: runFactsTable(runs) }];
  const headline = headlineTable(runs);
  if (headline) blocks.push({ kind: 'table', table: headline });
  for (const r of runs) {
    const total = r.summary.spec.size * r.summary.spec.epochs;
    if (r.summary.records < total)
      blocks.push({
        kind: 'warning',
        text: `${r.label}: incomplete run, ${r.summary.records} of ${total} samples recorded.`,
      });
    if (r.truncatedTail)
      blocks.push({ kind: 'note', text: `${r.label}: ignored a torn last line (interrupted run).` });
  }
  return blocks;
}
