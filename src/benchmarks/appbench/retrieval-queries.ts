import type { Catalog } from '../../catalog/index.js';
import type { RetrievalQuery } from '../../retrieval/index.js';
import { ApiaryError } from '../../shared/index.js';
import type { AppBenchSample } from './sample.js';

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
