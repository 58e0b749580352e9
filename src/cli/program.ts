import { Command } from 'commander';
import { registerAppsCommands } from './commands/apps.js';
import { registerAskCommand } from './commands/ask.js';
import { registerCatalogCommands } from './commands/catalog.js';
import { registerDataCommands } from './commands/data.js';
import { registerEvalCommands } from './commands/eval.js';
import { registerGtaCommands } from './commands/gta.js';
import { registerMcpCommands } from './commands/mcp.js';
import { registerPlanCommands } from './commands/plan.js';
import { registerReportCommands } from './commands/report.js';
import { registerRetrieveCommands } from './commands/retrieve.js';
import { registerRunCommands } from './commands/run.js';
import { registerScoreCommands } from './commands/score.js';
import { registerSftCommands } from './commands/sft.js';
import { registerShortcutsCommands } from './commands/shortcuts.js';
import { registerTasksCommands } from './commands/tasks.js';
import { registerToolsCommands } from './commands/tools.js';
import { registerViewCommand } from './commands/view.js';
import { registerWorkerCommands } from './commands/worker.js';

/**
 * Builds the `apiary` command tree. Each domain registers its commands from its own file in
 * `cli/commands/`; this list is the only place that knows them all.
 */
export function buildProgram(): Command {
  const program = new Command('apiary')
    .description('Catalogs, plan graphs, safe execution and benchmark scoring for tool-using LLM agents')
    .version('0.1.0')
    .option('--debug', 'print stack traces on errors')
    .showHelpAfterError()
    // commander's own usage errors in the one format (`error [USAGE] …`); subcommands inherit this
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'error [USAGE] ')) })
    .exitOverride();
  registerCatalogCommands(program);
  registerPlanCommands(program);
  registerTasksCommands(program);
  registerEvalCommands(program);
  registerReportCommands(program);
  registerRunCommands(program);
  registerAppsCommands(program);
  registerSftCommands(program);
  registerScoreCommands(program);
  registerDataCommands(program);
  registerRetrieveCommands(program);
  registerAskCommand(program);
  registerMcpCommands(program);
  registerShortcutsCommands(program);
  registerToolsCommands(program);
  registerGtaCommands(program);
  registerViewCommand(program);
  registerWorkerCommands(program);
  return program;
}
