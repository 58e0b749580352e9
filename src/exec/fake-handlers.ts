import type { AppCallContext, AppCallResult, AppHandler } from '../apps/index.js';
import { type Catalog, type CatalogIndex, indexCatalog } from '../catalog/index.js';
import { ApiaryError } from '../shared/index.js';
import { sleepFor } from './clock.js';

export interface RecordedCall {
  app: string;
  api: string;
  args: Record<string, unknown>;
  caller: string;
}

export interface FakeHandlerOptions {
  /** Simulated latency of every call in ms (default 0), or per call. */
  latencyMs?: number | ((app: string, api: string) => number);
  /**
   * What a call returns; default: one row holding every output the catalog declares for the
   * API, each the argument of that name when given, else `"<api>.<output>"`.
   */
  respond?: (
    app: string,
    api: string,
    args: Record<string, unknown>,
  ) => AppCallResult | Promise<AppCallResult>;
}

/**
 * In-memory handlers for every app of a catalog (tests and benchmarks): they record each call
 * they accept (on arrival), refuse a caller other than the app's owner, and honour the abort signal.
 */
export function fakeHandlers(
  catalog: Catalog | CatalogIndex,
  opts: FakeHandlerOptions = {},
): { handlers: AppHandler[]; calls: RecordedCall[] } {
  const index = 'apiById' in catalog ? catalog : indexCatalog(catalog);
  const calls: RecordedCall[] = [];
  const latency = opts.latencyMs ?? 0;
  const respond =
    opts.respond ??
    ((app: string, api: string, args: Record<string, unknown>): AppCallResult => {
      const row: Record<string, unknown> = {};
      for (const o of index.api(app, api)?.outputs ?? []) row[o.name] = args[o.name] ?? `${api}.${o.name}`;
      return [row];
    });
  const handlers = index.catalog.apps.map(
    (app): AppHandler => ({
      appId: app.id,
      owner: app.owner,
      async call(api: string, args: Record<string, unknown>, ctx: AppCallContext) {
        if (ctx.caller !== app.owner)
          throw new ApiaryError('PERMISSION_DENIED', `${app.id} refuses caller "${ctx.caller}"`);
        if (!index.api(app.id, api)) throw new ApiaryError('NOT_FOUND', `${app.id} has no API "${api}"`);
        calls.push({ app: app.id, api, args, caller: ctx.caller });
        const ms = typeof latency === 'function' ? latency(app.id, api) : latency;
        if (ms > 0) await sleepFor(ms, ctx.signal);
        return respond(app.id, api, args);
      },
    }),
  );
  return { handlers, calls };
}
