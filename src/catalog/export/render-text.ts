import type { Api, Catalog, Parameter, ParamType } from '../schema.js';

/**
 * Compact, deterministic text rendering of a catalog for prompts (format in docs/catalogs.md):
 *
 *   Rents: A leading global provider of car rental solutions
 *     getcarsavailable(city: str, start_date: date, car_type?: Hatchback|Sedan|SUV) -> car_type, car_name
 *       Discover cars available for rent in a certain location and period
 *     reservecar!(…)            ← "!" marks a transactional API
 *
 * Optional parameters carry `?`, `=value` shows a default; enums list their values.
 */
function renderType(type: ParamType): string {
  switch (type.kind) {
    case 'primitive':
      return type.name === 'string'
        ? 'str'
        : type.name === 'integer'
          ? 'int'
          : type.name === 'boolean'
            ? 'bool'
            : type.name;
    case 'enum':
      return type.values.length <= 12
        ? type.values.map((v) => v.value).join('|')
        : `${type.values
            .slice(0, 12)
            .map((v) => v.value)
            .join('|')}|…`;
    case 'array':
      return `${renderType(type.items)}[]`;
    case 'union':
      return `(${type.types.map(renderType).join(' or ')})`;
    case 'entity':
      return type.name;
  }
}

function renderParam(p: Parameter): string {
  const def =
    p.default === undefined
      ? ''
      : `=${typeof p.default === 'string' ? p.default : JSON.stringify(p.default)}`;
  return `${p.name}${p.required ? '' : '?'}: ${renderType(p.type)}${def}`;
}

export function renderApiText(api: Api, opts: { descriptions?: boolean } = {}): string {
  const outs = api.outputs.length ? ` -> ${api.outputs.map((o) => o.name).join(', ')}` : '';
  const head = `${api.name}${api.transactional ? '!' : ''}(${api.parameters.map(renderParam).join(', ')})${outs}`;
  const desc =
    opts.descriptions !== false && api.description
      ? `\n    ${api.description.replace(/\s+/g, ' ').trim()}`
      : '';
  return head + desc;
}

export interface RenderCatalogOptions {
  /** Only these app ids, in this order (default: all, catalog order). */
  apps?: readonly string[];
  /** Include API descriptions (default true). */
  descriptions?: boolean;
}

export function renderCatalogText(catalog: Catalog, opts: RenderCatalogOptions = {}): string {
  const appIds = opts.apps ?? catalog.apps.map((a) => a.id);
  const byApp = new Map<string, Api[]>();
  for (const api of catalog.apis) {
    const list = byApp.get(api.app);
    if (list) list.push(api);
    else byApp.set(api.app, [api]);
  }
  const blocks: string[] = [];
  for (const id of appIds) {
    const app = catalog.apps.find((a) => a.id === id);
    if (!app) continue;
    const apis = byApp.get(id) ?? [];
    const lines = [`${app.id}: ${app.description.replace(/\s+/g, ' ').trim()}`];
    for (const api of apis) lines.push(`  ${renderApiText(api, opts).replace(/\n/g, '\n  ')}`);
    blocks.push(lines.join('\n'));
  }
  return blocks.join('\n\n');
}
