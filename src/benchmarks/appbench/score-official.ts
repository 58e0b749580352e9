import { z } from 'zod';
import { sumCounts } from '../../shared/index.js';
import type { AppBenchRecord } from './record.js';
import { extractNameParams, pyStripChars, splitOfficialReply } from './score-official-parse.js';

/**
 * `get_appbench_analysis` of the official evaluator (docs/appbench.md, "Official scoring"), quirks included:
 * one App/API hit per sample at most, repeated calls of one API collapsed (last wins),
 * substring value matching, the correction map (with its stray quote), the user-aware and
 * `past` fallbacks that also bump the predicted-dependency count, and the inconsistent
 * dependent/non-dependent denominators. Per sample we keep raw counts; metrics pool them.
 */

/** Raw per-sample counters; summing them over samples and calling `officialMetrics` gives the official numbers. */
export const OfficialCountsSchema = z.object({
  predApps: z.number(),
  goldApps: z.number(),
  appEM: z.number(),
  appHit: z.number(),
  predApis: z.number(),
  goldApis: z.number(),
  apiEM: z.number(),
  apiHit: z.number(),
  predArgs: z.number(),
  goldArgs: z.number(),
  argHit: z.number(),
  /** Predicted values without `'` (plus the fallback increments). */
  predDep: z.number(),
  /** Dependent gold arguments of gold APIs that were predicted. */
  goldDep: z.number(),
  depHit: z.number(),
  /** Gold APIs (after collapsing) predicted with every argument hit. */
  unitApiEM: z.number(),
  /** Gold APIs after collapsing repeated names (|G|). */
  goldApiUnits: z.number(),
  complete: z.number(),
  keyMissing: z.number(),
  depKeyMissing: z.number(),
  valueMissing: z.number(),
  depValueMissing: z.number(),
});
export type OfficialCounts = z.infer<typeof OfficialCountsSchema>;

/** `pred_correction_map`; "ciudad de mexico" maps to `mexico city'` with a stray quote upstream. */
const OFFICIAL_CORRECTION_MAP: Readonly<Record<string, string>> = {
  la: 'los angeles',
  lax: 'los angeles',
  'ciudad de mexico': "mexico city'",
  nyc: 'new york',
  sd: 'san diego',
  sfo: 'san francisco',
  'chi-town': 'chicago',
};

/** `single_argu_value_judge`: equal, or either is a substring of the other, after stripping quotes. */
export function officialSame(a: string, b: string): boolean {
  const x = pyStripChars(a.toLowerCase(), "'");
  const y = pyStripChars(b.toLowerCase(), "'");
  return x === y || x.includes(y) || y.includes(x);
}

/** `match_evaluate`: em = multiset equality (lower-cased); hit = 1 if any prediction is a label (the upstream cap). */
export function officialMatch(
  preds: readonly string[],
  labels: readonly string[],
): { em: number; hit: number } {
  if (preds.length === 0) return { em: 0, hit: 0 };
  const p = preds.map((x) => x.toLowerCase());
  const l = labels.map((x) => x.toLowerCase());
  const sorted = (xs: string[]) => [...xs].sort().join('\u0000');
  const em = p.length === l.length && sorted(p) === sorted(l) ? 1 : 0;
  const hit = p.some((x) => l.includes(x)) ? 1 : 0;
  return { em, hit };
}

const hasQuote = (v: string) => v.includes("'");

/** Scores one sample whose generation succeeded (the official code drops the others). */
/** What the official scorer reads from a record's gold side. */
interface OfficialGold {
  ua: Map<string, string>;
  names: string[];
  /** Gold calls by API name (repeated names collapse to the last call). */
  G: Map<string, Map<string, string>>;
}

function officialGold(record: AppBenchRecord): OfficialGold {
  // Not cached per record: kept alive for a whole run, parsed gold costs more in old-generation GC
  // than parsing it again (measured; a record is scored once per epoch).
  const out = record.output;
  const parsed = out.api_results.map((c) => extractNameParams(c));
  const G = new Map<string, Map<string, string>>();
  for (const p of parsed) if (p) G.set(p.name, p.args);
  return {
    ua: new Map(Object.entries(out.user_aware_arguments).map(([k, v]) => [`#${k}`, String(v)])),
    names: parsed.map((c) => c?.name ?? ''),
    G,
  };
}

export function officialSampleCounts(record: AppBenchRecord, reply: string): OfficialCounts {
  const out = record.output;
  const { ua, names: goldNames, G } = officialGold(record);
  const { apps: rawApps, apis: predCalls } = splitOfficialReply(reply);
  const predApps = rawApps.filter((a) => a.length > 0);
  const goldApps = out.used_app;
  const app = officialMatch(predApps, goldApps);

  const predParsed = predCalls.map((c) => extractNameParams(c));
  const predNames = predParsed.map((c) => c?.name ?? '');
  const api = officialMatch(predNames, goldNames);

  // Dicts keyed by API name: repeated calls collapse to the last one (first position kept).
  // The argument parse drops backslashes first; without any, the parse above is the same.
  const P = new Map<string, Map<string, string>>();
  predCalls.forEach((call, i) => {
    const parsed = call.includes('\\') ? extractNameParams(call.replace(/\\/g, '')) : predParsed[i];
    if (parsed) P.set(parsed.name, parsed.args);
  });

  const c: OfficialCounts = {
    predApps: predApps.length,
    goldApps: goldApps.length,
    appEM: app.em,
    appHit: app.hit,
    predApis: predNames.length,
    goldApis: goldNames.length,
    apiEM: api.em,
    apiHit: api.hit,
    predArgs: 0,
    goldArgs: 0,
    argHit: 0,
    predDep: 0,
    goldDep: 0,
    depHit: 0,
    unitApiEM: 0,
    goldApiUnits: G.size,
    complete: 0,
    keyMissing: 0,
    depKeyMissing: 0,
    valueMissing: 0,
    depValueMissing: 0,
  };
  for (const args of P.values()) {
    c.predArgs += args.size;
    for (const v of args.values()) if (!hasQuote(v)) c.predDep++;
  }
  for (const args of G.values()) c.goldArgs += args.size;

  const past: Array<[string, string]> = [];
  for (const [name, gArgs] of G) {
    const pArgs = P.get(name);
    if (!pArgs) continue;
    let hit = 0;
    let depHit = 0;
    let depLen = 0;
    for (const [k, gRaw] of gArgs) {
      const dep = !hasQuote(gRaw);
      if (dep) depLen++;
      if (!pArgs.has(k)) {
        c.keyMissing++;
        if (dep) c.depKeyMissing++;
        continue;
      }
      const g = gRaw.toLowerCase();
      let p = (pArgs.get(k) ?? '').toLowerCase();
      const pastValue = past.find(([pk]) => pk === k)?.[1];
      const corrected = OFFICIAL_CORRECTION_MAP[pyStripChars(p, "'")];
      if (corrected !== undefined) p = `'${corrected}'`;
      if (officialSame(g, p)) {
        past.push([k, p]);
        hit++;
        if (dep) depHit++;
        continue;
      }
      const uaValue = ua.get(k);
      if (uaValue !== undefined && officialSame(uaValue.toLowerCase(), p)) {
        past.push([k, p]);
        hit++;
        if (dep) {
          depHit++;
          c.predDep++;
        }
        continue;
      }
      if (pastValue !== undefined && officialSame(pastValue, p)) {
        hit++;
        if (dep) {
          depHit++;
          c.predDep++;
        }
        continue;
      }
      c.valueMissing++;
      if (dep) c.depValueMissing++;
    }
    c.argHit += hit;
    c.depHit += depHit;
    c.goldDep += depLen;
    if (hit === gArgs.size) c.unitApiEM++;
  }
  if (c.appEM === 1 && c.apiEM === 1 && c.unitApiEM === G.size) c.complete = 1;
  return c;
}

/** The official metrics, as fractions (the paper prints them ×100). */
export interface OfficialMetrics {
  /** Samples scored (the official code drops samples whose generation raised). */
  n: number;
  appF1: number;
  apiF1: number;
  argF1: number;
  /** `complete_match`, the paper's Succ. */
  success: number;
  depArgF1: number;
  nonDepArgF1: number;
  /** Paper appendix: Σ appEM / n and Σ apiEM / n. */
  appEM: number;
  apiEM: number;
  /** Metrics where Python would raise ZeroDivisionError; reported here as 0. */
  undefinedMetrics: string[];
}

export const OFFICIAL_COUNT_KEYS = Object.keys(OfficialCountsSchema.shape) as Array<keyof OfficialCounts>;

function sumOfficialCounts(list: readonly OfficialCounts[]): OfficialCounts {
  return sumCounts(list, OFFICIAL_COUNT_KEYS);
}

/** `compute_f1_direct`. */
export function f1(p: number, r: number): number {
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

/** Pools per-sample counts into the official metrics (docs/appbench.md, "Final metrics"), zero guards exactly as upstream. */
export function officialMetrics(list: readonly OfficialCounts[]): OfficialMetrics {
  return officialMetricsOf(sumOfficialCounts(list), list.length);
}

/** The official metrics of `n` samples whose counts sum to `t`. */
export function officialMetricsOf(t: OfficialCounts, n: number): OfficialMetrics {
  const undefinedMetrics: string[] = [];
  const div = (a: number, b: number, metric: string): number => {
    if (b !== 0) return a / b;
    if (!undefinedMetrics.includes(metric)) undefinedMetrics.push(metric);
    return 0;
  };
  const appF1 = f1(div(t.appHit, t.predApps, 'appF1'), div(t.appHit, t.goldApps, 'appF1'));
  const apiF1 = f1(div(t.apiHit, t.predApis, 'apiF1'), div(t.apiHit, t.goldApis, 'apiF1'));
  const argF1 = t.predArgs !== 0 ? f1(t.argHit / t.predArgs, div(t.argHit, t.goldArgs, 'argF1')) : f1(0, 0);
  const depArgF1 = f1(t.predDep !== 0 ? t.depHit / t.predDep : 1, t.goldDep !== 0 ? t.depHit / t.goldDep : 1);
  const nd = t.argHit - t.depHit;
  const ndPred = t.predArgs - t.predDep;
  const ndGold = t.goldArgs - t.goldDep;
  const nonDepArgF1 = f1(
    ndPred !== 0 ? nd / ndPred : 1,
    t.goldDep !== 0 ? div(nd, ndGold, 'nonDepArgF1') : 1,
  );
  return {
    n,
    appF1,
    apiF1,
    argF1,
    success: div(t.complete, n, 'success'),
    depArgF1,
    nonDepArgF1,
    appEM: n ? t.appEM / n : 0,
    apiEM: n ? t.apiEM / n : 0,
    undefinedMetrics,
  };
}
