import type { Command } from 'commander';
import { loadCatalog } from '../../catalog/index.js';
import { analyzePlan, printPlanJson, printPlanText, renderPlanDag, validatePlan } from '../../plan/index.js';
import { parseChoice } from '../options.js';
import { EXIT, printJson } from '../output.js';
import { readNonEmptyPlanFile } from '../plan-file.js';

interface PlanFlags {
  catalog: string;
  data?: string;
  json?: boolean;
  format?: string;
}

export function registerPlanCommands(program: Command): void {
  const plan = program
    .command('plan')
    .description('validate and inspect plan graphs (JSON or MetaBench call-list text)');

  plan
    .command('validate')
    .description('check a plan against a catalog; exit 1 when it has problems')
    .argument('<file>', 'plan file (.json, or MetaBench text lines "App: [out = api(#k=\'v\')]")')
    .option('-c, --catalog <name|file>', 'catalog to check against', 'appbench')
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
    .action((file: string, flags: PlanFlags) => {
      const format = parseChoice('--format', flags.format ?? 'dag', ['dag', 'text', 'json'] as const);
      const p = readNonEmptyPlanFile(file);
      if (flags.json) {
        printJson({ plan: p, analysis: analyzePlan(p) });
        return;
      }
      if (format === 'dag') process.stdout.write(`${renderPlanDag(p)}\n`);
      else if (format === 'text') process.stdout.write(`${printPlanText(p)}\n`);
      else process.stdout.write(printPlanJson(p));
    });
}
