import { describe, expect, it } from 'vitest';
import { APPBENCH_CATEGORIES, APPBENCH_CURRENT_DATE, appBenchFileName } from './index.js';
import { appBenchPlugin } from './plugin.js';

describe("AppBench's plugin manifest", () => {
  it('lists the files `apiary data pull appbench` may pin (the light manifest repeats them)', () => {
    expect(appBenchPlugin.downloads?.[0]?.files).toEqual(APPBENCH_CATEGORIES.map(appBenchFileName));
  });

  it("gives `apiary ask` the apps' date: the date AppBench's prompts give as today", () => {
    expect(appBenchPlugin.apps?.currentDate).toBe(APPBENCH_CURRENT_DATE);
    expect(APPBENCH_CURRENT_DATE).toBe('2019-03-01');
  });
});
