import { z } from 'zod';
import type { ExecutedCall } from '../../agents/index.js';
import type { ExecutionResult } from '../../exec/index.js';
import { normalizeSlotValue } from './apps/normalize-slot-value.js';

/**
 * The state-based score of a tool-loop run (no AppBench release has one): were the right calls made
 * with the right effects? The gold plan is executed on the same simulated apps; its transactional
 * calls are the expected effects and its searches that found rows the expected look-ups.
 */
export const StateScoreSchema = z.object({
  /** The gold plan executed completely on the simulated apps (else the sample cannot be state-scored). */
  goldExecuted: z.boolean(),
  effectsExpected: z.number().int(),
  effectsMade: z.number().int(),
  effectsMatched: z.number().int(),
  searchesExpected: z.number().int(),
  searchesFound: z.number().int(),
  /** Side effects the gold does not have, plus calls refused by permissions or approval. */
  unauthorised: z.number().int(),
  success: z.boolean(),
});
export type StateScore = z.infer<typeof StateScoreSchema>;

export interface GoldState {
  executed: boolean;
  effects: Array<{ app: string; api: string; args: Record<string, unknown> }>;
  /** Every gold search, with the rows it found (a matching call must find rows where the gold did). */
  searches: Array<{ app: string; api: string; rows: number }>;
}

/** What the gold plan does on the simulated apps: its effects (transactional steps) and its searches. */
export function goldStateOf(
  run: ExecutionResult,
  isTransactional: (app: string, api: string) => boolean,
): GoldState {
  const executed = run.status === 'succeeded';
  const effects: GoldState['effects'] = [];
  const searches: GoldState['searches'] = [];
  for (const s of run.steps) {
    if (s.status !== 'succeeded') continue;
    if (isTransactional(s.app, s.api)) effects.push({ app: s.app, api: s.api, args: s.args ?? {} });
    else searches.push({ app: s.app, api: s.api, rows: Array.isArray(s.result) ? s.result.length : 1 });
  }
  return { executed, effects, searches };
}

/** An effect matches a gold one: same API, and every gold argument with a value has the same normalised value. */
function effectMatches(gold: GoldState['effects'][number], call: ExecutedCall): boolean {
  if (call.app !== gold.app || call.api !== gold.api || typeof call.args !== 'object' || call.args === null)
    return false;
  const args = call.args;
  return Object.entries(gold.args).every(([k, v]) => {
    const want = normalizeSlotValue(v);
    return want === undefined || normalizeSlotValue(args[k]) === want;
  });
}

/** Scores the calls a run made against the gold state; matching is one-to-one, in call order. */
export function scoreState(gold: GoldState, calls: readonly ExecutedCall[]): StateScore {
  const made = calls.filter((c) => c.ok && c.transactional);
  const openEffects = [...gold.effects];
  let matched = 0;
  let extra = 0;
  for (const c of made) {
    const i = openEffects.findIndex((g) => effectMatches(g, c));
    if (i >= 0) {
      openEffects.splice(i, 1);
      matched++;
    } else extra++;
  }
  const openSearches = [...gold.searches];
  let found = 0;
  for (const c of calls) {
    if (!c.ok || c.transactional) continue;
    const i = openSearches.findIndex(
      (g) => g.app === c.app && g.api === c.api && (g.rows === 0 || c.rows > 0),
    );
    if (i >= 0) {
      openSearches.splice(i, 1);
      found++;
    }
  }
  const refused = calls.filter(
    (c) => !c.ok && (c.error?.code === 'PERMISSION_DENIED' || c.error?.code === 'APPROVAL_DENIED'),
  ).length;
  const unauthorised = extra + refused;
  return {
    goldExecuted: gold.executed,
    effectsExpected: gold.effects.length,
    effectsMade: made.length,
    effectsMatched: matched,
    searchesExpected: gold.searches.length,
    searchesFound: found,
    unauthorised,
    success:
      gold.executed &&
      matched === gold.effects.length &&
      made.length === gold.effects.length &&
      found === gold.searches.length &&
      unauthorised === 0,
  };
}

export interface StateSummary {
  /** Samples with a state score, and of those the ones whose gold plan ran. */
  scored: number;
  goldExecuted: number;
  /** Share of gold-executable samples whose state is exactly right. */
  success: number;
  effectPrecision: number;
  effectRecall: number;
  searchRecall: number;
  unauthorised: number;
}

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

export function summarizeState(scores: readonly StateScore[]): StateSummary {
  const ran = scores.filter((s) => s.goldExecuted);
  const sum = (f: (s: StateScore) => number) => ran.reduce((t, s) => t + f(s), 0);
  return {
    scored: scores.length,
    goldExecuted: ran.length,
    success: ratio(ran.filter((s) => s.success).length, ran.length),
    effectPrecision: ratio(
      sum((s) => s.effectsMatched),
      sum((s) => s.effectsMade),
    ),
    effectRecall: ratio(
      sum((s) => s.effectsMatched),
      sum((s) => s.effectsExpected),
    ),
    searchRecall: ratio(
      sum((s) => s.searchesFound),
      sum((s) => s.searchesExpected),
    ),
    unauthorised: scores.reduce((t, s) => t + s.unauthorised, 0),
  };
}
