import type { AppBenchGroupReport, AppBenchReport } from './score-appbench.js';

const pct = (x: number) => (x * 100).toFixed(2);
/** No sample scored: the scorers' zero guards would print 0 or 100, which no sample earned. */
const NOT_SCORED = '—';

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export type AppBenchReportMode = 'official' | 'corrected' | 'both';

function groupTable(title: string, groups: readonly AppBenchGroupReport[], mode: AppBenchReportMode): string {
  const off = mode !== 'corrected';
  const cor = mode !== 'official';
  const header = [
    title,
    'n',
    ...(off ? ['off App F1', 'off API F1', 'off Arg F1', 'off Succ'] : []),
    ...(cor ? ['cor App F1', 'cor API F1', 'cor Arg F1', 'cor Succ'] : []),
  ];
  const rows = groups.map((g) => [
    g.group,
    !off || g.official.n === g.total ? String(g.total) : `${g.official.n}/${g.total}`,
    ...(!off
      ? []
      : g.official.n
        ? [pct(g.official.appF1), pct(g.official.apiF1), pct(g.official.argF1), pct(g.official.success)]
        : Array(4).fill(NOT_SCORED)),
    ...(cor
      ? [pct(g.corrected.appF1), pct(g.corrected.apiF1), pct(g.corrected.argF1), pct(g.corrected.success)]
      : []),
  ]);
  return table(header, rows);
}

/**
 * A readable report: both modes side by side ("official" / "corrected"), breakdowns by category
 * and plan shape, error analysis. `mode` keeps one column only.
 */
export function formatAppBenchReport(
  report: AppBenchReport,
  opts: { mode?: AppBenchReportMode } = {},
): string {
  const mode = opts.mode ?? 'both';
  const o = report.official;
  const c = report.corrected;
  const out: string[] = [];
  const offScored = report.scoredOfficial > 0;
  const corScored = report.total > 0;
  const cols = (off: string, cor: string) => {
    const shown = [offScored ? off : NOT_SCORED, corScored ? cor : NOT_SCORED];
    return mode === 'official' ? [shown[0]!] : mode === 'corrected' ? [shown[1]!] : shown;
  };
  out.push(
    `AppBench — ${report.total} samples (official: ${report.scoredOfficial} scored / ${report.total} total; corrected: ${report.total} scored / ${report.total} total). Values in %.`,
  );
  out.push('');
  out.push(
    table(
      ['metric', ...cols('official', 'corrected')],
      [
        ['App F1', ...cols(pct(o.appF1), pct(c.appF1))],
        ['API F1', ...cols(pct(o.apiF1), pct(c.apiF1))],
        ['Argument F1', ...cols(pct(o.argF1), pct(c.argF1))],
        ['  dependent', ...cols(pct(o.depArgF1), pct(c.depArgF1))],
        ['  independent', ...cols(pct(o.nonDepArgF1), pct(c.indepArgF1))],
        ['Success (Succ)', ...cols(pct(o.success), pct(c.success))],
        ['App EM', ...cols(pct(o.appEM), pct(c.appEM))],
        ['API EM', ...cols(pct(o.apiEM), pct(c.apiEM))],
        ['Format errors', ...cols('-', pct(c.formatErrorRate))],
      ],
    ),
  );
  out.push('');
  if (report.state) {
    const st = report.state;
    out.push('State of the simulated apps after the tool loop (no AppBench release has this score)');
    out.push(
      table(
        ['metric', 'value'],
        [
          ['State success', `${pct(st.success)} (${st.goldExecuted} of ${st.scored} gold plans ran)`],
          ['Effect precision / recall', `${pct(st.effectPrecision)} / ${pct(st.effectRecall)}`],
          ['Search recall', pct(st.searchRecall)],
          ['Unauthorised calls', String(st.unauthorised)],
          ['Solved first time / after repair', `${st.solvedFirstTime} / ${st.solvedAfterRepair}`],
          ['Decode failures', String(st.decodeFailures)],
          [
            'Stop reasons',
            Object.entries(st.stopReasons)
              .map(([k, v]) => `${k} ${v}`)
              .join(', '),
          ],
        ],
      ),
    );
    out.push('');
  }
  out.push(
    'By category (off = official, cor = corrected; n = official scored/total when generations failed)',
  );
  out.push(groupTable('category', report.byCategory, mode));
  out.push('');
  out.push('By parallel scale of the gold plan (independent sub-plans)');
  out.push(groupTable('parallel', report.byParallelScale, mode));
  out.push('');
  out.push('By sequential scale of the gold plan (calls on the longest chain)');
  out.push(groupTable('sequential', report.bySequentialScale, mode));
  out.push('');
  if (mode !== 'official') {
    const e = report.errors;
    out.push('Error analysis (corrected; over calls aligned by App+API)');
    out.push(
      table(
        ['error', 'dependent', 'independent', 'total'],
        [
          [
            'key missing',
            String(e.keyMissingDep),
            String(e.keyMissingIndep),
            String(e.keyMissingDep + e.keyMissingIndep),
          ],
          [
            'key extra',
            String(e.keyExtraDep),
            String(e.keyExtraIndep),
            String(e.keyExtraDep + e.keyExtraIndep),
          ],
          ['value', String(e.valueDep), String(e.valueIndep), String(e.valueErrors)],
        ],
      ),
    );
    out.push(
      `value errors on time params: ${e.valueTime} (${pct(e.timeShare)}%), on space params: ${e.valueSpace} (${pct(e.spaceShare)}%)`,
    );
    out.push(`calls missing: ${e.missingCalls}, calls extra: ${e.extraCalls}`);
  }
  if (mode !== 'corrected') {
    const oe = report.officialErrors;
    out.push(
      `official evaluator counters: key missing ${oe.keyMissing} (dependent ${oe.depKeyMissing}), value missing ${oe.valueMissing} (dependent ${oe.depValueMissing})`,
    );
  }
  if (report.failedIds.length)
    out.push(
      `failed generations (${report.failedIds.length}): ${report.failedIds.slice(0, 20).join(', ')}${report.failedIds.length > 20 ? ', …' : ''}`,
    );
  out.push('');
  for (const n of report.notes) out.push(`note: ${n}`);
  return out.join('\n');
}
