import { ApiaryError } from '../shared/index.js';
import type { Api, App, Catalog } from './schema.js';

/** Constant-time lookups over a catalog. Build once with `indexCatalog`; it is cached per catalog object. */
export interface CatalogIndex {
  readonly catalog: Catalog;
  app(id: string): App | undefined;
  /** The API named `name` owned by app `appId`. */
  api(appId: string, name: string): Api | undefined;
  apiById(id: string): Api | undefined;
  /** Every app that has an API called `name` (to explain "API not owned by the app"). */
  appsWithApi(name: string): string[];
  apisOf(appId: string): Api[];
}

const cache = new WeakMap<Catalog, CatalogIndex>();

/** Indexes a catalog; throws CATALOG_INVALID on duplicate ids or APIs of unknown apps. */
export function indexCatalog(catalog: Catalog): CatalogIndex {
  const cached = cache.get(catalog);
  if (cached) return cached;
  const apps = new Map<string, App>();
  for (const app of catalog.apps) {
    if (apps.has(app.id))
      throw new ApiaryError('CATALOG_INVALID', `${catalog.name}: duplicate app id "${app.id}"`);
    apps.set(app.id, app);
  }
  const byId = new Map<string, Api>();
  const byApp = new Map<string, Map<string, Api>>();
  const byName = new Map<string, string[]>();
  for (const api of catalog.apis) {
    if (byId.has(api.id))
      throw new ApiaryError('CATALOG_INVALID', `${catalog.name}: duplicate API id "${api.id}"`);
    if (!apps.has(api.app))
      throw new ApiaryError(
        'CATALOG_INVALID',
        `${catalog.name}: API "${api.id}" names unknown app "${api.app}"`,
      );
    byId.set(api.id, api);
    let own = byApp.get(api.app);
    if (!own) {
      own = new Map();
      byApp.set(api.app, own);
    }
    if (own.has(api.name))
      throw new ApiaryError(
        'CATALOG_INVALID',
        `${catalog.name}: app "${api.app}" has two APIs named "${api.name}"`,
      );
    own.set(api.name, api);
    const owners = byName.get(api.name);
    if (owners) owners.push(api.app);
    else byName.set(api.name, [api.app]);
  }
  const index: CatalogIndex = {
    catalog,
    app: (id) => apps.get(id),
    api: (appId, name) => byApp.get(appId)?.get(name),
    apiById: (id) => byId.get(id),
    appsWithApi: (name) => byName.get(name) ?? [],
    apisOf: (appId) => [...(byApp.get(appId)?.values() ?? [])],
  };
  cache.set(catalog, index);
  return index;
}
