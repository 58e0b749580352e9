import type { Api, Catalog } from '../catalog/index.js';

/**
 * Retrieval text of a catalog API: app name and description, API name and description, and the
 * parameter names (snake_case words split by the tokenizer).
 */
export function apiRetrievalText(api: Api, catalog: Catalog): string {
  const app = catalog.apps.find((a) => a.id === api.app);
  const params = api.parameters.map((p) => (p.description ? `${p.name} (${p.description})` : p.name));
  return [api.app, app?.description ?? '', api.name, api.description, params.join(', ')]
    .filter(Boolean)
    .join('. ');
}
