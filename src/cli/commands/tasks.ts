import type { Command } from 'commander';
import { defaultPluginRegistry } from '../../plugins/index.js';
import { describeOptions, listTasks, type OptionInfo, type TaskDefinition } from '../../tasks/index.js';
import { printJson } from '../output.js';
import { importPluginFlags } from './eval.js';

/** What `apiary tasks --json` prints for one task. */
function describeTask(def: TaskDefinition) {
  return {
    name: def.name,
    version: def.version,
    description: def.description,
    options: describeOptions(def.options),
    defaultSolver: def.defaultSolver,
    ...(def.noModelSolver ? { noModelSolver: def.noModelSolver } : {}),
    ...(def.sampling ? { sampling: def.sampling } : {}),
    passFail: Boolean(def.passed),
    solvers: Object.entries(def.solvers).map(([name, s]) => ({
      name,
      description: s.description,
      needsModel: s.needsModel,
      options: describeOptions(s.options),
    })),
  };
}

function optionLines(options: readonly OptionInfo[], indent: string): string[] {
  return options.map((o) => {
    const dflt = o.required
      ? 'required'
      : 'default' in o
        ? `default ${JSON.stringify(o.default)}`
        : 'optional';
    return `${indent}${o.name}=<${o.type}>  ${o.description ? `${o.description} ` : ''}(${dflt})`;
  });
}

const NEEDS = { true: 'needs a model', false: 'no model', optional: 'model optional' } as const;

function formatTasks(defs: readonly TaskDefinition[]): string {
  const out: string[] = [];
  for (const def of defs) {
    const d = describeTask(def);
    out.push(`${d.name} v${d.version}: ${d.description}`);
    out.push('  options (--option key=value):');
    out.push(...(d.options.length ? optionLines(d.options, '    ') : ['    none']));
    out.push(
      `  solvers (--solver; default ${d.defaultSolver}${d.noModelSolver ? `, ${d.noModelSolver} when no model is configured` : ''}):`,
    );
    const width = Math.max(...d.solvers.map((s) => s.name.length));
    for (const s of d.solvers) {
      out.push(
        `    ${s.name.padEnd(width)}  ${NEEDS[String(s.needsModel) as keyof typeof NEEDS]}; ${s.description}`,
      );
      out.push(...optionLines(s.options, `    ${' '.repeat(width)}    `));
    }
    out.push('');
  }
  return out.join('\n');
}

export function registerTasksCommands(program: Command): void {
  program
    .command('tasks')
    .description('list the registered tasks: options, solvers and solver options (for apiary eval)')
    .option('--json', 'machine-readable output')
    .option(
      '--plugin <file>',
      'a module exporting a benchmark plugin: its tasks are listed too (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(async (flags: { json?: boolean; plugin?: string[] }) => {
      await importPluginFlags(flags.plugin);
      await defaultPluginRegistry.loadTasks();
      const defs = listTasks();
      if (flags.json) printJson(defs.map(describeTask));
      else process.stdout.write(formatTasks(defs));
    });
}
