import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseOutputPath } from '../../cli/options.js';
import { printJson, terminalText } from '../../cli/output.js';
import { readResultsFile } from '../../harness/index.js';
import { printPlanText } from '../../plan/index.js';
import { ApiaryError } from '../../shared/index.js';
import { loadShortcutsApis } from './api-files.js';
import { shortcutsCatalogSource } from './catalog.js';
import type { QueriesFlags } from './cli-queries.js';
import { SHORTCUTS_FILES, shortcutsFilePath } from './data-files.js';
import { dumpsPythonJson as dumpsShortcutsJson } from './json-value.js';
import { readShortcutFile } from './shortcut-file.js';
import { folderOfficialFiles, readShortcutFolder } from './shortcut-folder.js';
import { describeShortcut, formatShortcutListing } from './shortcut-listing.js';
import { shortcutsApiLookup, shortcutToPlan } from './shortcut-plan.js';

/**
 * `apiary shortcuts …`: a user's own Apple Shortcuts files (unsigned binary or XML plist, or the
 * JSON ShortcutsBench stores): a readable listing, the plan they map to, and a folder of them as a
 * ShortcutsBench dataset in the official formats.
 */
export function registerShortcutsCommands(program: Command): void {
  const cmd = program
    .command('shortcuts')
    .description(
      'import Apple Shortcuts files (.shortcut/.plist, unsigned): show, to-plan, dataset, queries',
    );

  cmd
    .command('show')
    .description(
      'list the actions of a shortcut: parameters and their value forms, variables, control flow, level',
    )
    .argument(
      '<file>',
      '.shortcut or .plist file (binary or XML property list, unsigned) or ShortcutsBench JSON',
    )
    .option(
      '--json',
      'machine-readable output (the listing: actions, parameters with forms, variables, level)',
    )
    .action((file: string, flags: { json?: boolean }) => {
      const s = readShortcutFile(file);
      const listing = describeShortcut(s.actions);
      if (flags.json) printJson({ file, format: s.format, name: s.name, ...listing });
      // names, identifiers and values come from a downloaded file: printed terminal-safe
      else
        process.stdout.write(`${terminalText(formatShortcutListing(`${s.name} (${s.format})`, listing))}\n`);
    });

  cmd
    .command('to-plan')
    .description(
      'print the shortcut as plan lines (previous outputs become step references) and what does not map',
    )
    .argument('<file>', '.shortcut or .plist file')
    .option('--json', 'machine-readable output (plan JSON, the implicit inputs and the gaps)')
    .option('--data <dir>', 'folder with the ShortcutsBench API files (default: the bundled ones)')
    .action((file: string, flags: { json?: boolean; data?: string }) => {
      const s = readShortcutFile(file);
      // the catalog names apps and APIs, says which parameters exist and which one takes the input
      const lookup = shortcutsApiLookup(shortcutsCatalogSource.load({ dataDir: flags.data }));
      const { plan, stepOf, gaps, implicit } = shortcutToPlan(s.actions, lookup);
      if (flags.json) {
        printJson({ file, plan, steps: Object.fromEntries(stepOf), implicit, gaps });
        return;
      }
      process.stdout.write(
        plan.steps.length ? `${terminalText(printPlanText(plan))}\n` : '(no action maps to a plan step)\n',
      );
      if (implicit.length) {
        process.stdout.write(`\nimplicit input (${implicit.length}):\n`);
        for (const i of implicit)
          process.stdout.write(
            terminalText(
              `  action ${i.index} ${i.id} parameter ${i.param}: the output of action ${i.from} (not set in the file; Shortcuts passes it on)`,
            ) + '\n',
          );
      }
      if (gaps.length) {
        process.stdout.write(`\nnot mapped (${gaps.length}):\n`);
        for (const g of gaps)
          process.stdout.write(
            terminalText(
              `  action ${g.index} ${g.id}${g.param ? ` parameter ${g.param}` : ''}: ${g.reason}`,
            ) + '\n',
          );
      }
    });

  cmd
    .command('dataset')
    .description(
      'write a folder of shortcuts (each NAME.shortcut/.plist with NAME.query.txt) as a complete official data folder (gold, queries, check-intersection, empty categories, the two API files)',
    )
    .argument('<folder>', 'folder of .shortcut/.plist files with their .query.txt sidecars')
    .requiredOption('--data <dir>', 'folder with all_api2info.json and all_api2paraname2paratype.json')
    .requiredOption(
      '--out <dir>',
      'the data folder to write (for eval/score --data and the official scripts)',
    )
    .action((folder: string, flags: { data: string; out: string }) => {
      parseOutputPath('--out', flags.out, 'directory'); // before the shortcuts are read
      const items = readShortcutFolder(resolve(folder));
      const apis = loadShortcutsApis(flags.data);
      const files = folderOfficialFiles(items, apis.paraTypes);
      const out = resolve(flags.out);
      mkdirSync(out, { recursive: true });
      const write = (name: string, value: Parameters<typeof dumpsShortcutsJson>[0]) =>
        writeFileSync(join(out, name), `${dumpsShortcutsJson(value, 2)}\n`);
      write(SHORTCUTS_FILES.gold.name, files.gold);
      write(SHORTCUTS_FILES.queries.name, files.queries);
      write(SHORTCUTS_FILES.checkIntersection.name, files.checkIntersection);
      write(SHORTCUTS_FILES.categories.name, {}); // a user's shortcuts have no category
      for (const role of ['apiInfo', 'paraTypes'] as const)
        copyFileSync(shortcutsFilePath(flags.data, role), join(out, SHORTCUTS_FILES[role].name));
      process.stdout.write(
        `${items.length} shortcuts written to ${out} (a --data folder for eval and score)\n`,
      );
    });

  cmd
    .command('queries')
    .description(
      'write NAME.query.txt for each shortcut of a folder with a model (a second call checks the preset values are stated), else a templated query; a manifest records every attempt',
    )
    .argument('<folder>', 'folder of .shortcut/.plist files or ShortcutsBench JSON shortcuts')
    .option(
      '--data <dir>',
      'folder with all_api2info.json and all_api2paraname2paratype.json (default: the bundled ones)',
    )
    .option(
      '--out <dir>',
      'where the queries (and copies of the shortcuts) go (default: beside the shortcuts)',
    )
    .option(
      '--model <id>',
      'model writing and checking the queries (or $APIARY_MODEL); none: templated queries',
    )
    .option('--base-url <url>', 'OpenAI-compatible endpoint ending in /v1 (or $APIARY_BASE_URL)')
    .option('--api-key-env <name>', 'environment variable holding the API key')
    .option('--seed <n>', 'seed of the model calls', '0')
    .option('--retries <n>', 'attempts after the first when a value is left out', '2')
    .option(
      '--accept <rule>',
      'a query is kept when every value passes: both | filter (the model check) | string',
      'both',
    )
    .option('--overwrite', 'write a query again where NAME.query.txt exists')
    .action(async (folder: string, flags: QueriesFlags) =>
      (await import('./cli-queries.js')).runShortcutQueries(folder, flags),
    );

  cmd
    .command('results')
    .description(
      'print the official result records (JSONL) of an `apiary eval shortcuts` run, for `apiary score shortcuts` and the official scripts',
    )
    .argument('<run>', 'run folder (holding results.jsonl) or the results file itself')
    .action((run: string) => {
      const file = run.endsWith('.jsonl') ? resolve(run) : join(resolve(run), 'results.jsonl');
      if (!existsSync(file)) throw new ApiaryError('NOT_FOUND', `no results file ${file}`);
      const contents = readResultsFile(file);
      if (contents.header && contents.header.spec.task.name !== 'shortcuts')
        throw new ApiaryError(
          'USAGE',
          `${file} is a run of ${contents.header.spec.task.name}, not of shortcuts`,
        );
      let failed = 0;
      for (const sample of contents.samples) {
        const line = (sample.output as { resultLine?: unknown } | null)?.resultLine;
        if (typeof line === 'string') process.stdout.write(`${line}\n`);
        else failed++;
      }
      if (failed)
        process.stderr.write(
          `${failed} sample(s) ended in an error and have no result record (eval counts them as unparsed replies; rerun with --resume)\n`,
        );
    });
}
