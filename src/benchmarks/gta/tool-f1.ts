import { type PyJson, pyGet } from '../../shared/index.js';
import { GTA_TOOL_CATEGORIES } from './catalog.js';

/**
 * End-to-end tool-selection F1 per category (docs/gta.md, "Official scoring:
 * end-to-end metrics"): predicted counts
 * include duplicates and failed calls, hits are counted per gold call, `+1e-5` smoothing.
 */

export const GTA_CATEGORIES = ['perception', 'operation', 'logic', 'creativity'] as const;
export type GtaCategory = (typeof GTA_CATEGORIES)[number];

export function gtaCategory(tool: string): GtaCategory | 'none' {
  return Object.hasOwn(GTA_TOOL_CATEGORIES, tool) ? GTA_TOOL_CATEGORIES[tool]! : 'none';
}

function callNames(steps: readonly PyJson[]): string[] {
  return steps.flatMap((s) => {
    const calls = pyGet(s, 'tool_calls');
    if (calls === undefined) return [];
    const name = Array.isArray(calls) ? pyGet(pyGet(calls[0], 'function'), 'name') : undefined;
    return [typeof name === 'string' ? name : ''];
  });
}

export interface GtaCategoryF1 {
  predicted: number;
  gold: number;
  hit: number;
  /** 100 × F1. */
  f1: number;
}

/** Per-category F1 over records of (predicted steps, gold messages after the query). */
export function gtaToolF1(
  records: ReadonlyArray<{ predictions: readonly PyJson[]; golds: readonly PyJson[] }>,
): Record<GtaCategory, GtaCategoryF1> {
  const out = Object.fromEntries(
    GTA_CATEGORIES.map((c) => [c, { predicted: 0, gold: 0, hit: 0, f1: 0 }]),
  ) as Record<GtaCategory, GtaCategoryF1>;
  for (const r of records) {
    const predNames = callNames(r.predictions);
    for (const n of predNames) {
      const c = gtaCategory(n);
      if (c !== 'none') out[c].predicted++;
    }
    for (const g of callNames(r.golds)) {
      const c = gtaCategory(g);
      if (c === 'none') continue;
      out[c].gold++;
      if (predNames.includes(g)) out[c].hit++;
    }
  }
  for (const c of GTA_CATEGORIES) {
    const s = out[c];
    if (s.gold === 0) continue;
    const p = s.hit / (s.predicted + 1e-5);
    const r = s.hit / s.gold;
    s.f1 = ((2 * p * r) / (p + r + 1e-5)) * 100; // Python's order of operations, to the last bit
  }
  return out;
}
