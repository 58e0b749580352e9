/**
 * The plugin contract: how a benchmark (built in, or a user's own) adds tasks, catalogs and CLI
 * commands to the core without the core importing it. Subpath `apiary/plugins`.
 * @module
 */
export type { BenchmarkPlugin, PluginCommand, PluginTask } from './plugin.js';
export { defaultPluginRegistry, listPlugins, PluginRegistry, registerPlugin } from './registry.js';
