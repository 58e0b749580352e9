import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BenchmarkPlugin, defaultPluginRegistry, type PluginRegistry } from '../plugins/index.js';
import { ApiaryError } from '../shared/index.js';

/**
 * A plugin module as `import()` takes it: a URL (`file:`, `data:`) or a package name
 * (`my-bench/plugin`) as it is, a path (relative to the working folder) as a file URL, so a worker
 * thread in another folder imports the same file.
 */
function pluginModuleUrl(spec: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(spec) && !/^[a-z]:[\\/]/i.test(spec)) return spec;
  const looksLikePath = spec.startsWith('.') || isAbsolute(spec) || /\.[cm]?[jt]s$/.test(spec);
  if (!looksLikePath && !existsSync(spec)) return spec;
  const path = isAbsolute(spec) ? spec : resolve(spec);
  if (!existsSync(path)) throw new ApiaryError('USAGE', `plugin module ${spec}: no such file (${path})`);
  return pathToFileURL(path).href;
}

/** A value shaped like a `BenchmarkPlugin` (name, description, and lists where it has them). */
function isPlugin(value: unknown): value is BenchmarkPlugin {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  const listOrAbsent = (v: unknown) => v === undefined || Array.isArray(v);
  return (
    typeof p.name === 'string' &&
    typeof p.description === 'string' &&
    listOrAbsent(p.tasks) &&
    listOrAbsent(p.catalogs) &&
    listOrAbsent(p.commands)
  );
}

/** The plugins a module exports: `default` or `plugin` (one), or `plugins` (a list); null if none. */
export function pluginsExportedBy(mod: Record<string, unknown>): BenchmarkPlugin[] | null {
  for (const key of ['default', 'plugin'] as const) if (isPlugin(mod[key])) return [mod[key]];
  const list = mod.plugins;
  if (Array.isArray(list) && list.length > 0 && list.every(isPlugin)) return list;
  return null;
}

/**
 * Imports a plugin module and registers what it exports (with its URL, so worker threads import it
 * again). A module that exports no plugin is a USAGE error naming the file.
 */
export async function importPluginModule(
  spec: string,
  registry: PluginRegistry = defaultPluginRegistry,
): Promise<BenchmarkPlugin[]> {
  const url = pluginModuleUrl(spec);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof ApiaryError) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new ApiaryError('USAGE', `plugin module ${spec} could not be imported: ${why}`, { cause: error });
  }
  const plugins = pluginsExportedBy(mod);
  if (!plugins)
    throw new ApiaryError(
      'USAGE',
      `plugin module ${spec} exports no plugin: export a BenchmarkPlugin ({ name, description, tasks }) as default or as \`plugin\``,
    );
  for (const plugin of plugins) registry.register(plugin, { module: url });
  return plugins;
}
