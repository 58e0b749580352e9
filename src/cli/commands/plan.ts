import type { Command } from 'commander';
import { loadCatalog } from '../../catalog/index.js';
import { analyzePlan, type Plan, printPlanJson, renderPlanDag, validatePlan } from '../../plan/index.js';
import type { BenchmarkPlugin } from '../../plugins/index.js';
import { ApiaryError } from '../../shared/index.js';
import { parseChoice } from '../options.js';
import { EXIT, printJson } from '../output.js';
import { readNonEmptyPlanFile } from '../plan-file.js';
import { planDescription, planFileHelp, simulatedApps } from '../plugin-help.js';
import { cliPlugins } from '../program.js';

/** `plan show -f text`: the plan in the first plan text format a plugin gives. */
async function printPlanText(plugins: readonly BenchmarkPlugin[], plan: Plan): Promise<string> {
  const format = plugins.flatMap((p) => p.planFormats ?? [])[0];
  if (!format) throw new ApiaryError('USAGE', 'no plugin gives a plan text format: use -f dag or -f json');
  return (await format.load()).print(plan);
}

interface PlanFlags {
  catalog: string;
  data?: string;
  json?: boolean;
  format?: string;
}

export function registerPlanCommands(program: Command): void {
  const plugins = cliPlugins();
  const plan = program.command('plan').description(planDescription(plugins));

  plan
    .command('validate')
    .description('check a plan against a catalog; exit 1 when it has problems')
    .argument('<file>', planFileHelp(plugins, 'example'))
    .option('-c, --catalog <name|file>', 'catalog to check against', simulatedApps(plugins)?.catalogs[0])
    .option('--data <dir>', 'benchmark data folder')
    .option('--json', 'machine-readable output')
    .action((file: string, flags: PlanFlags) => {
      const p = readNonEmptyPlanFile(file);
      const issues = validatePlan(p, loadCatalog(flags.catalog, { dataDir: flags.data }));
      if (flags.json) printJson({ file, valid: issues.length === 0, steps: p.steps.length, issues });
      else if (issues.length === 0) process.stdout.write(`${file}: valid (${p.steps.length} steps)\n`);
      else
        for (const i of issues)
          process.stdout.write(
            `${file}: ${i.step ?? '-'}${i.field ? `.${i.field}` : ''}: ${i.code}: ${i.message}\n`,
          );
      process.exitCode = issues.length ? EXIT.failed : EXIT.ok;
    });

  plan
    .command('show')
    .description('draw the plan as a dependency graph (or print it in another format)')
    .argument('<file>', 'plan file')
    .option('-f, --format <format>', 'dag | text | json', 'dag')
    .option('--json', 'machine-readable output (plan + analysis)')
    .action(async (file: string, flags: PlanFlags) => {
      const format = parseChoice('--format', flags.format ?? 'dag', ['dag', 'text', 'json'] as const);
      const p = readNonEmptyPlanFile(file);
      if (flags.json) {
        printJson({ plan: p, analysis: analyzePlan(p) });
        return;
      }
      if (format === 'dag') process.stdout.write(`${renderPlanDag(p)}\n`);
      else if (format === 'text') process.stdout.write(`${await printPlanText(plugins, p)}\n`);
      else process.stdout.write(printPlanJson(p));
    });
}
