import { type CatalogSourceRegistry, defaultCatalogSources } from '../catalog/index.js';
import { ApiaryError } from '../shared/index.js';
import type { TaskRegistry } from '../tasks/index.js';
import type { BenchmarkPlugin } from './plugin.js';

const PLUGIN_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** Plugins by name: what the CLI, `loadCatalog` and the harness ask instead of importing a benchmark. */
export class PluginRegistry {
  private readonly plugins = new Map<string, BenchmarkPlugin>();
  /** The module each plugin was imported from, when known: a worker thread imports it again. */
  private readonly modules = new Map<string, string>();

  /** `catalogs`: where the plugins' catalog sources go (default: the ones `loadCatalog` consults). */
  constructor(private readonly catalogs: CatalogSourceRegistry = defaultCatalogSources) {}

  /**
   * Adds a plugin and registers its catalog sources; registering the same value again does nothing,
   * another one of that name is refused. `module`: the ES module (file URL or path) that exports it,
   * so a worker thread can import it.
   */
  register(plugin: BenchmarkPlugin, options: { module?: string } = {}): void {
    if (!PLUGIN_NAME.test(plugin.name))
      throw new ApiaryError(
        'USAGE',
        `invalid plugin name "${plugin.name}" (lower-case letters, digits, dashes)`,
      );
    const known = this.plugins.get(plugin.name);
    if (known && known !== plugin)
      throw new ApiaryError('USAGE', `plugin "${plugin.name}" is already registered`);
    if (!known) this.catalogs.registerAll(plugin.catalogs ?? []);
    this.plugins.set(plugin.name, plugin);
    if (options.module !== undefined && !this.modules.has(plugin.name))
      this.modules.set(plugin.name, options.module);
  }

  /** The module a plugin was registered from (undefined: registered in code, not from a module). */
  moduleOf(pluginName: string): string | undefined {
    return this.modules.get(pluginName);
  }

  /** The plugin that declares the task `taskName`, if any. */
  pluginOfTask(taskName: string): BenchmarkPlugin | undefined {
    return this.list().find((p) => p.tasks?.some((t) => t.name === taskName));
  }

  list(): BenchmarkPlugin[] {
    return [...this.plugins.values()];
  }

  /** Loads the definition of every plugin task not yet in `registry` and registers it there. */
  async loadTasks(into?: TaskRegistry): Promise<TaskRegistry> {
    // imported here: the CLI registers plugins on every start, `apiary --help` included
    const registry = into ?? (await import('../tasks/index.js')).defaultTaskRegistry;
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
