import type { BenchmarkPlugin } from '../../plugins/index.js';
import { shortcutsCatalogSource } from './catalog.js';
import { shortcutsEvalFlags } from './eval-flags.js';

/** ShortcutsBench: real Apple Shortcuts APIs, API selection, parameter filling and input recognition */
export const shortcutsBenchPlugin: BenchmarkPlugin = {
  name: 'shortcutsbench',
  description:
    'ShortcutsBench: real Apple Shortcuts APIs, API selection, parameter filling and input recognition',
  tasks: [
    {
      name: 'shortcuts',
      description: 'ShortcutsBench: teacher-forced API calls per gold action, scored official + corrected',
      load: async () => (await import('./register.js')).shortcutsDefinition,
      dataFolder: 'shortcutsbench',
      evalFlags: shortcutsEvalFlags,
    },
  ],
  commands: [
    {
      name: 'shortcuts',
      usage: '',
      description:
        'import Apple Shortcuts files (.shortcut/.plist, unsigned): show, to-plan, dataset, queries',
      after: 'mcp',
      register: async () => (await import('./cli.js')).registerShortcutsCommands,
    },
  ],
  scorers: [
    {
      task: 'shortcuts',
      help: {
        results: 'official result records (JSONL or a JSON array)',
        data: 'the official files',
        mode: 'official | corrected | both',
      },
      load: async () => (await import('./cli-score.js')).scoreShortcuts,
    },
  ],
  report: async () => (await import('./report.js')).shortcutsBenchReport,
  catalogs: [shortcutsCatalogSource],
};
