import type { Accuracy, LevelTable, ShortcutsReport } from './summary.js';

type Acc = Accuracy;

/** Python's `f"{x:.2f}"`: exact decimal expansion of the double, ties to even. */
function pyFixed2(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const neg = x < 0;
  const exact = Math.abs(x).toFixed(100); // exact: every double has a finite decimal expansion
  const [int, frac] = exact.split('.') as [string, string];
  const head = BigInt(int + frac.slice(0, 2));
  const rest = frac.slice(2);
  const half = `5${'0'.repeat(rest.length - 1)}`;
  const up = rest > half || (rest === half && head % 2n === 1n);
  const n = (head + (up ? 1n : 0n)).toString().padStart(3, '0');
  const s = `${n.slice(0, -2)}.${n.slice(-2)}`;
  return neg && s !== '0.00' ? `-${s}` : s;
}

const cell = (a: Acc) =>
  a.accuracy === 'inf' ? 'inf' : a.accuracy === null ? 'n.a.' : `${pyFixed2(a.accuracy)} (${a.num}/${a.den})`;

function levelRow(name: string, t: LevelTable): string {
  const levels = ['L1', 'L2', 'L3', 'L4'].map((l) => (t.byLevel[l] ? cell(t.byLevel[l]) : '—'));
  return [name.padEnd(22), cell(t.overall).padEnd(20), ...levels.map((c) => c.padEnd(20))]
    .join(' ')
    .trimEnd();
}

/** The paper's tables for one mode: metrics by level, by category, by candidate-list size. */
export function formatShortcutsReport(r: ShortcutsReport): string {
  const lines = [
    `ShortcutsBench (${r.mode}) — ${r.shortcuts} shortcuts`,
    ['metric'.padEnd(22), 'overall'.padEnd(20), 'L1'.padEnd(20), 'L2'.padEnd(20), 'L3'.padEnd(20), 'L4'].join(
      ' ',
    ),
    levelRow('API selection', r.api),
    levelRow('primitive parameters', r.primitive),
    levelRow('previous outputs', r.previousOutput),
    levelRow('system/user inputs', r.systemInput),
    `previous-output errors: no prediction ${r.previousOutput.errors.noPrediction}, format ${r.previousOutput.errors.formatError}, value ${r.previousOutput.errors.valueError}`,
    `system inputs by type: ${
      Object.entries(r.systemInput.byType)
        .map(([k, a]) => `${k} ${cell(a)}`)
        .join(', ') || 'none'
    }`,
    '',
    'category'.padEnd(26) +
      ' n    API                  primitive            previous output      system input',
    ...r.byCategory.map((c) =>
      [
        c.category.padEnd(26),
        String(c.shortcuts).padEnd(4),
        cell(c.api).padEnd(20),
        cell(c.primitive).padEnd(20),
        cell(c.previousOutput).padEnd(20),
        cell(c.systemInput),
      ].join(' '),
    ),
    '',
    'candidates  API                  wrong  hallucinated  position ratio',
    ...r.byApiListSize.map((b) =>
      [
        b.bucket.padEnd(11),
        cell(b.api).padEnd(20),
        String(b.wrong).padEnd(6),
        String(b.hallucinations).padEnd(13),
        typeof b.positionRatio === 'number'
          ? pyFixed2(b.positionRatio)
          : b.positionRatio === null
            ? 'n.a.'
            : 'inf',
      ].join(' '),
    ),
  ];
  return lines.join('\n');
}
