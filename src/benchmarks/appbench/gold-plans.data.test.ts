import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/index.js';
import { analyzePlan, parsePlanText, printPlanText, validatePlan } from '../../plan/index.js';
import { registerBuiltinPlugins } from '../builtin.js';
import { appBenchGoldPlan } from './gold-plan.js';
import { loadAppBenchSamples } from './sample.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const dir = resolve(process.cwd(), '../shared/data/appbench');
const catalog = loadCatalog('appbench', { dataDir: resolve(process.cwd(), '../shared/data') });
const samples = loadAppBenchSamples(dir, { prefix: 'dev' });

describe('AppBench dev gold plans', () => {
  it('loads 4 × 50 records', () => {
    expect(samples).toHaveLength(200);
  });

  it('every gold plan parses and validates', () => {
    const invalid: Record<string, string[]> = {};
    for (const s of samples) {
      const issues = validatePlan(appBenchGoldPlan(s.record, catalog).plan, catalog);
      if (issues.length) invalid[s.id] = issues.map((i) => `${i.step}.${i.field}: ${i.code}`);
    }
    // mm-16 calls findevents with #event_name, a result slot of Events_3.FindEvents, which the
    // catalog accepts as a filter since the arguments are derived from every SGD version and the
    // result slots (docs/catalogs.md); before, it was the one unknown argument.
    expect(invalid).toEqual({});
  });

  it('repairs are reported: 3 records with dangling dependencies, 1 with misaligned apps', () => {
    const repaired: Record<string, number> = {};
    for (const s of samples) {
      const { repairs } = appBenchGoldPlan(s.record, catalog);
      if (repairs.length) repaired[s.id] = repairs.length;
    }
    expect(repaired).toEqual({ 'mm-10': 7, 'mm-12': 3, 'mm-36': 6, 'mm-49': 5 });
  });

  it('prints and re-parses to an equal plan', () => {
    let equal = 0;
    for (const s of samples) {
      const { plan } = appBenchGoldPlan(s.record, catalog);
      if (isDeepStrictEqual(parsePlanText(printPlanText(plan)).plan, plan)) equal++;
    }
    expect(equal).toBe(200);
  });

  it('parallel/sequential scale matches hand-computed values', () => {
    const scale = (id: string) => {
      const a = analyzePlan(appBenchGoldPlan(samples.find((s) => s.id === id)!.record, catalog).plan);
      return [a.parallelScale, a.sequentialScale];
    };
    // Hand-checked against the records' api_results.
    expect(scale('ss-0')).toEqual([1, 1]);
    expect(scale('mm-0')).toEqual([1, 3]); // three chained calls
    expect(scale('mm-1')).toEqual([1, 2]); // one search feeding two calls
    // findmovies ×4 chained, then reserverestaurant(#location=location) takes the movies' location,
    // then two more chained reserverestaurant calls: one component, 7 calls deep.
    expect(scale('mm-10')).toEqual([1, 7]);
    expect(scale('mm-12')).toEqual([2, 2]); // flight (repaired to literals) ∥ findtrains → gettraintickets
  });
});
