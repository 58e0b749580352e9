import { z } from 'zod';
import { type Plan, parsePlanText, type Step } from '../../plan/index.js';
import {
  type Alignment,
  alignCalls,
  callKey,
  normArgName,
  normName,
  valuesMatch,
} from './score-corrected-align.js';
import { f1 } from './score-official.js';

/**
 * The corrected AppBench scorer: what the metrics are meant to measure. The reply is parsed
 * by `parsePlanText` (lenient), the gold by `appBenchGoldPlan`; calls are aligned by
 * App+API (order of independent calls is free), values compare after normalisation (see
 * score-corrected-align.ts), never by substring.
 *
 * - App / API F1: multiset intersection of the predicted and gold Apps (API = `app.api`),
 *   pooled over samples. A skipped line that looks like a call counts as a prediction that
 *   matches nothing.
 * - Argument F1 over aligned calls: all arguments, dependent ones (gold value is a reference;
 *   predicted value is a reference) and independent ones (everything else).
 * - EM: App multiset equal / API multiset equal.
 * - Success: the predicted graph equals the gold graph: every call aligned, no extra or
 *   unreadable call, each aligned pair with the same argument names and equal values, every
 *   reference pointing at the aligned producer.
 */

export const CorrectedCountsSchema = z.object({
  predCalls: z.number(),
  goldCalls: z.number(),
  /** Lines that look like a call but could not be parsed (counted as wrong predictions). */
  unparseableCalls: z.number(),
  appHit: z.number(),
  apiHit: z.number(),
  appEM: z.number(),
  apiEM: z.number(),
  matchedCalls: z.number(),
  predArgs: z.number(),
  goldArgs: z.number(),
  argHit: z.number(),
  predDep: z.number(),
  goldDep: z.number(),
  depHit: z.number(),
  predIndep: z.number(),
  goldIndep: z.number(),
  indepHit: z.number(),
  success: z.number(),
});
export type CorrectedCounts = z.infer<typeof CorrectedCountsSchema>;

/** A skipped line is a failed call when it is bracketed after `App:`, has `ret = name(`, or starts with `name(`. */
function looksLikeCall(line: string): boolean {
  return (
    /^\s*([\w.]+\s*:\s*)?\[.*\]/.test(line) || /=\s*[\w.]+\s*\(/.test(line) || /^\s*[\w.]+\s*\(/.test(line)
  );
}

/**
 * Parses a reply leniently; returns the plan and the number of unparseable call-like lines.
 * A call written without `App:` keeps its App only when the API name carries it
 * (`Weather_getweather(` or `Weather.getweather(` naming an App of `appIds`).
 */
export function parsePredictedPlan(
  reply: string | null,
  appIds: readonly string[] = [],
): { plan: Plan; unparseableCalls: number } {
  if (!reply) return { plan: { steps: [] }, unparseableCalls: 0 };
  const appOf = (api: string) => {
    const m = /^([A-Za-z]\w*?)[_.]/.exec(api);
    return m ? appIds.find((a) => a.toLowerCase() === m[1]!.toLowerCase()) : undefined;
  };
  const { plan, skipped } = parsePlanText(reply, { lenient: true, source: '<prediction>', appOf });
  return { plan, unparseableCalls: skipped.filter((s) => looksLikeCall(s.text)).length };
}

function multisetHits(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  let hits = 0;
  for (const x of a) {
    const n = counts.get(x) ?? 0;
    if (n > 0) {
      hits++;
      counts.set(x, n - 1);
    }
  }
  return hits;
}

const isDep = (v: Step['args'][string]) => v.kind === 'ref';

/** `alignment`: `alignCalls(gold.steps, pred.steps)` when the caller already has it. */
export function correctedSampleCounts(
  gold: Plan,
  pred: Plan,
  unparseableCalls = 0,
  alignment: Alignment = alignCalls(gold.steps, pred.steps),
): CorrectedCounts {
  const gApps = gold.steps.map((s) => normName(s.app));
  const pApps = pred.steps.map((s) => normName(s.app));
  const gApis = gold.steps.map(callKey);
  const pApis = pred.steps.map(callKey);
  const bad = Array.from({ length: unparseableCalls }, () => '\u0000unparseable');
  const sameMultiset = (a: string[], b: string[]) =>
    a.length === b.length && multisetHits(a, b) === a.length ? 1 : 0;

  const c: CorrectedCounts = {
    predCalls: pred.steps.length + unparseableCalls,
    goldCalls: gold.steps.length,
    unparseableCalls,
    appHit: multisetHits(pApps, gApps),
    apiHit: multisetHits(pApis, gApis),
    appEM: sameMultiset([...pApps, ...bad], gApps),
    apiEM: sameMultiset([...pApis, ...bad], gApis),
    matchedCalls: 0,
    predArgs: 0,
    goldArgs: 0,
    argHit: 0,
    predDep: 0,
    goldDep: 0,
    depHit: 0,
    predIndep: 0,
    goldIndep: 0,
    indepHit: 0,
    success: 0,
  };
  for (const s of pred.steps)
    for (const v of Object.values(s.args)) {
      c.predArgs++;
      if (isDep(v)) c.predDep++;
      else c.predIndep++;
    }
  for (const s of gold.steps)
    for (const v of Object.values(s.args)) {
      c.goldArgs++;
      if (isDep(v)) c.goldDep++;
      else c.goldIndep++;
    }
  const { pairs, predToGold } = alignment;
  c.matchedCalls = pairs.length;
  let sameKeys = true;
  for (const [gi, pi] of pairs) {
    const g = gold.steps[gi]!;
    const p = new Map(Object.entries(pred.steps[pi]!.args).map(([k, v]) => [normArgName(k), v]));
    const gArgs = Object.entries(g.args);
    if (gArgs.length !== p.size) sameKeys = false;
    for (const [k, gv] of gArgs) {
      const pv = p.get(normArgName(k));
      if (!pv) {
        sameKeys = false;
        continue;
      }
      if (!valuesMatch(gv, pv, predToGold)) continue;
      c.argHit++;
      if (isDep(gv)) c.depHit++;
      else c.indepHit++;
    }
  }
  const allCalls =
    pairs.length === gold.steps.length && pairs.length === pred.steps.length && unparseableCalls === 0;
  if (allCalls && sameKeys && c.argHit === c.goldArgs) c.success = 1;
  return c;
}

export interface CorrectedMetrics {
  n: number;
  appF1: number;
  apiF1: number;
  argF1: number;
  depArgF1: number;
  indepArgF1: number;
  appEM: number;
  apiEM: number;
  success: number;
  /** Share of samples whose reply was not in the plan format: an unreadable call line, or no plan line. */
  formatErrorRate: number;
}

export const CORRECTED_COUNT_KEYS = Object.keys(CorrectedCountsSchema.shape) as Array<keyof CorrectedCounts>;

/** F1 of pooled counts; precision (recall) is 0 when nothing was predicted (expected), and F1 of two empty sides is 1. */
function pooledF1(hit: number, pred: number, gold: number): number {
  if (pred === 0 && gold === 0) return 1;
  return f1(pred ? hit / pred : 0, gold ? hit / gold : 0);
}

/** The corrected metrics of `n` samples whose counts sum to `t`, `formatErrors` of them not in the plan format. */
export function correctedMetricsOf(t: CorrectedCounts, n: number, formatErrors: number): CorrectedMetrics {
  const mean = (x: number) => (n ? x / n : 0);
  return {
    n,
    appF1: pooledF1(t.appHit, t.predCalls, t.goldCalls),
    apiF1: pooledF1(t.apiHit, t.predCalls, t.goldCalls),
    argF1: pooledF1(t.argHit, t.predArgs, t.goldArgs),
    depArgF1: pooledF1(t.depHit, t.predDep, t.goldDep),
    indepArgF1: pooledF1(t.indepHit, t.predIndep, t.goldIndep),
    appEM: mean(t.appEM),
    apiEM: mean(t.apiEM),
    success: mean(t.success),
    formatErrorRate: mean(formatErrors),
  };
}
