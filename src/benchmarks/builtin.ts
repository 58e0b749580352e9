import { defaultPluginRegistry, type PluginRegistry } from '../plugins/index.js';
import { appBenchPlugin } from './appbench/plugin.js';
import { gtaPlugin } from './gta/plugin.js';
import { shortcutsBenchPlugin } from './shortcutsbench/plugin.js';
import { toolBenchPlugin } from './toolbench/plugin.js';

/**
 * The one list of the benchmarks apiary ships with. Nothing outside src/benchmarks/ names a
 * benchmark: the CLI and the package root register these, everything else asks the registry.
 */
export const BUILTIN_PLUGINS = [appBenchPlugin, gtaPlugin, shortcutsBenchPlugin, toolBenchPlugin] as const;

/** This module as a plugin module (`plugins`: a list), for worker threads to import again. */
export const plugins = BUILTIN_PLUGINS;

/** Registers the built-in plugins (again: nothing happens). */
export function registerBuiltinPlugins(registry: PluginRegistry = defaultPluginRegistry): PluginRegistry {
  for (const plugin of BUILTIN_PLUGINS) registry.register(plugin, { module: import.meta.url });
  return registry;
}
