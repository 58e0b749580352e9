import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReportParts } from '../../reports/index.js';
import { parseGtaLeaderboard } from './leaderboard.js';
import { GtaSampleScoreSchema, gtaReportSummary } from './report-scores.js';
import { type GtaPublished, gtaSection } from './report-section.js';

/** The GTA leaderboard as published (data/published/gta_leaderboard.csv). */
function loadGtaPublished(dir: string): GtaPublished {
  const file = join(dir, 'gta_leaderboard.csv');
  return {
    split: 'test (229 queries)',
    source: 'GTA leaderboard (open-compass/GTA)',
    rows: parseGtaLeaderboard(readFileSync(file, 'utf8'), file),
  };
}

const names = (tools: readonly string[]) => (tools.length ? tools.join(', ') : 'none');

/** What a GTA score says beside its metrics: the tools called and the gold ones, the answer's verdict. */
export function gtaScoreFacts(score: unknown): Array<[string, string]> {
  const e2e = GtaSampleScoreSchema.safeParse(score).data?.e2e;
  if (!e2e) return [];
  const verdict = e2e.answerCorrect === null ? 'not scored' : e2e.answerCorrect ? 'right' : 'wrong';
  return [
    ['tools called', names(e2e.predictedTools)],
    ['gold tools', names(e2e.goldTools)],
    ['answer', verdict],
  ];
}

/** The final answer of an end-to-end output. */
const answer = (output: unknown): string | null => {
  const a = (output as { answer?: unknown } | null)?.answer;
  return typeof a === 'string' ? a : null;
};

/**
 * GTA's report parts: the leaderboard section, summarised by the report's own GTA summary (the
 * section reads its shape, from the same per-sample scores the task records).
 */
export const gtaReport: ReportParts<GtaPublished> = {
  published: loadGtaPublished,
  tasks: {
    gta: {
      title: 'GTA',
      section: gtaSection,
      summary: gtaReportSummary,
      viewer: { answer, scoreFacts: gtaScoreFacts },
    },
  },
};
