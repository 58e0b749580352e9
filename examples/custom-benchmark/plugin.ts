/**
 * A benchmark of your own, registered from outside the package: this module's default export is
 * the plugin. Run it with
 *
 *   apiary eval unit-convert --plugin examples/custom-benchmark/plugin.ts
 *
 * or from code with `evaluate({ task: 'unit-convert', plugins: ['examples/custom-benchmark/plugin.ts'] })`.
 * The manifest stays light: the task itself (data, tool, scorer) loads only when a run asks for it.
 * (Inside this repository we import the sources; an installed package imports 'apiary/plugins'.)
 */
import type { BenchmarkPlugin } from '../../src/plugins/index.js';

const plugin: BenchmarkPlugin = {
  name: 'unit-convert',
  description: 'Unit conversion questions answered with a conversion tool (an example plugin)',
  tasks: [
    {
      name: 'unit-convert',
      description: 'convert lengths and masses with the Units tool; exact-answer accuracy',
      load: async () => (await import('./task.js')).unitConvertTask,
    },
  ],
};

export default plugin;
