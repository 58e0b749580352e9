/** AppBench's four categories: single/multiple App × single/multiple API (`test_ss.json` …). */
export const APPBENCH_CATEGORIES = ['ss', 'sm', 'ms', 'mm'] as const;
export type AppBenchCategory = (typeof APPBENCH_CATEGORIES)[number];

/** The released file of a category: `test_ss.json` … */
export const appBenchFileName = (category: AppBenchCategory) => `test_${category}.json`;

/**
 * The category of a plan from the App of each call, by the paper's definitions: one App or several ×
 * each App called once or some App more than once.
 */
export function appBenchCategory(apps: readonly string[]): AppBenchCategory {
  const perApp = new Map<string, number>();
  for (const a of apps) perApp.set(a, (perApp.get(a) ?? 0) + 1);
  const multiApp = perApp.size > 1;
  const multiApi = [...perApp.values()].some((n) => n > 1);
  if (!multiApp) return multiApi ? 'sm' : 'ss';
  return multiApi ? 'mm' : 'ms';
}
