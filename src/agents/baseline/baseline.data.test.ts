import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { loadCatalog } from '../../catalog/index.js';
import { parsePlanText, validatePlan } from '../../plan/index.js';
import { baselineAgent } from './baseline-agent.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

/**
 * The baseline over the 200 AppBench dev records (../shared/data): every reply parses and
 * validates against the catalog, and API-name F1 (multiset, pooled) stays at the level measured
 * when the rules were written (docs/baseline.md). The official/corrected scores come from
 * `apiary eval appbench` without a model.
 */
const DATA = resolve(process.cwd(), '../shared/data/appbench');

interface DevRecord {
  input: string;
  output: { api_results: string[] };
}

function goldApis(record: DevRecord): string[] {
  return record.output.api_results.map((s) => /=\s*(\w+)\(/.exec(s)?.[1]?.toLowerCase() ?? '');
}

describe('baseline agent on AppBench dev', () => {
  it('produces plans without validation issues (other than missing arguments) with API-name F1 ≥ 0.74', async () => {
    const catalog = loadCatalog('appbench');
    const agent = baselineAgent();
    let tp = 0;
    let predicted = 0;
    let gold = 0;
    let exact = 0;
    let n = 0;
    for (const cat of ['ss', 'sm', 'ms', 'mm']) {
      const records = JSON.parse(readFileSync(resolve(DATA, `dev_${cat}.json`), 'utf8')) as DevRecord[];
      for (const record of records) {
        const { reply } = await agent.plan(
          { instruction: record.input, currentDate: '2019-03-01' },
          { catalog },
        );
        const { plan } = parsePlanText(reply, { source: `${cat}` });
        // the baseline leaves out what it cannot find (missing-argument); nothing else may be wrong
        const issues = validatePlan(plan, catalog).filter((i) => i.code !== 'missing-argument');
        expect(issues, `${cat}: ${record.input}\n${reply}`).toEqual([]);
        const pred = plan.steps.map((s) => s.api);
        const g = goldApis(record);
        const left = [...g];
        for (const api of pred) {
          const at = left.indexOf(api);
          if (at >= 0) {
            tp++;
            left.splice(at, 1);
          }
        }
        predicted += pred.length;
        gold += g.length;
        if ([...pred].sort().join() === [...g].sort().join()) exact++;
        n++;
      }
    }
    const p = tp / predicted;
    const r = tp / gold;
    const f1 = (2 * p * r) / (p + r);
    console.log(
      `baseline dev: n=${n} API P=${(100 * p).toFixed(2)} R=${(100 * r).toFixed(2)} F1=${(100 * f1).toFixed(2)} exact=${((100 * exact) / n).toFixed(2)}%`,
    );
    expect(n).toBe(200);
    expect(f1).toBeGreaterThanOrEqual(0.74);
  });
});
