import type { CatalogSource } from '../catalog/index.js';
import type { TaskDefinition, TaskLoadContext } from '../tasks/index.js';
import type {
  PluginApps,
  PluginCommand,
  PluginDataBuild,
  PluginDownload,
  PluginGoldPlans,
  PluginPlanFormat,
  PluginRetrieval,
  PluginScorer,
  PluginToolset,
} from './cli-hooks.js';
import type { PluginReport } from './report.js';

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
  /** Scorers of saved predictions, per task: `apiary score <task>`. */
  readonly scorers?: readonly PluginScorer[];
  /** Data `apiary data pull <name>` fetches from its official source. */
  readonly downloads?: readonly PluginDownload[];
  /** Data `apiary data build <name>` makes from sources of the user's own. */
  readonly dataBuilds?: readonly PluginDataBuild[];
  /** Executable tools: `apiary tools`, and `--catalog` of `apiary ask` and `apiary mcp serve`. */
  readonly toolsets?: readonly PluginToolset[];
  /** Simulated apps `apiary run`, `ask` and `mcp serve` execute catalogs against. */
  readonly apps?: PluginApps;
  /** Plan text formats (`apiary plan`, `apiary run`). */
  readonly planFormats?: readonly PluginPlanFormat[];
  /** Gold plans: `apiary sft build --source`, `apiary ask --demos`. */
  readonly goldPlans?: PluginGoldPlans;
  /** Datasets and catalogs of `apiary retrieve`. */
  readonly retrieval?: readonly PluginRetrieval[];
  /**
   * Words the help of core commands adds for this benchmark, by command (`eval`: a sentence added
   * to its description); plain text, shown in the root help without loading anything.
   */
  readonly help?: Readonly<Partial<Record<CoreHelpSlot, string>>>;
  /** Its tasks' HTML report sections, published numbers and viewer hints (src/plugins/report.ts). */
  readonly report?: () => Promise<PluginReport>;
}

/** The core commands whose help a plugin adds words to. */
export type CoreHelpSlot = 'eval';

/** One task of a plugin: its name (for lists and help) and how to load its definition. */
export interface PluginTask {
  readonly name: string;
  readonly description: string;
  load(): Promise<TaskDefinition>;
  /**
   * Where this task's data sits under one data root laid out as the repository's shared data
   * folder (`apiary eval all --data ROOT`): a sub-folder, or '' for the root itself (the default).
   */
  readonly dataFolder?: string;
  /** Help of `apiary eval`: what `--data` holds for this task, what `--limit` counts per (its category). */
  readonly help?: { readonly data?: string; readonly category?: string };
  /** Flags `apiary eval` accepts for this task only (and refuses for every other task). */
  readonly evalFlags?: TaskEvalFlags;
}

/** A flag of `apiary eval` that one task declares, with its help text as the CLI shows it. */
export interface TaskEvalFlag {
  /** Commander's syntax: `--levels <list>`, `--dry`, `--cache [dir]`. */
  readonly flags: string;
  readonly description: string;
  /** The error when the flag is given for another task (`task`: that task's name). */
  notForTask(flag: string, task: string): string;
  /**
   * `apiary eval all`: `refuse` (it names one task's settings), `own` (passed to this task only),
   * absent: passed to every task (which refuses it unless it is its own).
   */
  readonly inEvalAll?: 'refuse' | 'own';
}

/** What a task's own flags set for the run; merged under `--option key=value`. */
export interface TaskFlagSettings {
  taskOptions?: Record<string, unknown>;
  /** Solver options, used only when the chosen solver has them and a model is configured. */
  solverOptions?: Record<string, unknown>;
  /** The solver a model run uses when `--solver` is not given. */
  solverWithModel?: string;
  /** The tools' settings (`TaskLoadContext.tools`), JSON: they cross threads and queues. */
  tools?: TaskLoadContext['tools'];
}

/** The flags of one task and how they turn into its settings. */
export interface TaskEvalFlags {
  readonly flags: readonly TaskEvalFlag[];
  /**
   * Called for every run of the task, with the flags given (commander's camelCase keys; only these
   * flags, only those given). Bad values are USAGE errors naming the flag.
   */
  settings(given: Readonly<Record<string, unknown>>): TaskFlagSettings;
}
