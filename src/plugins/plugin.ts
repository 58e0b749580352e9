import type { Command } from 'commander';
import type { CatalogSource } from '../catalog/index.js';
import type { TaskDefinition } from '../tasks/index.js';

/**
 * A benchmark plugs into the core through one value: a `BenchmarkPlugin`. It is a light manifest:
 * names and descriptions are plain data, and everything heavy (a task's data loading and scoring,
 * a CLI command, a report section) sits behind a `load()` that imports its module only when it is
 * used, so `apiary --help` does not load every benchmark the CLI knows. (Catalog sources are the
 * exception: small synchronous loaders, so `loadCatalog` stays synchronous.)
 *
 * Built-in benchmarks live in src/benchmarks/<name>/ and are listed once, in src/benchmarks/builtin.ts;
 * a user's own benchmark is one module exporting a plugin, registered with `registerPlugin` or
 * `apiary eval --plugin FILE`. The core never imports a benchmark: it asks the plugin registry.
 */
export interface BenchmarkPlugin {
  /** Lower-case name, e.g. `appbench`; also the subpath `apiary/<name>` of a built-in plugin. */
  readonly name: string;
  readonly description: string;
  /** The tasks `apiary eval <task>` runs. */
  readonly tasks?: readonly PluginTask[];
  /**
   * Catalogs `loadCatalog(name)` knows without a file; registering the plugin registers them. A
   * source loads synchronously, so a manifest may import its (small) catalog module statically.
   */
  readonly catalogs?: readonly CatalogSource[];
  /** Top-level CLI commands the benchmark adds (`apiary shortcuts …`). */
  readonly commands?: readonly PluginCommand[];
}

/** One task of a plugin: its name (for lists and help) and how to load its definition. */
export interface PluginTask {
  readonly name: string;
  readonly description: string;
  load(): Promise<TaskDefinition>;
}

/** One top-level CLI command of a plugin, registered only when it runs (see src/cli/program.ts). */
export interface PluginCommand {
  readonly name: string;
  /** What follows the name in the root help: `[options]` when it has options, then its arguments. */
  readonly usage: string;
  readonly description: string;
  register(): Promise<(program: Command) => void>;
}
