import type { Catalog } from '../../catalog/index.js';
import { indexCatalog } from '../../catalog/index.js';
import { type Plan, parsePlanText } from '../../plan/index.js';
import type { AppBenchRecord } from './record.js';

/** A change the loader made to turn noisy gold data into a valid plan (reported, never silent). */
export interface GoldRepair {
  step: string;
  kind: 'app-inferred' | 'dangling-ref-to-literal';
  detail: string;
}

export interface GoldPlan {
  plan: Plan;
  repairs: GoldRepair[];
}

/**
 * Builds the gold plan of a record from `api_results` (call strings) and `used_app`.
 *
 * Two upstream data defects are repaired and reported: when `used_app` and `api_results`
 * differ in length (MM record #10) each call's app is inferred from its API name; a
 * dependency on an output no earlier call returns (3 of the 50 MM dev records) becomes the
 * literal that `used_api` records for it.
 */
export function appBenchGoldPlan(record: AppBenchRecord, catalog: Catalog, source = '<record>'): GoldPlan {
  const out = record.output;
  const index = indexCatalog(catalog);
  const repairs: GoldRepair[] = [];
  const aligned = out.used_app.length === out.api_results.length;
  const appOf = (api: string, i: number): string | undefined => {
    if (aligned) return out.used_app[i];
    const owners = index.appsWithApi(api);
    const app = owners.find((a) => out.used_app.includes(a)) ?? owners[0];
    repairs.push({ step: `s${i + 1}`, kind: 'app-inferred', detail: `app of ${api} inferred as ${app}` });
    return app;
  };
  const { plan } = parsePlanText(out.api_results.join('\n'), { source, appOf });
  plan.steps.forEach((step, i) => {
    for (const [name, value] of Object.entries(step.args)) {
      if (value.kind !== 'ref' || value.step !== null) continue;
      const used = aligned ? out.used_api[i]?.[step.api]?.[name] : undefined;
      if (used === undefined) continue; // left dangling: validation reports it
      step.args[name] = { kind: 'literal', value: String(used) };
      repairs.push({
        step: step.id,
        kind: 'dangling-ref-to-literal',
        detail: `${step.api}.${name}: no earlier call returns "${value.output}"; used_api value '${String(used)}'`,
      });
    }
  });
  return { plan, repairs };
}
