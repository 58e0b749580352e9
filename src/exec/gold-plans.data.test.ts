import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSgdApps, listSideEffects } from '../benchmarks/appbench/apps/sgd-apps.js';
import {
  buildSgdDatabase,
  findSgdDialogueFiles,
  readSgdDialogueFiles,
  type SqliteDatabase,
} from '../benchmarks/appbench/apps/sgd-database.js';
import { appBenchGoldPlan, readAppBenchFile } from '../benchmarks/appbench/index.js';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { indexCatalog, loadCatalog } from '../catalog/index.js';
import { autoApprove } from './approval.js';
import { type ExecutionResult, executePlan } from './execute-plan.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

/**
 * Executes every gold plan of the AppBench dev files against the simulated SGD apps (a database
 * built from all SGD dialogues of ../shared/data) and explains each run that does not complete.
 */
const data = resolve(process.cwd(), '../shared/data');
const catalog = loadCatalog('appbench');
const index = indexCatalog(catalog);
let db: SqliteDatabase;

beforeAll(() => {
  db = new Database(':memory:');
  buildSgdDatabase(readSgdDialogueFiles(findSgdDialogueFiles(data)), db);
});

type Cause = 'gold-plan-invalid' | 'search-no-row' | 'other';

/** Why a run did not complete: the root cause, not the dependents that then could not run. */
function explain(res: ExecutionResult): { cause: Cause; detail: string } {
  if (res.status === 'refused')
    return {
      cause: 'gold-plan-invalid',
      detail: res.issues.map((i) => `${i.step}: ${i.code}: ${i.message}`).join('; '),
    };
  const empty = res.steps.filter(
    (s) => s.status === 'succeeded' && Array.isArray(s.result) && !s.result.length,
  );
  const failed = res.steps.filter((s) => s.status !== 'succeeded');
  const onlyDependents = failed.every(
    (s) =>
      (s.error?.code === 'DEPENDENCY_FAILED' && empty.some((e) => s.error!.message.includes(`${e.id} (`))) ||
      s.error?.message.includes('but step'),
  );
  if (empty.length && onlyDependents)
    return {
      cause: 'search-no-row',
      detail: `${empty.map((e) => `${e.app}.${e.api}(${JSON.stringify(e.args)})`).join(', ')} matches no SGD row; not run: ${failed.map((s) => s.id).join(', ')}`,
    };
  return {
    cause: 'other',
    detail: failed.map((s) => `${s.id} ${s.app}.${s.api}: ${s.error?.code}: ${s.error?.message}`).join('; '),
  };
}

describe('AppBench dev gold plans on the simulated SGD apps', () => {
  it('runs every gold plan; the ones that do not complete are explained', async () => {
    const handlers = createSgdApps({ db, catalog });
    const byCause: Record<Cause, string[]> = { 'gold-plan-invalid': [], 'search-no-row': [], other: [] };
    const perCategory: Record<string, string> = {};
    let total = 0;
    let completed = 0;
    let transactionalApproved = 0;
    for (const cat of ['ss', 'sm', 'ms', 'mm']) {
      const records = readAppBenchFile(resolve(data, `appbench/dev_${cat}.json`));
      let ok = 0;
      for (const [i, record] of records.entries()) {
        total++;
        const { plan } = appBenchGoldPlan(record, catalog, `dev_${cat}#${i}`);
        const res = await executePlan(plan, {
          catalog,
          handlers,
          approve: (r) => {
            transactionalApproved++;
            return autoApprove(r);
          },
          retries: 0,
        });
        if (res.status === 'succeeded') {
          ok++;
          continue;
        }
        const { cause, detail } = explain(res);
        byCause[cause].push(`dev_${cat}#${i}: ${detail}`);
      }
      completed += ok;
      perCategory[cat] = `${ok}/${records.length}`;
    }
    console.log(
      `${completed}/${total} gold plans completed (${((100 * completed) / total).toFixed(1)}%) ${JSON.stringify(perCategory)}\n` +
        Object.entries(byCause)
          .map(([c, l]) => `${c} (${l.length}):\n  ${l.join('\n  ')}`)
          .join('\n'),
    );
    // Every failure has an explained cause: values absent from SGD data or a defect of the gold plan.
    expect(byCause.other).toEqual([]);
    // Measured with the SGD apps of 2026-11-24 (exact replay of recorded calls, echo of the asked
    // dates, times and numbers when no recorded row has them, arguments derived from every SGD
    // version and the result slots): 198/200. Fewer is a regression.
    expect(total).toBe(200);
    expect(completed).toBe(198);
    expect(perCategory).toEqual({ ss: '50/50', sm: '50/50', ms: '50/50', mm: '48/50' });
    expect(byCause['gold-plan-invalid']).toEqual([]);
    // No car-rental row for these cities exists in the available SGD dialogues.
    expect(byCause['search-no-row'].map((l) => l.split(':')[0])).toEqual(['dev_mm#6', 'dev_mm#42']);
    // Every side effect was approved first: the executor also treats as transactional what the
    // SGD apps know to change state (buyeventtickets/playmovie, non-transactional in AppBench).
    const effects = listSideEffects(db);
    expect(effects.length).toBe(transactionalApproved);
    const needApproval = effects.filter((e) => index.api(e.app, e.api)?.transactional);
    console.log(
      `side effects: ${effects.length} (${needApproval.length} of catalog-transactional APIs, ${transactionalApproved} approvals)`,
    );
  });
});
