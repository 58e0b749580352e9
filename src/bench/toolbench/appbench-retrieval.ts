import type { Api, Catalog } from '../../catalog/index.js';
import { ApiaryError } from '../../shared/index.js';
import type { AppBenchSample } from '../appbench/index.js';
import type { RetrievalQuery } from './dataset.js';

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

/**
 * AppBench as a retrieval task: the instruction is the query, its gold APIs (used_app[i] +
 * the key of used_api[i], deduplicated) are the relevant documents among the catalog's APIs.
 */
export function appBenchRetrievalQueries(
  samples: readonly AppBenchSample[],
  catalog: Catalog,
): RetrievalQuery[] {
  const index = new Map(catalog.apis.map((a, i) => [`${a.app}.${a.name}`, i]));
  return samples.map((s) => {
    const relevant: number[] = [];
    s.record.output.used_api.forEach((call, i) => {
      const app = s.record.output.used_app[i];
      for (const name of Object.keys(call)) {
        const doc = index.get(`${app}.${name}`);
        if (doc === undefined)
          throw new ApiaryError(
            'INPUT_INVALID',
            `AppBench sample ${s.id}: gold API ${app}.${name} is not in the ${catalog.name} catalog`,
          );
        if (!relevant.includes(doc)) relevant.push(doc);
      }
    });
    return { id: s.id, text: s.record.input, relevant };
  });
}
