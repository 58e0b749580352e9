import type { BenchmarkPlugin } from '../../plugins/index.js';
import { gtaCatalogSource } from './catalog.js';

/** GTA: a ReAct agent over 14 executable tools, step-by-step and end-to-end metrics */
export const gtaPlugin: BenchmarkPlugin = {
  name: 'gta',
  description: 'GTA: a ReAct agent over 14 executable tools, step-by-step and end-to-end metrics',
  tasks: [
    {
      name: 'gta',
      description: 'GTA: multimodal queries over 14 real tools; step-by-step or end to end',
      load: async () => (await import('./register.js')).gtaDefinition,
    },
  ],
  catalogs: [gtaCatalogSource],
};
