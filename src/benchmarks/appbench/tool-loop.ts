import { catalogToolset, type Toolset } from '../../agents/index.js';
import type { AppHandler } from '../../apps/index.js';
import { type Catalog, indexCatalog } from '../../catalog/index.js';
import { type ApprovalHandler, appRegistry, autoApprove, executePlan } from '../../exec/index.js';
import { createSgdApps } from './apps/sgd-apps.js';
import type { SqliteDatabase } from './apps/sgd-database.js';
import { appBenchGoldPlan } from './gold-plan.js';
import type { AppBenchSample } from './sample.js';
import { type GoldState, goldStateOf } from './score-state.js';
import type { GoldStateProvider } from './task.js';

export interface AppBenchWorld {
  /** The tools a tool-loop agent gets: every AppBench API, run by `dispatchCall` on the simulated apps. */
  toolset: (catalog: Catalog) => Toolset;
  /** The gold plan of a sample executed on the same apps (cached per sample). */
  goldState: GoldStateProvider;
  handlers: readonly AppHandler[];
}

/**
 * The simulated world of an AppBench tool-loop run: SGD-backed apps (each under its own owner), the
 * agent's toolset bound to them, and the gold state its effects are compared with. In an eval run
 * transactional calls are approved automatically (`approve`), and recorded: the state score counts
 * any side effect the gold does not have as unauthorised.
 */
export function appBenchWorld(opts: {
  catalog: Catalog;
  db: SqliteDatabase;
  approve?: ApprovalHandler;
}): AppBenchWorld {
  const { catalog } = opts;
  const index = indexCatalog(catalog);
  const handlers = createSgdApps({ db: opts.db, catalog });
  const apps = appRegistry(handlers);
  const approve = opts.approve ?? autoApprove;
  const byApp = new Map(handlers.map((h) => [h.appId, h]));
  const isTransactional = (app: string, api: string) =>
    index.api(app, api)?.transactional === true || byApp.get(app)?.hasSideEffects?.(api) === true;
  const cache = new Map<string, Promise<GoldState>>();
  const goldState: GoldStateProvider = (sample: AppBenchSample) => {
    let hit = cache.get(sample.id);
    if (!hit) {
      hit = (async () => {
        try {
          const { plan } = appBenchGoldPlan(sample.record, catalog, sample.id);
          const run = await executePlan(plan, { catalog: index, handlers, approve: autoApprove, retries: 0 });
          return goldStateOf(run, isTransactional);
        } catch {
          return { executed: false, effects: [], searches: [] };
        }
      })();
      cache.set(sample.id, hit);
    }
    return hit;
  };
  return {
    handlers,
    goldState,
    toolset: (c) => catalogToolset(c.apis, { catalog: indexCatalog(c), apps, approve }),
  };
}
