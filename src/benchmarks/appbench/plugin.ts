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
      options: [
        {
          flags: '--sgd <dir>',
          description: 'an SGD release: a folder with train/, dev/, test/ dialogues_*.json (or one split)',
        },
        {
          flags: '--out <dir>',
          description: 'folder for test_{ss,sm,ms,mm}.json, manifest.json and the build state',
        },
        {
          flags: '--model <id>',
          description: 'model that writes (Table 6) and scores (Table 7) the instructions (or $APIARY_MODEL)',
        },
        { flags: '--base-url <url>', description: 'OpenAI-compatible endpoint (or $APIARY_BASE_URL)' },
        { flags: '--api-key-env <name>', description: 'environment variable holding the API key' },
        { flags: '--limit <n>', description: 'at most N records per category' },
        {
          flags: '--seed <n>',
          description: 'seed of the dialogue order and of the MS compositions (default 0)',
        },
        {
          flags: '--threshold <x>',
          description: 'keep a record whose Table 7 score is at least X, 1–10 (default 7)',
        },
        {
          flags: '--refs <rule>',
          description: 'when an argument becomes a reference: value | name (default value)',
        },
        {
          flags: '--repeats <rule>',
          description: 'what a repeated API keeps: all | last of its calls (default all)',
        },
        { flags: '--json', description: 'print the report as JSON' },
      ],
      load: async () => (await import('./build/cli-build.js')).buildAppBench,
    },
    {
      name: 'plans',
      description:
        "AppBench-format records (test_{ss,sm,ms,mm}.json) from executable multi-call plans sampled over any catalog: a later call takes an earlier call's output; instructions by a model, else templated",
      requiredOptions: [
        { flags: '--out <dir>', description: 'folder for test_*.json and build.manifest.json' },
      ],
      options: [
        {
          flags: '-c, --catalog <name|file>',
          description:
            'catalog whose apps the plans call (a plugin catalog with simulated apps, or a catalog file, e.g. imported from OpenAPI)',
        },
        {
          flags: '--servers <config.json>',
          description: 'plan over the tools of MCP servers instead ({"mcpServers": …})',
        },
        { flags: '--data <dir>', description: 'benchmark data folder for the catalog' },
        {
          flags: '--db <file>',
          description: 'simulated-app database (default: the built one, else the bundled subset)',
        },
        {
          flags: '--values <file>',
          description:
            'JSON: argument values the user may give, by "app.api.param", "api.param" or "param" → list',
        },
        { flags: '--limit <n>', description: 'plans per category (ss, sm, ms, mm) at most (default 20)' },
        { flags: '--max-calls <n>', description: 'calls per plan at most (default 3)' },
        {
          flags: '--attempts <n>',
          description: 'plans tried per category before giving up (default 50 × --limit)',
        },
        {
          flags: '--approve <mode>',
          description:
            'transactional calls while sampling: auto | deny (default deny: such APIs are left out)',
        },
        {
          flags: '--grant <apps>',
          description: 'comma-separated app ids the plans may call (default: every app)',
        },
        {
          flags: '--model <id>',
          description: 'model writing the instructions (or $APIARY_MODEL); none: templated instructions',
        },
        {
          flags: '--base-url <url>',
          description: 'OpenAI-compatible endpoint ending in /v1 (or $APIARY_BASE_URL)',
        },
        { flags: '--api-key-env <name>', description: 'environment variable holding the API key' },
        {
          flags: '--retries <n>',
          description: 'instruction attempts after the first while a user value is missing (default 2)',
        },
        { flags: '--seed <n>', description: 'seed of the sampling and the model calls (default 0)' },
        { flags: '--overwrite', description: 'write into an --out folder that already holds test_*.json' },
      ],
      load: async () => (await import('./cli-build-plans.js')).buildPlans,
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
