import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/index.js';
import { registerBuiltinPlugins } from '../builtin.js';
import { appBenchGoldPlan } from './gold-plan.js';
import { APPBENCH_CATEGORIES } from './record.js';
import { formatAppBenchReport } from './report-format.js';
import { loadAppBenchSamples } from './sample.js';
import { scoreAppBenchSample, summarizeAppBench } from './score-appbench.js';
import { f1 } from './score-official.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const dataDir = resolve(process.cwd(), '../shared/data');
const appbenchDir = resolve(dataDir, 'appbench');

describe.skipIf(!existsSync(appbenchDir))('AppBench dev data: gold api_results replayed as replies', () => {
  const catalog = loadCatalog('appbench');
  const samples = loadAppBenchSamples(appbenchDir, { prefix: 'dev' });
  const golds = new Map(samples.map((s) => [s.id, appBenchGoldPlan(s.record, catalog)]));
  // `App: [<api_result>]` per line; the App of each line is the gold plan's (which infers it
  // where used_app is shorter than api_results, i.e. mm-10).
  const replyOf = (id: string) => {
    const s = samples.find((x) => x.id === id)!;
    const plan = golds.get(id)!.plan;
    return s.record.output.api_results.map((r, i) => `${plan.steps[i]!.app}: [${r}]`).join('\n');
  };
  const scores = samples.map((s) => scoreAppBenchSample(s, { id: s.id, reply: replyOf(s.id) }, catalog));
  const report = summarizeAppBench(scores);

  it('prints the report', () => {
    expect(samples.length).toBe(200);
    console.log(formatAppBenchReport(report));
  });

  it('official: the values the upstream evaluator gives, derived from the record counts', () => {
    for (const group of [undefined, ...APPBENCH_CATEGORIES]) {
      const sel = samples.filter((s) => !group || s.category === group);
      const got = group ? report.byCategory.find((g) => g.group === group)!.official : report.official;
      const n = sel.length;
      // One App hit and one API hit per sample (upstream cap); every predicted line has an App.
      const predApps = sel.reduce((a, s) => a + s.record.output.api_results.length, 0);
      const goldApps = sel.reduce((a, s) => a + s.record.output.used_app.length, 0);
      const apis = predApps;
      // Success and App EM fail exactly where used_app disagrees with the calls (mm-10: 5 vs 7).
      const aligned = sel.filter(
        (s) => s.record.output.used_app.length === s.record.output.api_results.length,
      ).length;
      const expected = {
        appF1: f1(n / predApps, n / goldApps),
        apiF1: f1(n / apis, n / apis),
        argF1: 1,
        depArgF1: 1,
        nonDepArgF1: 1,
        success: aligned / n,
        appEM: aligned / n,
        apiEM: 1,
      };
      console.log(
        `official ${group ?? 'all'}: ${Object.entries(expected)
          .map(([k, v]) => `${k}=${(v * 100).toFixed(2)}`)
          .join(' ')}`,
      );
      for (const [k, v] of Object.entries(expected))
        expect(got[k as keyof typeof expected], `${group ?? 'all'} ${k}`).toBeCloseTo(v, 12);
    }
    expect(report.official.success).toBeCloseTo(199 / 200, 12); // only mm-10 fails
  });

  it('corrected: 100 everywhere except gold calls that depend on outputs no earlier call returns', () => {
    // Exceptions: the gold loader turns such dangling references into the used_api literal, while
    // the replayed gold text still holds the (invalid) reference: one independent value error per repair.
    const dangling = (id: string) =>
      golds.get(id)!.repairs.filter((r) => r.kind === 'dangling-ref-to-literal').length;
    const exceptions = scores.filter((s) => s.corrected.success !== 1);
    for (const s of exceptions) {
      console.log(
        `corrected exception ${s.id}: ${dangling(s.id)} dangling gold reference(s) repaired to literals`,
      );
      expect(dangling(s.id)).toBeGreaterThan(0);
      expect(s.errors).toMatchObject({
        valueIndep: dangling(s.id),
        valueDep: 0,
        missingCalls: 0,
        extraCalls: 0,
      });
      expect(
        s.errors.keyMissingDep + s.errors.keyMissingIndep + s.errors.keyExtraDep + s.errors.keyExtraIndep,
      ).toBe(0);
    }
    expect(exceptions.map((s) => s.id)).toEqual(scores.filter((s) => dangling(s.id) > 0).map((s) => s.id));
    const rest = summarizeAppBench(scores.filter((s) => s.corrected.success === 1));
    const { n, formatErrorRate, ...metrics } = rest.corrected;
    expect(formatErrorRate).toBe(0);
    for (const [k, v] of Object.entries(metrics)) expect(v, k).toBe(1);
    // App/API F1 and EM are 100 on all 200 samples, exceptions included.
    expect(report.corrected).toMatchObject({ appF1: 1, apiF1: 1, appEM: 1, apiEM: 1 });
  });
});
