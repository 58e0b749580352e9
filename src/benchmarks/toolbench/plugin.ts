import type { BenchmarkPlugin } from '../../plugins/index.js';
import { toolBenchCatalogSource } from './catalog.js';

/** ToolBench: API retrieval over 46,802 APIs (NDCG, recall) */
export const toolBenchPlugin: BenchmarkPlugin = {
  name: 'toolbench',
  description: 'ToolBench: API retrieval over 46,802 APIs (NDCG, recall)',
  tasks: [
    {
      name: 'toolbench-retrieval',
      description: 'ToolBench API retrieval: rank all APIs per query; NDCG@1/3/5, Recall@5/10',
      load: async () => (await import('./retrieval-task.js')).toolBenchRetrievalDefinition,
    },
  ],
  catalogs: [toolBenchCatalogSource],
};
