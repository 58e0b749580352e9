import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { resolveDataDir } from '../../catalog/index.js';
import { EXIT_INTERRUPTED, trapSigint } from '../../cli/interrupt.js';
import { parseChoice, parseOutputPath, usageError } from '../../cli/options.js';
import { EXIT, printJson } from '../../cli/output.js';
import { NotFoundError, parseJsonText } from '../../shared/index.js';
import { buildSgdDatabaseFile } from './apps/build-sgd-database-file.js';
import { createSgdApps } from './apps/sgd-apps.js';
import {
  defaultSgdDatabasePath,
  openSgdDatabase,
  sgdDatabaseCounts,
  sgdDatabaseMeta,
} from './apps/sgd-database.js';
import { appBenchCatalogSource } from './catalog.js';
import { resolveAppBenchData } from './data-folder.js';
import { checkAppBenchGold, type GoldCheckReport, type GoldRecord } from './gold-check.js';
import { APPBENCH_CATEGORIES, readAppBenchFile } from './record.js';
import { sgdCatalogSource } from './sgd-catalog.js';

interface BuildFlags {
  data?: string;
  out?: string;
  json?: boolean;
}
interface DbFlags {
  db?: string;
  json?: boolean;
}
interface CallFlags extends DbFlags {
  args: string;
  caller?: string;
  catalog: string;
  data?: string;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function registerAppsCommands(program: Command): void {
  const apps = program
    .command('apps')
    .description('simulated apps backed by a database of Schema-Guided Dialogue results');

  apps
    .command('build-db')
    .description('build the SGD database from the dialogue files of an SGD release')
    .option(
      '--data <dir>',
      'data folder with sgd/{train,dev,test}/dialogues_*.json; default $APIARY_DATA, then bundled data',
    )
    .option('--out <file>', `database file (default ${defaultSgdDatabasePath()})`)
    .option('--json', 'machine-readable output')
    .action(async (flags: BuildFlags) => {
      const dataDir = resolveDataDir(flags.data ? resolve(flags.data) : undefined);
      const out = resolve(parseOutputPath('--out', flags.out) ?? defaultSgdDatabasePath());
      const interrupt = trapSigint('the build stops after this file; nothing is written');
      const report = await buildSgdDatabaseFile(dataDir, out, { signal: interrupt.signal }).finally(() =>
        interrupt.release(),
      );
      if ('interrupted' in report) {
        // an index missing files would make searches miss rows silently: all or nothing
        const { filesDone, files } = report.interrupted;
        if (flags.json) printJson(report);
        process.stderr.write(
          `interrupted after ${filesDone}/${files} file(s): ${out} not written${existsSync(out) ? ' (the earlier database is kept)' : ''}\n`,
        );
        process.exitCode = EXIT_INTERRUPTED;
        return;
      }
      if (flags.json) {
        printJson(report);
        return;
      }
      const c = report.counts;
      process.stdout.write(
        `${out}: ${c.files} files, ${c.dialogues} dialogues, ${c.calls} calls, ${c.resultRows} result rows → ${c.rows} distinct rows, ${c.rowValues} indexed values; ${mb(report.bytes)} in ${(report.ms / 1000).toFixed(1)} s\n`,
      );
      for (const i of report.intents)
        process.stdout.write(`  ${i.service}.${i.intent}\t${i.calls} calls\t${i.rows} rows\n`);
    });

  apps
    .command('info')
    .description('show which SGD database the apps use (built file or bundled subset) and its counts')
    .option('--db <file>', 'database file (default: the built one, else the bundled subset)')
    .option('--json', 'machine-readable output')
    .action((flags: DbFlags) => {
      const handle = openSgdDatabase(flags.db);
      try {
        const meta = sgdDatabaseMeta(handle.db);
        const intents = sgdDatabaseCounts(handle.db);
        if (flags.json) {
          printJson({ source: handle.source, path: handle.path, meta, intents });
          return;
        }
        process.stdout.write(
          `${handle.source === 'file' ? handle.path : 'bundled subset (data/sgd-db)'}: ${meta.calls} calls, ${meta.rows} distinct rows (build version ${meta.build_version})\n`,
        );
        for (const i of intents)
          process.stdout.write(`  ${i.service}.${i.intent}\t${i.calls} calls\t${i.rows} rows\n`);
      } finally {
        handle.db.close();
      }
    });

  apps
    .command('call')
    .description('call one API of a simulated app and print the result as JSON')
    .argument('<app>', 'app id, e.g. Restaurants (appbench) or Restaurants_2 (sgd)')
    .argument('<api>', 'API name, e.g. findrestaurants')
    .option('--args <json>', 'arguments as a JSON object', '{}')
    .option('--caller <id>', "identity to call under (default: the app's owner)")
    .option('-c, --catalog <name>', 'appbench | sgd', 'appbench')
    .option('--data <dir>', 'benchmark data folder for the catalog')
    .option('--db <file>', 'database file (default: the built one, else the bundled subset)')
    .action(async (appId: string, api: string, flags: CallFlags) => {
      const kind = parseChoice('--catalog', flags.catalog, ['appbench', 'sgd'] as const);
      const args = parseJsonText(flags.args, '--args');
      if (args === null || typeof args !== 'object' || Array.isArray(args))
        throw usageError('--args', 'a JSON object', flags.args);
      const catalog = (kind === 'sgd' ? sgdCatalogSource : appBenchCatalogSource).load({
        dataDir: flags.data,
      });
      const handle = openSgdDatabase(flags.db);
      try {
        const handler = createSgdApps({ db: handle.db, catalog, kind }).find((h) => h.appId === appId);
        if (!handler)
          throw new NotFoundError(
            'app',
            appId,
            catalog.apps.map((a) => a.id),
          );
        const result = await handler.call(api, args as Record<string, unknown>, {
          caller: flags.caller ?? handler.owner,
        });
        printJson({ source: handle.source, app: appId, api, result });
      } finally {
        handle.db.close();
      }
    });

  apps
    .command('check')
    .description(
      'execute every gold plan of an AppBench dataset on the simulated apps; list each rejection and failure, and lint the gold',
    )
    .option(
      '--data <dir>',
      'folder with test_{ss,sm,ms,mm}.json or dev_*.json (default: pulled data, else the bundled examples)',
    )
    .option('--db <file>', 'database file (default: the built one, else the bundled subset)')
    .option('--json', 'machine-readable output')
    .action(async (flags: DbFlags & { data?: string }) => {
      const { dir } = resolveAppBenchData(flags.data);
      const records = goldRecordsIn(dir);
      const catalog = appBenchCatalogSource.load({});
      const handle = openSgdDatabase(flags.db);
      let report: GoldCheckReport;
      try {
        report = await checkAppBenchGold(records, {
          catalog,
          handlers: createSgdApps({ db: handle.db, catalog }),
        });
      } finally {
        handle.db.close();
      }
      const database =
        handle.source === 'file' ? handle.path : 'bundled subset (run `apiary apps build-db` for all of SGD)';
      if (flags.json) printJson({ data: dir, database, ...report });
      else {
        for (const f of report.findings)
          process.stdout.write(
            `${f.id} ${f.kind}${f.step ? ` ${f.step}` : ''}${f.call ? ` ${f.call}` : ''}${f.arg ? `.${f.arg}` : ''}: ${f.message}\n`,
          );
        const c = report.counts;
        const cats = Object.entries(report.perCategory)
          .map(([k, v]) => `${k} ${v.completed}/${v.total}`)
          .join(', ');
        process.stdout.write(
          `${report.completed}/${report.total} gold plans complete (${cats}) on ${database}\n` +
            `executor: ${c.rejected} rejection(s), ${c['no-row']} search(es) with no row, ${c.failed} failed call(s)\n` +
            `gold lint: ${c['dangling-ref']} reference(s) to outputs no earlier call returns, ${c['unsourced-literal']} literal(s) in neither the instruction nor an earlier result\n`,
        );
      }
      // a check: exit 1 when the executor rejected a gold plan or a call failed (lint alone is not a failure)
      if (report.counts.rejected || report.counts.failed) process.exitCode = EXIT.failed;
    });
}

/** The records of every category file in `dir` (official `test_*.json`, else `dev_*.json`), with ids. */
function goldRecordsIn(dir: string): GoldRecord[] {
  for (const prefix of ['test', 'dev'] as const) {
    const categories = APPBENCH_CATEGORIES.filter((c) => existsSync(join(dir, `${prefix}_${c}.json`)));
    if (categories.length)
      return categories.flatMap((category) =>
        readAppBenchFile(join(dir, `${prefix}_${category}.json`)).map((record, i) => ({
          id: `${prefix}_${category}#${i}`,
          category,
          record,
        })),
      );
  }
  throw new NotFoundError('file', join(dir, 'test_ss.json'), [
    'pass --data DIR, a folder with test_{ss,sm,ms,mm}.json or dev_{ss,sm,ms,mm}.json',
  ]);
}
