/** AppBench's four categories: single/multiple App × single/multiple API (`test_ss.json` …). */
export const APPBENCH_CATEGORIES = ['ss', 'sm', 'ms', 'mm'] as const;
export type AppBenchCategory = (typeof APPBENCH_CATEGORIES)[number];
