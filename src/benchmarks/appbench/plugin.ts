import type { BenchmarkPlugin } from '../../plugins/index.js';
import { appBenchCatalogSource } from './catalog.js';
import { appBenchEvalFlags } from './eval-flags.js';
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
      dataFolder: 'appbench',
      help: { data: 'test_*.json or dev_*.json', category: 'AppBench category' },
      evalFlags: appBenchEvalFlags,
    },
  ],
  commands: [
    {
      name: 'apps',
      usage: '',
      description: 'simulated apps backed by a database of Schema-Guided Dialogue results',
      after: 'run',
      register: async () => (await import('./cli-apps.js')).registerAppsCommands,
    },
  ],
  scorers: [
    {
      task: 'appbench',
      help: {
        summary: 'official and corrected',
        predictions: '{id, reply}',
        data: 'test_*.json or dev_*.json, default: pulled data',
        mode: 'official | corrected | both',
      },
      load: async () => (await import('./cli-score.js')).scoreAppBenchPredictions,
    },
  ],
  downloads: [
    {
      name: 'appbench',
      // APPBENCH_CATEGORIES.map(appBenchFileName) (checked in cli-hooks.test.ts)
      files: ['test_ss.json', 'test_sm.json', 'test_ms.json', 'test_mm.json'],
      load: async () => (await import('./cli-data.js')).pullAppBenchCommand,
    },
  ],
  dataBuilds: [
    {
      name: 'appbench',
      description:
        'AppBench records (test_{ss,sm,ms,mm}.json) from Schema-Guided Dialogue dialogues: planning paths from the API calls, instructions by a model (MetaBench Table 6/7 prompts) or templated',
      load: async () => (await import('./build/cli-build.js')).registerAppBenchBuild,
    },
  ],
  apps: {
    catalogs: ['appbench', 'sgd'],
    label: 'SGD database',
    // SGD's dialogues are set in 2019; AppBench's prompts say today is APPBENCH_CURRENT_DATE (a test checks they agree)
    currentDate: '2019-03-01',
    load: async () => (await import('./cli-apps-runtime.js')).sgdApps,
  },
  planFormats: [
    {
      name: 'MetaBench call-list text',
      example: 'MetaBench text lines "App: [out = api(#k=\'v\')]"',
      load: async () => ({ print: (await import('../../plan/index.js')).printPlanText }),
    },
  ],
  goldPlans: {
    name: 'appbench',
    label: 'AppBench',
    catalog: 'appbench',
    files: 'test_{ss,sm,ms,mm}.json or dev_*.json (or its parent with appbench/)',
    // the keys of APPBENCH_SFT_STYLES (sft-source.ts), the agents' prompt first
    styles: ['appbench', 'compact'],
    load: async () => (await import('./cli-gold-plans.js')).appBenchGoldPlans,
  },
  retrieval: [
    {
      name: 'appbench',
      label: 'AppBench',
      defaultOf: ['query'],
      data: 'AppBench files',
      load: async () => (await import('./cli-retrieve.js')).appBenchRetrieval,
    },
  ],
  report: async () => (await import('./report.js')).appBenchReport,
  // small synchronous loaders, imported with the manifest: `loadCatalog` stays synchronous
  catalogs: [appBenchCatalogSource, sgdCatalogSource],
};
