import type { BenchmarkPlugin } from '../../plugins/index.js';
import { gtaCatalogSource } from './catalog.js';
import { gtaEvalFlags } from './eval-flags.js';

/** GTA: a ReAct agent over 14 executable tools, step-by-step and end-to-end metrics */
export const gtaPlugin: BenchmarkPlugin = {
  name: 'gta',
  description: 'GTA: a ReAct agent over 14 executable tools, step-by-step and end-to-end metrics',
  tasks: [
    {
      name: 'gta',
      description: 'GTA: multimodal queries over 14 real tools; step-by-step or end to end',
      load: async () => (await import('./register.js')).gtaDefinition,
      dataFolder: 'gta',
      help: { data: 'dataset.json + image/' },
      evalFlags: gtaEvalFlags,
    },
  ],
  commands: [
    {
      name: 'gta',
      usage: '',
      description: 'GTA runs as files for other tools',
      after: 'tools',
      register: async () => (await import('./cli.js')).registerGtaCommands,
    },
  ],
  scorers: [
    {
      task: 'gta',
      help: { data: 'the dataset folder', mode: 'step | e2e' },
      options: [
        {
          flags: '--embeddings-base-url <url>',
          description: 'gta: embeddings endpoint for subjective answers and ImgGen',
        },
        {
          flags: '--embeddings-model <id>',
          description: 'gta: the embeddings model (GTA uses all-mpnet-base-v2)',
        },
      ],
      load: async () => (await import('./cli-score.js')).scoreGtaPredictions,
    },
  ],
  downloads: [
    {
      name: 'gta',
      // GTA_ARCHIVE and GTA_DATASET_RELEASE of pull-gta.ts (cli-hooks.test.ts checks)
      files: ['gta_dataset.zip'],
      url: 'where to download gta_dataset.zip from (default: the official v0.1.0 release)',
      load: async () => (await import('./cli-data.js')).pullGtaCommand,
    },
  ],
  toolsets: [
    {
      catalog: 'gta',
      label: 'GTA',
      catalogFile: 'gta/toolmeta.json',
      examples: ['OCR', 'Calculator', 'DrawBox', 'AddText'],
      load: async () => (await import('./cli-tools.js')).gtaToolset,
    },
  ],
  report: async () => (await import('./report.js')).gtaReport,
  catalogs: [gtaCatalogSource],
};
