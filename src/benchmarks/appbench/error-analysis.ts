import { z } from 'zod';
import { type Catalog, indexCatalog } from '../../catalog/index.js';
import type { Plan } from '../../plan/index.js';
import { sumCounts, zeroCounts } from '../../shared/index.js';
import { type Alignment, alignCalls, normApi, normArgName, valuesMatch } from './score-corrected-align.js';

/**
 * Argument error analysis in the style of the AppBench paper, over the calls the corrected
 * scorer aligned (same App and API):
 * - key errors: a gold argument name the prediction lacks (missing) or a predicted name the
 *   gold call lacks (extra);
 * - value errors: same name, different value.
 * Each is split into dependent / independent: by the gold value (a reference vs a literal);
 * for extra keys, which have no gold value, by the predicted value.
 * Value errors are also tagged time (the catalog types the parameter date/time/datetime, or its
 * name has a `date`/`time` word) and space (a location-like name, see `SPACE_PARAMS`).
 * Calls missing from or added to the prediction are counted apart (missingCalls/extraCalls).
 */

/** Location-like parameter names of the AppBench/SGD catalog, plus any name with one of `SPACE_WORDS`. */
const SPACE_PARAMS = new Set([
  'city',
  'location',
  'address',
  'area',
  'where_to',
  'from',
  'to',
  'from_city',
  'to_city',
  'from_station',
  'to_station',
  'origin_airport',
  'destination_airport',
  'destination',
  'pickup_location',
  'street_address',
  'venue',
  'venue_address',
]);
const SPACE_WORDS = ['city', 'location', 'address', 'airport', 'station', 'destination', 'venue'];

function isSpaceParam(name: string): boolean {
  const n = normArgName(name);
  return SPACE_PARAMS.has(n) || n.split('_').some((w) => SPACE_WORDS.includes(w));
}

function isTimeParam(name: string, catalog?: Catalog, app?: string, api?: string): boolean {
  const n = normArgName(name);
  if (catalog && app && api) {
    const def = indexCatalog(catalog)
      .apisOf(app)
      .find((a) => normApi(app, a.name) === normApi(app, api));
    const t = def?.parameters.find((p) => normArgName(p.name) === n)?.type;
    if (t?.kind === 'primitive' && ['date', 'time', 'datetime'].includes(t.name)) return true;
  }
  return n.split('_').some((w) => w === 'date' || w === 'time');
}

export const ErrorCountsSchema = z.object({
  missingCalls: z.number(),
  extraCalls: z.number(),
  keyMissingDep: z.number(),
  keyMissingIndep: z.number(),
  keyExtraDep: z.number(),
  keyExtraIndep: z.number(),
  valueDep: z.number(),
  valueIndep: z.number(),
  valueTime: z.number(),
  valueSpace: z.number(),
});
export type ErrorCounts = z.infer<typeof ErrorCountsSchema>;

const ERROR_COUNT_KEYS = Object.keys(ErrorCountsSchema.shape) as Array<keyof ErrorCounts>;

function emptyErrorCounts(): ErrorCounts {
  return zeroCounts(ERROR_COUNT_KEYS);
}

/** `alignment`: `alignCalls(gold.steps, pred.steps)` when the caller already has it. */
export function argumentErrors(
  gold: Plan,
  pred: Plan,
  catalog?: Catalog,
  alignment: Alignment = alignCalls(gold.steps, pred.steps),
): ErrorCounts {
  const e = emptyErrorCounts();
  const { pairs, predToGold } = alignment;
  e.missingCalls = gold.steps.length - pairs.length;
  e.extraCalls = pred.steps.length - pairs.length;
  for (const [gi, pi] of pairs) {
    const g = gold.steps[gi]!;
    const gArgs = new Map(Object.entries(g.args).map(([k, v]) => [normArgName(k), v]));
    const pArgs = new Map(Object.entries(pred.steps[pi]!.args).map(([k, v]) => [normArgName(k), v]));
    for (const [k, gv] of gArgs) {
      const dep = gv.kind === 'ref';
      const pv = pArgs.get(k);
      if (!pv) {
        if (dep) e.keyMissingDep++;
        else e.keyMissingIndep++;
        continue;
      }
      if (valuesMatch(gv, pv, predToGold)) continue;
      if (dep) e.valueDep++;
      else e.valueIndep++;
      if (isTimeParam(k, catalog, g.app, g.api)) e.valueTime++;
      if (isSpaceParam(k)) e.valueSpace++;
    }
    for (const [k, pv] of pArgs) {
      if (gArgs.has(k)) continue;
      if (pv.kind === 'ref') e.keyExtraDep++;
      else e.keyExtraIndep++;
    }
  }
  return e;
}

export interface ErrorSummary extends ErrorCounts {
  keyErrors: number;
  valueErrors: number;
  /** Shares of value errors on time / space parameters (0 when there are no value errors). */
  timeShare: number;
  spaceShare: number;
}

export function summarizeErrors(list: readonly ErrorCounts[]): ErrorSummary {
  const t = sumCounts(list, ERROR_COUNT_KEYS);
  const valueErrors = t.valueDep + t.valueIndep;
  return {
    ...t,
    keyErrors: t.keyMissingDep + t.keyMissingIndep + t.keyExtraDep + t.keyExtraIndep,
    valueErrors,
    timeShare: valueErrors ? t.valueTime / valueErrors : 0,
    spaceShare: valueErrors ? t.valueSpace / valueErrors : 0,
  };
}
