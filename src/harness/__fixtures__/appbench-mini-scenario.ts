import { expect } from 'vitest';
import type { AppBenchReport } from '../../benchmarks/appbench/index.js';

/*
 * Shared by src/benchmarks/appbench/task.test.ts (in-process agent) and src/cli/commands/eval.test.ts
 * (built CLI against the scripted HTTP server). Data: examples/appbench-mini (our own records).
 */

/**
 * The scripted scenario shared with the end-to-end CLI test (src/cli/commands/eval.test.ts):
 * gold replies for ss-0, sm-0, sm-1, ms-1, mm-1; a wrong value and a missing argument for ss-1;
 * only the first call for ms-0; no reply at all (an error) for mm-0.
 */
export const WRONG_SS1 = "Restaurants: [restaurant_name = findrestaurants(#category='Italian', #location='Oakland')]";

/** Hand-computed from docs/appbench.md, "Official scoring" (official) and score-corrected.ts (corrected); see the comments. */
export function expectScenarioReport(report: AppBenchReport): void {
  expect(report.total).toBe(8);
  expect(report.scoredOfficial).toBe(7); // mm-0 failed: dropped by the official scorer
  expect(report.failedIds).toEqual(['mm-0']);
  const o = report.official;
  // Apps: pred 1+2+2+2+3 (gold replies) + 1 (ss-1) + 1 (ms-0) = 12, gold 13, hits 1 per sample = 7
  expect(o.appF1).toBeCloseTo(14 / 25, 12);
  expect(o.apiF1).toBeCloseTo(14 / 25, 12);
  // Args: pred 32+2+3 = 37, gold 32+3+5 = 40, hits 32+1+3 = 36
  expect(o.argF1).toBeCloseTo(72 / 77, 12);
  // Dependent: 4 (sm-0) + 3 (sm-1) + 3 (mm-1) on every side
  expect(o.depArgF1).toBe(1);
  // Non-dependent: hits 26, pred 27, gold 30
  expect(o.nonDepArgF1).toBeCloseTo(52 / 57, 12);
  expect(o.success).toBeCloseTo(5 / 7, 12);
  expect(o.appEM).toBeCloseTo(6 / 7, 12);
  expect(o.apiEM).toBeCloseTo(6 / 7, 12);
  const c = report.corrected;
  // Calls: pred 12, gold 16 (mm-0 counts as an empty prediction), app/API hits 12
  expect(c.appF1).toBeCloseTo(24 / 28, 12);
  expect(c.apiF1).toBeCloseTo(24 / 28, 12);
  // Args: pred 37, gold 50, hits 36; dependent 10/10/14; independent 26/27/36
  expect(c.argF1).toBeCloseTo(72 / 87, 12);
  expect(c.depArgF1).toBeCloseTo(20 / 24, 12);
  expect(c.indepArgF1).toBeCloseTo(52 / 63, 12);
  expect(c.success).toBeCloseTo(5 / 8, 12);
  expect(c.appEM).toBeCloseTo(6 / 8, 12);
  expect(report.byCategory.map((g) => [g.group, g.total, g.official.n, g.official.success, g.corrected.success])).toEqual([
    ['ss', 2, 2, 0.5, 0.5],
    ['sm', 2, 2, 1, 1],
    ['ms', 2, 2, 0.5, 0.5],
    ['mm', 2, 1, 1, 0.5],
  ]);
}

