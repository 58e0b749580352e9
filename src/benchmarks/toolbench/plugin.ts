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
      // the task reads <root>/toolbench/ itself
      dataFolder: '',
      help: { data: 'the data root', category: 'ToolBench query file' },
    },
  ],
  retrieval: [
    {
      name: 'toolbench',
      label: 'ToolBench',
      defaultOf: ['eval', 'index'],
      data: 'toolbench/tools.jsonl + toolbench/queries/',
      files:
        'query files, comma-separated (default every file of <data>/toolbench/queries/, the G1 files first)',
      composesTools: true,
      load: async () => (await import('./cli-retrieve.js')).toolBenchRetrieval,
    },
  ],
  report: async () => (await import('./report.js')).toolBenchReport,
  catalogs: [toolBenchCatalogSource],
};
