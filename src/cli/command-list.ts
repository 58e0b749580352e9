import type { Command } from 'commander';
import type { BenchmarkPlugin } from '../plugins/index.js';
import {
  evalDescription,
  planDescription,
  retrieveDescription,
  runDescription,
  scoreDescription,
  toolsDescription,
} from './plugin-help.js';

/**
 * Every top-level `apiary` command: what the root help shows of it, and how to load the file that
 * registers it. The file is imported only when its command runs (or its help is asked for), so
 * `apiary --help` and `apiary catalog list` do not pay for the model, viewer or MCP stacks.
 * `usage` and `description` repeat what the command's register function declares; program.test.ts
 * compares the two, so a change in one shows there. A plugin's own commands (`BenchmarkPlugin.commands`)
 * are entries of the same shape.
 */
export interface CommandEntry {
  name: string;
  /** What follows the name in the root help: `[options]` when it has options, then its arguments. */
  usage: string;
  description: string;
  /** The command it follows in the root help (plugin commands; default: at the end). */
  after?: string;
  register(): Promise<(program: Command) => void>;
}

/** The core's own commands; descriptions that mention what plugins add are composed from `plugins`. */
export function coreCommands(plugins: readonly BenchmarkPlugin[]): CommandEntry[] {
  return [
    {
      name: 'catalog',
      usage: '',
      description: 'inspect and export API catalogs',
      register: async () => (await import('./commands/catalog.js')).registerCatalogCommands,
    },
    {
      name: 'plan',
      usage: '',
      description: planDescription(plugins),
      register: async () => (await import('./commands/plan.js')).registerPlanCommands,
    },
    {
      name: 'tasks',
      usage: '[options]',
      description: 'list the registered tasks: options, solvers and solver options (for apiary eval)',
      register: async () => (await import('./commands/tasks.js')).registerTasksCommands,
    },
    {
      name: 'eval',
      usage: '[options] <task>',
      description: evalDescription(plugins),
      register: async () => (await import('./commands/eval.js')).registerEvalCommands,
    },
    {
      name: 'report',
      usage: '[options] <runs...>',
      description:
        'recompute and print the summary of a run of any task from its results.jsonl; with --html, one ' +
        'self-contained HTML report over one or more runs (tables, charts, published numbers, comparison)',
      register: async () => (await import('./commands/report.js')).registerReportCommands,
    },
    {
      name: 'run',
      usage: '[options] <plan>',
      description: runDescription(plugins),
      register: async () => (await import('./commands/run.js')).registerRunCommands,
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
      description: scoreDescription(plugins),
      register: async () => (await import('./commands/score.js')).registerScoreCommands,
    },
    {
      name: 'data',
      usage: '',
      description: 'fetch benchmark data from its official source, or build it from your own (data build)',
      register: async () => (await import('./commands/data.js')).registerDataCommands,
    },
    {
      name: 'retrieve',
      usage: '',
      description: retrieveDescription(plugins),
      register: async () => (await import('./commands/retrieve.js')).retrieveCommands(plugins),
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
      name: 'model',
      usage: '',
      description: 'local models: serve a GGUF file as an OpenAI-compatible endpoint',
      register: async () => (await import('./commands/model.js')).registerModelCommands,
    },
    {
      name: 'tools',
      usage: '',
      description: toolsDescription(plugins),
      register: async () => (await import('./commands/tools.js')).registerToolsCommands,
    },
    {
      name: 'view',
      usage: '[options] <run>',
      description: "browse a run's samples and traces in a local web viewer (filters by score and error)",
      register: async () => (await import('./commands/view.js')).registerViewCommand,
    },
    {
      name: 'worker',
      usage: '[options]',
      description:
        'solve and score the samples of distributed evals (`apiary eval <task> --queue URL`) from a ' +
        'Redis server; run any number, on any machines',
      register: async () => (await import('./commands/worker.js')).registerWorkerCommands,
    },
  ];
}
