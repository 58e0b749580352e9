import type { BenchmarkPlugin } from '../../plugins/index.js';
import { shortcutsCatalogSource } from './catalog.js';

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
    },
  ],
  catalogs: [shortcutsCatalogSource],
};
