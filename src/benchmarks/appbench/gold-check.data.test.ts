import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/index.js';
import { registerBuiltinPlugins } from '../builtin.js';
import { createSgdApps } from './apps/sgd-apps.js';
import {
  buildSgdDatabase,
  findSgdDialogueFiles,
  readSgdDialogueFiles,
  type SqliteDatabase,
} from './apps/sgd-database.js';
import { checkAppBenchGold, type GoldRecord } from './gold-check.js';
import { readAppBenchFile } from './record.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

/** `apiary apps check --data ../shared/data/appbench` with a database built from all SGD dialogues. */
const data = resolve(process.cwd(), '../shared/data');
const catalog = loadCatalog('appbench', { dataDir: data });
let db: SqliteDatabase;

beforeAll(() => {
  db = new Database(':memory:');
  buildSgdDatabase(readSgdDialogueFiles(findSgdDialogueFiles(data)), db);
});

describe('apps check on the AppBench dev gold plans', () => {
  it('rejects none; only the two searches SGD has no row for do not complete', async () => {
    const records: GoldRecord[] = ['ss', 'sm', 'ms', 'mm'].flatMap((category) =>
      readAppBenchFile(resolve(data, `appbench/dev_${category}.json`)).map((record, i) => ({
        id: `dev_${category}#${i}`,
        category,
        record,
      })),
    );
    const report = await checkAppBenchGold(records, { catalog, handlers: createSgdApps({ db, catalog }) });
    // Before the arguments were derived from every SGD version: 196/200, 1 rejection (dev_mm#16:
    // findevents has no event_name), 3 searches with no row.
    expect([report.total, report.completed]).toEqual([200, 198]);
    expect(report.perCategory.mm).toEqual({ total: 50, completed: 48 });
    expect(report.counts).toEqual({
      rejected: 0,
      'no-row': 2,
      failed: 0,
      'dangling-ref': 14,
      'unsourced-literal': 98,
    });
    // No car-rental row for San Jose or Concord exists in the available SGD dialogues.
    expect(report.findings.filter((f) => f.kind === 'no-row').map((f) => `${f.id} ${f.call}`)).toEqual([
      'dev_mm#6 Rents.getcarsavailable',
      'dev_mm#42 Rents.getcarsavailable',
    ]);
  });
});
