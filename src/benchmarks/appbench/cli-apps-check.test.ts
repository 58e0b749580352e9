import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../cli/__fixtures__/run-cli-in-process.js';

/* Issue 13 item 10: `apiary apps check` executes every gold plan and lints the gold. */

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

describe('apiary apps check', { timeout: 60_000 }, () => {
  it('lists each rejection and lint finding, counts them, and exits 1 when a gold plan is rejected', async () => {
    // three hand-made records: one clean, one with an undeclared argument and a literal the
    // instruction never states, one referencing an output no earlier call returns
    const r = await apiary('apps', 'check', '--data', 'src/cli/commands/__fixtures__/gold-check');
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      'test_ss#1 rejected s1.food_style: unknown-argument: Restaurants.findrestaurants has no parameter "food_style" (has: category, location, price_range, has_seating_outdoors, has_vegetarian_options)',
      "test_ss#1 unsourced-literal s1 Restaurants.findrestaurants.category: 'Italian' is neither in the instruction nor in an earlier result",
      `test_ss#2 dangling-ref s2: getweather.city: no earlier call returns "town"; used_api value 'Novato'`,
      "test_ss#2 unsourced-literal s2 Weather.getweather.date: '2019-03-13' is neither in the instruction nor in an earlier result",
      '2/3 gold plans complete (ss 2/3) on bundled subset (run `apiary apps build-db` for all of SGD)',
      'executor: 1 rejection(s), 0 search(es) with no row, 0 failed call(s)',
      'gold lint: 1 reference(s) to outputs no earlier call returns, 2 literal(s) in neither the instruction nor an earlier result',
      '',
    ]);
  });

  it('--json: the counts per kind; searches with no row are findings, not failures (exit 0)', async () => {
    const r = await apiary('apps', 'check', '--data', 'examples/appbench-mini', '--json');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect([report.total, report.completed]).toEqual([8, 1]);
    expect(report.counts).toEqual({
      rejected: 0,
      'no-row': 9,
      failed: 0,
      'dangling-ref': 0,
      'unsourced-literal': 0,
    });
  });
});
