import { describe, expect, it } from 'vitest';
import { validatePlan } from '../../plan/index.js';
import { busInAnotherVersion, sportsEvent } from './__fixtures__/hand-made.js';
import { appBenchCatalogSource } from './catalog.js';
import { literalSource } from './gold-check.js';
import { appBenchGoldPlan } from './gold-plan.js';

describe('gold plans written in another SGD version of the service', () => {
  const catalog = appBenchCatalogSource.load({}); // bundled data/sgd schemas

  it("are valid: any version's required set and every version's values are accepted", () => {
    // Before: missing-argument from_city and to_city; enum-value "Sports" is not one of 'Music', 'Theater'.
    expect(validatePlan(appBenchGoldPlan(busInAnotherVersion, catalog).plan, catalog)).toEqual([]);
    expect(validatePlan(appBenchGoldPlan(sportsEvent, catalog).plan, catalog)).toEqual([]);
  });

  it("a mix of two versions' required slots is still refused", () => {
    const mixed = structuredClone(busInAnotherVersion);
    mixed.output.api_results[0] = mixed.output.api_results[0]!.replace(
      "#origin='Philadelphia'",
      "#from_city='Philadelphia'",
    );
    expect(
      validatePlan(appBenchGoldPlan(mixed, catalog).plan, catalog).map((i) => `${i.code} ${i.field}`),
    ).toEqual(['missing-argument to_city']);
  });
});

describe('literalSource: where a gold literal comes from', () => {
  const say =
    'Book a table for two at 7:30 pm on March 7th at Sushi Zen, rated 4.6; the bus leaves next Friday';
  it('finds values the instruction states, in any of the usual spellings', () => {
    expect(literalSource('Sushi Zen', say, [])).toBe('instruction');
    expect(literalSource('2019-03-07', say, [])).toBe('instruction'); // March 7th
    expect(literalSource('19:30', say, [])).toBe('instruction'); // 7:30 pm
    expect(literalSource('2', say, [])).toBe('instruction'); // two
    expect(literalSource('4.60', say, [])).toBe('instruction'); // 4.6
    expect(literalSource('2019-03-08', say, [])).toBe('instruction (weekday)'); // Friday after 2019-03-01
    expect(literalSource('2019-03-02', 'leaving tomorrow', [])).toBe('instruction (relative date)');
    expect(literalSource('2019-03-14', 'leaving on the 14th', [])).toBe('instruction');
    expect(literalSource('True', say, [])).toBe('implied yes/no');
  });

  it('else an earlier result, else nothing', () => {
    expect(literalSource('Santa Fe Depot', say, ['santa fe depot'])).toBe('an earlier result');
    expect(literalSource('Music', 'Find me a drama event in New York', [])).toBeUndefined();
    expect(literalSource('2019-03-13', say, ['2019-03-12'])).toBeUndefined();
    expect(literalSource('18:00', say, [])).toBeUndefined();
    expect(literalSource('2019-03-22', 'next Friday', [])).toBeUndefined(); // three weeks on: not "next Friday"
  });
});
