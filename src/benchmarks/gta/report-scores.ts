import { z } from 'zod';
import { toPyJson } from '../../shared/index.js';
import { type GtaStepCounts, gtaStepPercentages, sumGtaStepCounts } from './step-metrics.js';
import { GTA_CATEGORIES, type GtaCategory, type GtaCategoryF1, gtaCategory, gtaToolF1 } from './tool-f1.js';

/**
 * What the report reads from a GTA run's per-sample scores (the `gta` task records them; see
 * `GtaScore` in src/benchmarks/gta/register.ts): the step-by-step counts of `scoreGtaSteps` for the
 * sample, and for end-to-end runs the tool names called, the gold tool names and the answer scores.
 */
export const GtaSampleScoreSchema = z.object({
  step: z
    .object({
      inst: z.number(),
      tool: z.number(),
      arg: z.number(),
      summ: z.number(),
      totalTool: z.number(),
      totalAnswer: z.number(),
      toolCall: z.number(),
      toolCallError: z.number(),
    })
    .nullable()
    .optional(),
  e2e: z
    .object({
      /** Every call the agent made, in order (duplicates and failed calls included, as GTA counts them). */
      predictedTools: z.array(z.string()),
      goldTools: z.array(z.string()),
      /** Whether the final answer matched (null: subjective or not scored). */
      answerCorrect: z.boolean().nullable(),
      /** The reference kind (absent in scores written before the task recorded it). */
      reference: z.enum(['objective', 'subjective', 'none']).optional(),
      /** AnsAcc contribution of a truthy reference (0/1 or the similarity); null: unscored. */
      answerScore: z.number().nullable().optional(),
      /** ImgGen contribution of an image-generation query; null: unscored. */
      imgGenScore: z.number().nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type GtaSampleScore = z.infer<typeof GtaSampleScoreSchema>;

export interface GtaToolRow extends GtaCategoryF1 {
  tool: string;
  category: GtaCategory | 'none';
}

/** Percentages, as GTA's leaderboard prints them. */
export interface GtaRunReport {
  samples: number;
  /** Scores not in the expected shape (left out). */
  unreadable: number;
  step: { instAcc: number; toolAcc: number; argAcc: number; summAcc: number; counts: GtaStepCounts } | null;
  categoryF1: Record<GtaCategory, GtaCategoryF1> | null;
  byTool: GtaToolRow[];
  /** Over samples with a truthy reference (with answer scores), else over objective verdicts. */
  ansAcc: number | null;
  /** AnsAcc w/ ImgGen over every end-to-end sample (null when the scores lack answer scores). */
  ansAccImg: number | null;
}

const pct = (n: number, d: number) => (d === 0 ? 0 : (n / d) * 100); // as scoreGtaSteps

/** Steps holding one call to `name`, the form `gtaToolF1` reads. */
const callSteps = (names: readonly string[]) =>
  names.map((name) => toPyJson({ tool_calls: [{ function: { name } }] }));

/** Step counts are sums, so the pooled metrics equal `scoreGtaSteps` over all records at once. */
export function summarizeGtaScores(scores: readonly unknown[]): GtaRunReport {
  const parsed: GtaSampleScore[] = [];
  let unreadable = 0;
  for (const s of scores) {
    const r = GtaSampleScoreSchema.safeParse(s);
    if (r.success) parsed.push(r.data);
    else unreadable++;
  }
  const steps = parsed.flatMap((s) => (s.step ? [s.step] : []));
  let step: GtaRunReport['step'] = null;
  if (steps.length) {
    const c = sumGtaStepCounts(steps);
    step = {
      ...gtaStepPercentages(c),
      counts: c,
    };
  }
  const e2e = parsed.flatMap((s) => (s.e2e ? [s.e2e] : []));
  const records = e2e.map((e) => ({
    predictions: callSteps(e.predictedTools),
    golds: callSteps(e.goldTools),
  }));
  const tools = [...new Set(e2e.flatMap((e) => [...e.goldTools, ...e.predictedTools]))]
    .filter((t) => gtaCategory(t) !== 'none')
    .sort((a, b) => GTA_CATEGORIES.indexOf(cat(a)) - GTA_CATEGORIES.indexOf(cat(b)) || a.localeCompare(b));
  // One tool's F1 is gtaToolF1 over the records with every other tool's calls left out.
  const byTool = tools.map((tool): GtaToolRow => {
    const only = e2e.map((e) => ({
      predictions: callSteps(e.predictedTools.filter((t) => t === tool)),
      golds: callSteps(e.goldTools.filter((t) => t === tool)),
    }));
    return { tool, category: gtaCategory(tool), ...gtaToolF1(only)[cat(tool)] };
  });
  const verdicts = e2e.flatMap((e) => (e.answerCorrect === null ? [] : [e.answerCorrect]));
  // the task's own scores carry answer scores: AnsAcc counts subjective answers too (as GTA does)
  const scored = e2e.length > 0 && e2e.every((e) => e.reference !== undefined);
  const answered = e2e.filter((e) => e.reference !== 'none');
  const answerSum = answered.reduce((t, e) => t + (e.answerScore ?? 0), 0);
  const imgSum = e2e.reduce((t, e) => t + (e.reference === 'none' ? (e.imgGenScore ?? 0) : 0), 0);
  return {
    samples: scores.length,
    unreadable,
    step,
    categoryF1: e2e.length ? gtaToolF1(records) : null,
    byTool,
    ansAcc: scored
      ? pct(answerSum, answered.length)
      : verdicts.length
        ? pct(verdicts.filter(Boolean).length, verdicts.length)
        : null,
    ansAccImg: scored ? pct(answerSum + imgSum, e2e.length) : null,
  };
}

const cat = (tool: string) => gtaCategory(tool) as GtaCategory;

/** GTA's headline numbers, named as the leaderboard's columns. */
function gtaMetrics(r: GtaRunReport): Record<string, number> {
  const out: Record<string, number> = {};
  if (r.step)
    Object.assign(out, {
      InstAcc: r.step.instAcc,
      ToolAcc: r.step.toolAcc,
      ArgAcc: r.step.argAcc,
      SummAcc: r.step.summAcc,
    });
  if (r.categoryF1)
    Object.assign(out, {
      P_F1: r.categoryF1.perception.f1,
      O_F1: r.categoryF1.operation.f1,
      L_F1: r.categoryF1.logic.f1,
      C_F1: r.categoryF1.creativity.f1,
    });
  if (r.ansAcc !== null) out.AnsAcc = r.ansAcc;
  if (r.ansAccImg !== null) out.AnsAccImg = r.ansAccImg;
  return out;
}

/** How reports summarise GTA runs (the HTML section reads this report's shape). */
export const gtaReportSummary = {
  summarize: summarizeGtaScores,
  metrics: gtaMetrics,
};
