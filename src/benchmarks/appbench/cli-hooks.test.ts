import { describe, expect, it } from 'vitest';
import { APPBENCH_CATEGORIES, appBenchFileName } from './index.js';
import { appBenchPlugin } from './plugin.js';

describe("AppBench's plugin manifest", () => {
  it('lists the files `apiary data pull appbench` may pin (the light manifest repeats them)', () => {
    expect(appBenchPlugin.downloads?.[0]?.files).toEqual(APPBENCH_CATEGORIES.map(appBenchFileName));
  });
});
