import type { Api, Catalog } from '../catalog/index.js';
import type { FieldedCorpus } from './field-features.js';

/**
 * Retrieval text of a catalog API: app name and description, API name and description, and the
 * parameter names (snake_case words split by the tokenizer).
 */
function apiRetrievalText(api: Api, catalog: Catalog): string {
  const app = catalog.apps.find((a) => a.id === api.app);
  const params = api.parameters.map((p) => (p.description ? `${p.name} (${p.description})` : p.name));
  return [api.app, app?.description ?? '', api.name, api.description, params.join(', ')]
    .filter(Boolean)
    .join('. ');
}

/**
 * A catalog as a fielded corpus: one document per API (`apiRetrievalText`), grouped by app, with
 * API and app names and descriptions as separate fields (what the `ranked` retriever reads).
 */
export function catalogCorpus(catalog: Catalog): FieldedCorpus {
  const texts = catalog.apis.map((a) => apiRetrievalText(a, catalog));
  const apps = [...new Set(catalog.apis.map((a) => a.app))];
  const appOf = new Map(catalog.apps.map((a) => [a.id, a]));
  return {
    texts,
    names: catalog.apis.map((a) => a.name),
    descriptions: catalog.apis.map((a) => a.description),
    groups: {
      texts: apps.map((app) => texts.filter((_, i) => catalog.apis[i]?.app === app).join('. ')),
      names: apps.map((app) => appOf.get(app)?.name ?? app),
      descriptions: apps.map((app) => appOf.get(app)?.description ?? ''),
      groupOf: Uint32Array.from(catalog.apis.map((a) => apps.indexOf(a.app))),
    },
  };
}
