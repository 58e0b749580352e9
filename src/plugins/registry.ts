import { type CatalogSourceRegistry, defaultCatalogSources } from '../catalog/index.js';
import { ApiaryError } from '../shared/index.js';
import type { TaskRegistry } from '../tasks/index.js';
import type { BenchmarkPlugin } from './plugin.js';

const PLUGIN_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** Plugins by name: what the CLI, `loadCatalog` and the harness ask instead of importing a benchmark. */
export class PluginRegistry {
  private readonly plugins = new Map<string, BenchmarkPlugin>();

  /** `catalogs`: where the plugins' catalog sources go (default: the ones `loadCatalog` consults). */
  constructor(private readonly catalogs: CatalogSourceRegistry = defaultCatalogSources) {}

  /**
   * Adds a plugin and registers its catalog sources; registering the same value again does nothing,
   * another one of that name is refused.
   */
  register(plugin: BenchmarkPlugin): void {
    if (!PLUGIN_NAME.test(plugin.name))
      throw new ApiaryError(
        'USAGE',
        `invalid plugin name "${plugin.name}" (lower-case letters, digits, dashes)`,
      );
    const known = this.plugins.get(plugin.name);
    if (known === plugin) return;
    if (known) throw new ApiaryError('USAGE', `plugin "${plugin.name}" is already registered`);
    this.catalogs.registerAll(plugin.catalogs ?? []);
    this.plugins.set(plugin.name, plugin);
  }

  list(): BenchmarkPlugin[] {
    return [...this.plugins.values()];
  }

  /** Loads the definition of every plugin task not yet in `registry` and registers it there. */
  async loadTasks(registry?: TaskRegistry): Promise<TaskRegistry> {
    // imported here: registering plugins (`catalog list`) must not load the task domain
    registry ??= (await import('../tasks/index.js')).defaultTaskRegistry;
    for (const plugin of this.plugins.values())
      for (const task of plugin.tasks ?? [])
        if (!registry.has(task.name)) registry.register(await task.load());
    return registry;
  }
}

export const defaultPluginRegistry = new PluginRegistry();

export function registerPlugin(plugin: BenchmarkPlugin): void {
  defaultPluginRegistry.register(plugin);
}

export function listPlugins(): BenchmarkPlugin[] {
  return defaultPluginRegistry.list();
}
