import type { Command } from 'commander';

/**
 * Every top-level `apiary` command: what the root help shows of it, and how to load the file that
 * registers it. The file is imported only when its command runs (or its help is asked for), so
 * `apiary --help` and `apiary catalog list` do not pay for the model, viewer or MCP stacks.
 * `usage` and `description` repeat what the command's register function declares; program.test.ts
 * compares the two, so a change in one shows there.
 */
export interface CommandEntry {
  name: string;
  /** What follows the name in the root help: `[options]` when it has options, then its arguments. */
  usage: string;
  description: string;
  register(): Promise<(program: Command) => void>;
}

/**
 * Issue 25, until src/cli/program.ts registers them at start: the built-in benchmarks, registered
 * before a command that runs or lists tasks loads (their light manifests only).
 */
const withBuiltinPlugins =
  <T>(load: () => Promise<T>) =>
  async (): Promise<T> => {
    (await import('../benchmarks/builtin.js')).registerBuiltinPlugins();
    return load();
  };

export const COMMAND_LIST: readonly CommandEntry[] = [
  {
    name: 'catalog',
    usage: '',
    description: 'inspect and export API catalogs',
    register: async () => (await import('./commands/catalog.js')).registerCatalogCommands,
  },
  {
    name: 'plan',
    usage: '',
    description: 'validate and inspect plan graphs (JSON or MetaBench call-list text)',
    register: async () => (await import('./commands/plan.js')).registerPlanCommands,
  },
  {
    name: 'tasks',
    usage: '[options]',
    description: 'list the registered tasks: options, solvers and solver options (for apiary eval)',
    register: withBuiltinPlugins(async () => (await import('./commands/tasks.js')).registerTasksCommands),
  },
  {
    name: 'eval',
    usage: '[options] <task>',
    description:
      'run a registered task end to end (resumable JSONL results); `apiary tasks` lists tasks, ' +
      'solvers and options. Without a model a task runs its no-model solver (a no-LLM baseline)',
    register: withBuiltinPlugins(async () => (await import('./commands/eval.js')).registerEvalCommands),
  },
  {
    name: 'report',
    usage: '[options] <runs...>',
    description:
      'recompute and print the summary of a run of any task from its results.jsonl; with --html, one ' +
      'self-contained HTML report over one or more runs (tables, charts, published numbers, comparison)',
    register: withBuiltinPlugins(async () => (await import('./commands/report.js')).registerReportCommands),
  },
  {
    name: 'run',
    usage: '[options] <plan>',
    description:
      'execute a plan against the simulated apps (SGD database): parallel, permission-checked, traced',
    register: async () => (await import('./commands/run.js')).registerRunCommands,
  },
  {
    name: 'apps',
    usage: '',
    description: 'simulated apps backed by a database of Schema-Guided Dialogue results',
    register: async () => (await import('../benchmarks/appbench/cli-apps.js')).registerAppsCommands,
  },
  {
    name: 'sft',
    usage: '',
    description: 'fine-tuning (SFT) data from gold plans',
    register: async () => (await import('./commands/sft.js')).registerSftCommands,
  },
  {
    name: 'score',
    usage: '[options] <task>',
    description: 're-score saved predictions without calling a model (appbench: official and corrected)',
    register: withBuiltinPlugins(async () => (await import('./commands/score.js')).registerScoreCommands),
  },
  {
    name: 'data',
    usage: '',
    description: 'fetch benchmark data from its official source',
    register: async () => (await import('./commands/data.js')).registerDataCommands,
  },
  {
    name: 'retrieve',
    usage: '',
    description: 'API retrieval: evaluate retrievers on ToolBench/AppBench, train one, query a catalog',
    register: async () => (await import('./commands/retrieve.js')).registerRetrieveCommands,
  },
  {
    name: 'ask',
    usage: '[options] <request>',
    description:
      'do something with a catalog: retrieve its APIs, run the tool loop against its executable apps, ' +
      'print the answer (TPTU-v2 end to end)',
    register: async () => (await import('./commands/ask.js')).registerAskCommand,
  },
  {
    name: 'mcp',
    usage: '',
    description: 'Model Context Protocol: serve catalogs to MCP clients',
    register: async () => (await import('./commands/mcp.js')).registerMcpCommands,
  },
  {
    name: 'shortcuts',
    usage: '',
    description: 'import Apple Shortcuts files (.shortcut/.plist, unsigned): show, to-plan, dataset',
    register: async () => (await import('../benchmarks/shortcutsbench/cli.js')).registerShortcutsCommands,
  },
  {
    name: 'tools',
    usage: '',
    description: "GTA's executable tools: list them, call one by hand",
    register: async () => (await import('./commands/tools.js')).registerToolsCommands,
  },
  {
    name: 'gta',
    usage: '',
    description: 'GTA runs as files for other tools',
    register: async () => (await import('../benchmarks/gta/cli.js')).registerGtaCommands,
  },
  {
    name: 'view',
    usage: '[options] <run>',
    description: "browse a run's samples and traces in a local web viewer (filters by score and error)",
    register: withBuiltinPlugins(async () => (await import('./commands/view.js')).registerViewCommand),
  },
  {
    name: 'worker',
    usage: '[options]',
    description:
      'solve and score the samples of distributed evals (`apiary eval <task> --queue URL`) from a ' +
      'Redis server; run any number, on any machines',
    register: withBuiltinPlugins(async () => (await import('./commands/worker.js')).registerWorkerCommands),
  },
];
