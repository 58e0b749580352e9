import { z } from 'zod';
import { type Catalog, indexCatalog } from '../../catalog/index.js';
import { analyzePlan, type Plan, parsePlanText } from '../../plan/index.js';
import { zeroCounts } from '../../shared/index.js';
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
  CORRECTED_COUNT_KEYS,
  type CorrectedCounts,
  CorrectedCountsSchema,
  type CorrectedMetrics,
  correctedMetricsOf,
  correctedSampleCounts,
  parsePredictedPlan,
} from './score-corrected.js';
import { alignCalls } from './score-corrected-align.js';
import {
  OFFICIAL_COUNT_KEYS,
  type OfficialCounts,
  OfficialCountsSchema,
  type OfficialMetrics,
  officialMetricsOf,
  officialSampleCounts,
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
    const { plan, skipped } = parsePlanText(out.api_results.join('\n'), {
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

/**
 * Pooled counts of a set of samples. The report pools every sample four times (overall, by
 * category, by parallel and by sequential scale): each sample's counts are read once into typed
 * arrays and added to its four pools, which keeps the summary of a 40,000-sample run in tens of ms.
 */
class CountsPool {
  total = 0;
  scoredOfficial = 0;
  formatErrors = 0;
  readonly official = new Float64Array(OFFICIAL_COUNT_KEYS.length);
  readonly corrected = new Float64Array(CORRECTED_COUNT_KEYS.length);

  add(official: Float64Array | null, corrected: Float64Array, formatError: boolean): void {
    this.total++;
    if (formatError) this.formatErrors++;
    for (let i = 0; i < corrected.length; i++) this.corrected[i]! += corrected[i]!;
    if (!official) return;
    this.scoredOfficial++;
    for (let i = 0; i < official.length; i++) this.official[i]! += official[i]!;
  }

  officialCounts(): OfficialCounts {
    return zeroCounts(OFFICIAL_COUNT_KEYS, (i) => this.official[i]!);
  }

  officialMetrics(): OfficialMetrics {
    return officialMetricsOf(this.officialCounts(), this.scoredOfficial);
  }

  correctedMetrics(): CorrectedMetrics {
    const t: CorrectedCounts = zeroCounts(CORRECTED_COUNT_KEYS, (i) => this.corrected[i]!);
    return correctedMetricsOf(t, this.total, this.formatErrors);
  }
}

/**
 * A sample's counts as a row in the order of the count keys. Named reads stay monomorphic; a loop
 * over the keys (`counts[keys[i]]`) is a megamorphic keyed load, 3× slower over 40,000 records.
 */
function officialRow(c: OfficialCounts, row: Float64Array): Float64Array {
  row.set([
    c.predApps,
    c.goldApps,
    c.appEM,
    c.appHit,
    c.predApis,
    c.goldApis,
    c.apiEM,
    c.apiHit,
    c.predArgs,
    c.goldArgs,
    c.argHit,
    c.predDep,
    c.goldDep,
    c.depHit,
    c.unitApiEM,
    c.goldApiUnits,
    c.complete,
    c.keyMissing,
    c.depKeyMissing,
    c.valueMissing,
    c.depValueMissing,
  ]);
  return row;
}

function correctedRow(c: CorrectedCounts, row: Float64Array): Float64Array {
  row.set([
    c.predCalls,
    c.goldCalls,
    c.unparseableCalls,
    c.appHit,
    c.apiHit,
    c.appEM,
    c.apiEM,
    c.matchedCalls,
    c.predArgs,
    c.goldArgs,
    c.argHit,
    c.predDep,
    c.goldDep,
    c.depHit,
    c.predIndep,
    c.goldIndep,
    c.indepHit,
    c.success,
  ]);
  return row;
}

/** For the test that pins the rows to the count keys. */
export const appBenchCountRows = { officialRow, correctedRow };

function groupReports(pools: Map<string, CountsPool>, order?: readonly string[]): AppBenchGroupReport[] {
  const keys = [...pools.keys()].sort((a, b) =>
    order ? order.indexOf(a) - order.indexOf(b) : Number(a) - Number(b),
  );
  return keys.map((k) => {
    const pool = pools.get(k)!;
    return {
      group: k,
      total: pool.total,
      official: pool.officialMetrics(),
      corrected: pool.correctedMetrics(),
    };
  });
}

function poolOf(pools: Map<string, CountsPool>, key: string): CountsPool {
  let pool = pools.get(key);
  if (!pool) {
    pool = new CountsPool();
    pools.set(key, pool);
  }
  return pool;
}

/**
 * A reply that is not in the plan format: it has a call-like line the parser cannot read, or no plan
 * line at all where the gold has calls (prose, an empty reply, a refusal: plan-text agents reply ''
 * then). A tool-loop run writes its reply from the calls it made: no call is a format error only when
 * its replies could not be read (a decode failure), not when it answered without acting. A failed
 * generation (no reply) is not the model's format: it is counted apart (`failedIds`).
 */
function isFormatError(s: Pick<AppBenchSampleScore, 'failed' | 'corrected' | 'agent'>): boolean {
  if (s.failed) return false;
  if (s.corrected.unparseableCalls > 0) return true;
  if (s.corrected.predCalls > 0 || s.corrected.goldCalls === 0) return false;
  return s.agent ? s.agent.decodeFailures > 0 : true;
}

/** Recomputes the report from stored per-sample scores (pooled, i.e. micro, averages). */
export function summarizeAppBench(perSample: readonly AppBenchSampleScore[]): AppBenchReport {
  const all = new CountsPool();
  const byCategory = new Map<string, CountsPool>();
  const byParallel = new Map<string, CountsPool>();
  const bySequential = new Map<string, CountsPool>();
  // one pair of rows reused: each pool adds them into its own sums
  const officialScratch = new Float64Array(OFFICIAL_COUNT_KEYS.length);
  const correctedScratch = new Float64Array(CORRECTED_COUNT_KEYS.length);
  for (const s of perSample) {
    const official = s.official ? officialRow(s.official, officialScratch) : null;
    const corrected = correctedRow(s.corrected, correctedScratch);
    const formatError = isFormatError(s);
    all.add(official, corrected, formatError);
    poolOf(byCategory, s.category).add(official, corrected, formatError);
    poolOf(byParallel, String(s.parallelScale)).add(official, corrected, formatError);
    poolOf(bySequential, String(s.sequentialScale)).add(official, corrected, formatError);
  }
  const official = all.officialMetrics();
  const t = all.officialCounts();
  const failedIds = perSample.filter((s) => s.failed).map((s) => s.id);
  const notes: string[] = [
    `official: ${all.scoredOfficial} scored / ${perSample.length} total (samples whose generation failed are dropped, as upstream)`,
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
    scoredOfficial: all.scoredOfficial,
    failedIds,
    official,
    corrected: all.correctedMetrics(),
    errors: summarizeErrors(perSample.map((s): ErrorCounts => s.errors)),
    officialErrors: {
      keyMissing: t.keyMissing,
      depKeyMissing: t.depKeyMissing,
      valueMissing: t.valueMissing,
      depValueMissing: t.depValueMissing,
    },
    byCategory: groupReports(byCategory, APPBENCH_CATEGORIES),
    byParallelScale: groupReports(byParallel),
    bySequentialScale: groupReports(bySequential),
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
