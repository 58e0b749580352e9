import type { BenchmarkPlugin } from '../../plugins/index.js';
import { appBenchCatalogSource } from './catalog.js';
import { sgdCatalogSource } from './sgd-catalog.js';

/** AppBench / MetaBench: plans of API calls over many apps, scored as the official code does */
export const appBenchPlugin: BenchmarkPlugin = {
  name: 'appbench',
  description: 'AppBench / MetaBench: plans of API calls over many apps, scored as the official code does',
  tasks: [
    {
      name: 'appbench',
      description:
        'AppBench / MetaBench planning: one plan of App API calls per instruction, scored official + corrected',
      load: async () => (await import('./register.js')).appBenchDefinition,
    },
  ],
  // small synchronous loaders, imported with the manifest: `loadCatalog` stays synchronous
  catalogs: [appBenchCatalogSource, sgdCatalogSource],
};
