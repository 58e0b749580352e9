import { z } from 'zod';
import { type Catalog, indexCatalog } from '../../catalog/index.js';
import { analyzePlan, type Plan, parseMetabenchPlan } from '../../plan/index.js';
import {
  argumentErrors,
  type ErrorCounts,
  ErrorCountsSchema,
  type ErrorSummary,
  summarizeErrors,
} from './error-analysis.js';
import { appBenchGoldPlan } from './gold-plan.js';
import { APPBENCH_CATEGORIES } from './record.js';
import type { AppBenchPrediction, AppBenchSample } from './sample.js';
import {
  CorrectedCountsSchema,
  type CorrectedMetrics,
  correctedMetrics,
  correctedSampleCounts,
  parsePredictedPlan,
} from './score-corrected.js';
import { alignCalls } from './score-corrected-align.js';
import {
  OfficialCountsSchema,
  type OfficialMetrics,
  officialMetrics,
  officialSampleCounts,
  sumOfficialCounts,
} from './score-official.js';
import { StateScoreSchema, type StateSummary, summarizeState } from './score-state.js';

/**
 * One sample's scores in both modes, JSON-serialisable: the harness stores one per results
 * line and `summarizeAppBench` recomputes the whole report from them.
 */
export const AppBenchSampleScoreSchema = z.object({
  id: z.string(),
  category: z.enum(APPBENCH_CATEGORIES),
  /** Gold plan shape (analyzePlan): independent sub-plans and longest chain. */
  parallelScale: z.number(),
  sequentialScale: z.number(),
  /** Generation failed (no reply, or an error): dropped by the official scorer, an empty reply for the corrected one. */
  failed: z.boolean(),
  /** Null when failed (the official code drops the sample from every denominator). */
  official: OfficialCountsSchema.nullable(),
  corrected: CorrectedCountsSchema,
  errors: ErrorCountsSchema,
  /** Repairs the gold-plan loader applied (noisy gold), and gold lines it could not read. */
  goldRepairs: z.number(),
  goldUnreadable: z.number().default(0),
  /** Tool-loop solvers only: the state-based score and how the agent run ended. */
  state: StateScoreSchema.optional(),
  agent: z
    .object({
      stopReason: z.string(),
      steps: z.number(),
      decodeFailures: z.number(),
      callErrors: z.number(),
      repairs: z.number(),
    })
    .optional(),
});
export type AppBenchSampleScore = z.infer<typeof AppBenchSampleScoreSchema>;

interface GoldSide {
  plan: Plan;
  repairs: number;
  unreadable: number;
  parallelScale: number;
  sequentialScale: number;
}

function readGoldPlan(
  sample: AppBenchSample,
  catalog: Catalog,
): { plan: Plan; repairs: number; unreadable: number } {
  try {
    const { plan, repairs } = appBenchGoldPlan(sample.record, catalog, sample.id);
    return { plan, repairs: repairs.length, unreadable: 0 };
  } catch {
    // Gold the strict loader rejects: read what can be read, and say how much was lost.
    const out = sample.record.output;
    const index = indexCatalog(catalog);
    const { plan, skipped } = parseMetabenchPlan(out.api_results.join('\n'), {
      lenient: true,
      source: sample.id,
      appOf: (api, i) => out.used_app[i] ?? index.appsWithApi(api)[0],
    });
    return { plan, repairs: 0, unreadable: skipped.length };
  }
}

function goldSideOf(sample: AppBenchSample, catalog: Catalog): GoldSide {
  const read = readGoldPlan(sample, catalog);
  const shape = analyzePlan(read.plan);
  return { ...read, parallelScale: shape.parallelScale, sequentialScale: shape.sequentialScale };
}

const appIdsOf = new WeakMap<Catalog, string[]>();

export function scoreAppBenchSample(
  sample: AppBenchSample,
  prediction: AppBenchPrediction,
  catalog: Catalog,
): AppBenchSampleScore {
  const gold = goldSideOf(sample, catalog);
  const failed = prediction.reply === null || prediction.reply === undefined || Boolean(prediction.error);
  const reply = failed ? null : prediction.reply;
  let appIds = appIdsOf.get(catalog);
  if (!appIds) {
    appIds = catalog.apps.map((a) => a.id);
    appIdsOf.set(catalog, appIds);
  }
  const pred = parsePredictedPlan(reply, appIds);
  // one alignment serves the corrected counts and the error analysis
  const alignment = alignCalls(gold.plan.steps, pred.plan.steps);
  return {
    id: sample.id,
    category: sample.category,
    parallelScale: gold.parallelScale,
    sequentialScale: gold.sequentialScale,
    failed,
    official: reply === null ? null : officialSampleCounts(sample.record, reply),
    corrected: correctedSampleCounts(gold.plan, pred.plan, pred.unparseableCalls, alignment),
    errors: argumentErrors(gold.plan, pred.plan, catalog, alignment),
    goldRepairs: gold.repairs,
    goldUnreadable: gold.unreadable,
  };
}

export interface AppBenchGroupReport {
  /** Group label: a category (`ss`), or a scale (`1`, `2`, …). */
  group: string;
  total: number;
  official: OfficialMetrics;
  corrected: CorrectedMetrics;
}

export interface AppBenchReport {
  total: number;
  /** Samples the official scorer kept (generation did not fail). */
  scoredOfficial: number;
  failedIds: string[];
  official: OfficialMetrics;
  corrected: CorrectedMetrics;
  /** Corrected-mode argument error analysis. */
  errors: ErrorSummary;
  /** The official evaluator's own (unreported) missing-key / wrong-value counters. */
  officialErrors: {
    keyMissing: number;
    depKeyMissing: number;
    valueMissing: number;
    depValueMissing: number;
  };
  byCategory: AppBenchGroupReport[];
  byParallelScale: AppBenchGroupReport[];
  bySequentialScale: AppBenchGroupReport[];
  /** Tool-loop runs: state-based score and agent outcomes (absent for plan-text solvers). */
  state?: StateSummary & AgentOutcomeSummary;
  notes: string[];
}

/** How tool-loop runs ended: decode failures apart from wrong answers, repaired apart from first-time successes. */
export interface AgentOutcomeSummary {
  stopReasons: Record<string, number>;
  decodeFailures: number;
  solvedFirstTime: number;
  solvedAfterRepair: number;
}

function agentOutcomes(scores: readonly AppBenchSampleScore[]): AgentOutcomeSummary {
  const stopReasons: Record<string, number> = {};
  let decodeFailures = 0;
  let solvedFirstTime = 0;
  let solvedAfterRepair = 0;
  for (const s of scores) {
    if (!s.agent) continue;
    stopReasons[s.agent.stopReason] = (stopReasons[s.agent.stopReason] ?? 0) + 1;
    decodeFailures += s.agent.decodeFailures;
    if (!s.state?.success) continue;
    if (s.agent.repairs > 0 || s.agent.decodeFailures > 0) solvedAfterRepair++;
    else solvedFirstTime++;
  }
  return { stopReasons, decodeFailures, solvedFirstTime, solvedAfterRepair };
}

function group(
  scores: readonly AppBenchSampleScore[],
  keyOf: (s: AppBenchSampleScore) => string,
  order?: readonly string[],
): AppBenchGroupReport[] {
  const groups = new Map<string, AppBenchSampleScore[]>();
  for (const s of scores) {
    const k = keyOf(s);
    const g = groups.get(k);
    if (g) g.push(s);
    else groups.set(k, [s]);
  }
  const keys = [...groups.keys()].sort((a, b) =>
    order ? order.indexOf(a) - order.indexOf(b) : Number(a) - Number(b),
  );
  return keys.map((k) => {
    const list = groups.get(k)!;
    return {
      group: k,
      total: list.length,
      official: officialMetrics(list.flatMap((s) => (s.official ? [s.official] : []))),
      corrected: correctedMetrics(list.map((s) => s.corrected)),
    };
  });
}

/** Recomputes the report from stored per-sample scores (pooled, i.e. micro, averages). */
export function summarizeAppBench(perSample: readonly AppBenchSampleScore[]): AppBenchReport {
  const kept = perSample.flatMap((s) => (s.official ? [s.official] : []));
  const official = officialMetrics(kept);
  const t = sumOfficialCounts(kept);
  const failedIds = perSample.filter((s) => s.failed).map((s) => s.id);
  const notes: string[] = [
    `official: ${kept.length} scored / ${perSample.length} total (samples whose generation failed are dropped, as upstream)`,
    `corrected: ${perSample.length} scored / ${perSample.length} total (failed generations count as empty predictions)`,
    'corrected: calls aligned by App+API in any order; values equal after trimming, collapsing spaces, lower-casing and removing wrapping quotes (numbers by value); references must point at the aligned producer; no substring or alias matching',
  ];
  if (official.undefinedMetrics.length)
    notes.push(
      `official: ${official.undefinedMetrics.join(', ')} would raise ZeroDivisionError upstream; shown as 0`,
    );
  const repaired = perSample.filter((s) => s.goldRepairs > 0).length;
  if (repaired) notes.push(`gold: ${repaired} sample(s) needed gold-plan repairs (noisy upstream data)`);
  const unreadable = perSample.filter((s) => s.goldUnreadable > 0).length;
  if (unreadable)
    notes.push(`gold: ${unreadable} sample(s) have gold call strings the plan parser cannot read`);
  return {
    total: perSample.length,
    scoredOfficial: kept.length,
    failedIds,
    official,
    corrected: correctedMetrics(perSample.map((s) => s.corrected)),
    errors: summarizeErrors(perSample.map((s): ErrorCounts => s.errors)),
    officialErrors: {
      keyMissing: t.keyMissing,
      depKeyMissing: t.depKeyMissing,
      valueMissing: t.valueMissing,
      depValueMissing: t.depValueMissing,
    },
    byCategory: group(perSample, (s) => s.category, APPBENCH_CATEGORIES),
    byParallelScale: group(perSample, (s) => String(s.parallelScale)),
    bySequentialScale: group(perSample, (s) => String(s.sequentialScale)),
    ...(perSample.some((s) => s.state)
      ? {
          state: {
            ...summarizeState(perSample.flatMap((s) => (s.state ? [s.state] : []))),
            ...agentOutcomes(perSample),
          },
        }
      : {}),
    notes,
  };
}

/** Scores every (sample, prediction) pair and summarises: the harness's single entry point. */
export function scoreAppBench(
  items: Array<{ sample: AppBenchSample; prediction: AppBenchPrediction }>,
  catalog: Catalog,
): AppBenchReport {
  return summarizeAppBench(
    items.map(({ sample, prediction }) => scoreAppBenchSample(sample, prediction, catalog)),
  );
}
