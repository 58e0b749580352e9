import type { Api, App, Catalog, ParamType } from '../catalog/index.js';
import { pyRepr } from '../shared/index.js';

/**
 * The Python-style type word the planning prompt lists a parameter with (as AppBench's App
 * classes do): str, int, float, bool, date, time.
 */
export function pythonTypeWord(type: ParamType): string {
  if (type.kind === 'enum' && type.values.every((v) => /^\d+$/.test(v.value))) return 'int';
  if (type.kind !== 'primitive') return 'str';
  switch (type.name) {
    case 'integer':
      return 'int';
    case 'number':
      return 'float';
    case 'boolean':
      return 'bool';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    default:
      return 'str';
  }
}

function describe(description: string | undefined, type: ParamType): string {
  const base = description ?? '';
  if (type.kind !== 'enum') return base;
  return `${base} (possible values: ${type.values.map((v) => v.value).join(', ')})`;
}

/** The description dict of one API as the official App classes hold it. */
function apiDescDict(api: Api): Record<string, unknown> {
  const args = (required: boolean) =>
    Object.fromEntries(
      api.parameters
        .filter((p) => p.required === required)
        .map((p) => [`${p.name} (${pythonTypeWord(p.type)})`, describe(p.description, p.type)]),
    );
  return {
    desc: api.description,
    is_transactional: api.transactional,
    additional_required_arguments: args(true),
    optional_arguments: args(false),
    // results: descriptions only (the possible values are listed once, with the arguments)
    result_arguments: Object.fromEntries(
      api.outputs.map((o) => [`${o.name} (${pythonTypeWord(o.type)})`, o.description ?? '']),
    ),
  };
}

/** The description dict of one App: `desc`, `base_required_arguments` (always `{}`) and `APIs`. */
function appDescDict(app: App, catalog: Catalog): Record<string, unknown> {
  return {
    desc: app.description,
    base_required_arguments: {},
    APIs: Object.fromEntries(
      catalog.apis.filter((a) => a.app === app.id).map((a) => [a.name, apiDescDict(a)]),
    ),
  };
}

function pickApps(catalog: Catalog, apps?: readonly string[]): App[] {
  if (!apps) return catalog.apps;
  const wanted = new Set(apps);
  return catalog.apps.filter((a) => wanted.has(a.id) || wanted.has(a.name));
}

/**
 * App-only list for App selection (docs/appbench.md, "Prompts and sampling"): `"<App>: <desc> \n\n "` per App in
 * catalog order (= `Mobile.app_list` for the AppBench catalog).
 */
export function renderAppList(catalog: Catalog, apps?: readonly string[]): string {
  return pickApps(catalog, apps)
    .map((a) => `${a.name}: ${a.description} \n\n `)
    .join('');
}

/** Rendered App+API lists per catalog and App selection (catalogs are not mutated once loaded). */
const appApiListCache = new WeakMap<Catalog, Map<string, string>>();

/** App+API list: `"<App>: <Python repr of its desc dict> \n\n "` per App, in catalog order. */
export function renderAppApiList(catalog: Catalog, apps?: readonly string[]): string {
  let byApps = appApiListCache.get(catalog);
  if (!byApps) {
    byApps = new Map();
    appApiListCache.set(catalog, byApps);
  }
  const key = apps ? apps.join('\u0000') : '\u0001all';
  let text = byApps.get(key);
  if (text === undefined) {
    text = pickApps(catalog, apps)
      .map((a) => `${a.name}: ${pyRepr(appDescDict(a, catalog))} \n\n `)
      .join('');
    byApps.set(key, text);
  }
  return text;
}
