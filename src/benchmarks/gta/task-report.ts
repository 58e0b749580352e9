import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledDataDir } from '../../catalog/index.js';
import { type GtaE2eRecordScore, type GtaE2eScores, summarizeGtaE2e } from './e2e-metrics.js';
import { type GtaLeaderboardRow, parseGtaLeaderboard } from './leaderboard.js';
import { type GtaStepCounts, gtaStepPercentages, sumGtaStepCounts } from './step-metrics.js';

/**
 * The `gta` task's report: the run's numbers summed from per-sample scores, printed in the
 * paper's table layout (Inst. Tool. Arg. Summ. | P. O. L. C. | Ans.) with the published
 * leaderboard's rows beside the user's model.
 */

export interface GtaTaskStepReport {
  instAcc: number;
  toolAcc: number;
  argAcc: number;
  summAcc: number;
  toolCall: number;
  toolCallError: number;
  counts: GtaStepCounts;
  unscoredSubjective: number;
}

export interface GtaTaskReport {
  samples: number;
  step: GtaTaskStepReport | null;
  e2e: GtaE2eScores | null;
  /** The published rows (`data/published/gta_leaderboard.csv`), empty when the file is absent. */
  leaderboard: GtaLeaderboardRow[];
}

interface ScoreLike {
  step?: GtaStepCounts | null;
  e2e?: GtaE2eRecordScore | null;
  unscoredSubjective?: number;
}

function bundledLeaderboard(): GtaLeaderboardRow[] {
  const file = join(bundledDataDir(), 'published', 'gta_leaderboard.csv');
  return existsSync(file) ? parseGtaLeaderboard(readFileSync(file, 'utf8'), file) : [];
}

/** Sums step counts (pooled, so equal to scoring all records at once) and end-to-end record scores. */
export function summarizeGtaTask(
  scores: readonly ScoreLike[],
  leaderboard: GtaLeaderboardRow[] = bundledLeaderboard(),
): GtaTaskReport {
  const steps = scores.flatMap((s) => (s.step ? [s.step] : []));
  let step: GtaTaskStepReport | null = null;
  if (steps.length) {
    const c = sumGtaStepCounts(steps);
    step = {
      ...gtaStepPercentages(c),
      toolCall: c.toolCall,
      toolCallError: c.toolCallError,
      counts: c,
      unscoredSubjective: scores.reduce((t, s) => t + (s.unscoredSubjective ?? 0), 0),
    };
  }
  const e2e = scores.flatMap((s) => (s.e2e ? [s.e2e] : []));
  return { samples: scores.length, step, e2e: e2e.length ? summarizeGtaE2e(e2e) : null, leaderboard };
}

/** Headline numbers, named as the leaderboard's columns (plus AnsAccImg and the call counts). */
export function gtaTaskMetrics(r: GtaTaskReport): Record<string, number> {
  const out: Record<string, number> = {};
  if (r.step)
    Object.assign(out, {
      InstAcc: r.step.instAcc,
      ToolAcc: r.step.toolAcc,
      ArgAcc: r.step.argAcc,
      SummAcc: r.step.summAcc,
    });
  if (r.e2e)
    Object.assign(out, {
      P_F1: r.e2e.categoryF1.perception.f1,
      O_F1: r.e2e.categoryF1.operation.f1,
      L_F1: r.e2e.categoryF1.logic.f1,
      C_F1: r.e2e.categoryF1.creativity.f1,
      AnsAcc: r.e2e.ansAcc,
      AnsAccImg: r.e2e.ansAccImg,
      ToolCall: r.e2e.toolCall,
      ToolCallError: r.e2e.toolCallError,
    });
  return out;
}

const COLUMNS = [
  'InstAcc',
  'ToolAcc',
  'ArgAcc',
  'SummAcc',
  'P_F1',
  'O_F1',
  'L_F1',
  'C_F1',
  'AnsAcc',
  'Ans+I',
];

/** The paper's table: this run first, then the leaderboard (a dash where a number was not measured). */
export function formatGtaReport(r: GtaTaskReport, model?: string): string {
  const num = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(2));
  const mine = gtaTaskMetrics(r);
  const runRow = [
    `${model ?? 'this run'} (this run)`,
    ...[...COLUMNS.slice(0, 9).map((c) => mine[c]), mine.AnsAccImg].map(num),
  ];
  const rows = [
    ['Model', ...COLUMNS],
    runRow,
    ...r.leaderboard.map((l) => [
      l.model,
      ...[l.instAcc, l.toolAcc, l.argAcc, l.summAcc, l.pF1, l.oF1, l.lF1, l.cF1, l.ansAcc].map(num),
      '-',
    ]),
  ];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((row) => row[i + 1]!.length)));
  const nameWidth = Math.max(...rows.map((row) => row[0]!.length));
  const line = (row: string[]) =>
    [row[0]!.padEnd(nameWidth), ...row.slice(1).map((c, i) => c.padStart(widths[i]!))].join('  ').trimEnd();
  const mode = [r.step ? 'step-by-step' : '', r.e2e ? 'end-to-end' : ''].filter(Boolean).join(' + ');
  const out = [`GTA (${mode || 'no scores'}): ${r.samples} queries`, line(rows[0]!), line(rows[1]!)];
  if (rows.length > 2) out.push(`published leaderboard (July 2024):`, ...rows.slice(2).map(line));
  if (r.step) {
    out.push(`step mode: tool_call ${r.step.toolCall}, tool_call_error ${r.step.toolCallError}`);
    if (r.step.unscoredSubjective)
      out.push(
        `${r.step.unscoredSubjective} subjective answers unscored (no embeddings endpoint): SummAcc is a lower bound`,
      );
  }
  if (r.e2e) {
    const f = r.e2e.categoryF1;
    out.push(
      `end to end: tool_call ${r.e2e.toolCall}, tool_call_error ${r.e2e.toolCallError}; ` +
        `F1 hits/predicted/gold: ${(['perception', 'operation', 'logic', 'creativity'] as const)
          .map((c) => `${c} ${f[c].hit}/${f[c].predicted}/${f[c].gold}`)
          .join(', ')}`,
    );
    if (r.e2e.unscoredSubjective || r.e2e.unscoredImgGen)
      out.push(
        `unscored for lack of an embeddings endpoint (counted 0): ${r.e2e.unscoredSubjective} subjective, ${r.e2e.unscoredImgGen} image-generation`,
      );
  }
  return `${out.join('\n')}\n`;
}
