import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/index.js';
import { registerBuiltinPlugins } from '../builtin.js';
import { busInAnotherVersion, sportsEvent } from './__fixtures__/hand-made.js';
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

describe('apps check on gold plans written in another SGD version of the service', () => {
  // The full AppBench test set is not available here; these hand-made records reproduce its two
  // kinds of rejection (issue 27 B).
  const records: GoldRecord[] = [
    { id: 'fixture#bus', category: 'mm', record: busInAnotherVersion },
    { id: 'fixture#sports', category: 'mm', record: sportsEvent },
  ];

  it('runs both to completion from the SGD database', async () => {
    // Before: 0/2, 3 rejections (findbus: from_city and to_city missing; event_type 'Sports' not
    // one of 'Music', 'Theater').
    const report = await checkAppBenchGold(records, { catalog, handlers: createSgdApps({ db, catalog }) });
    expect(report.findings.filter((f) => f.kind !== 'unsourced-literal')).toEqual([]);
    expect([report.total, report.completed]).toEqual([2, 2]);
  });

  it('answers a Buses_2-style findbus with Buses_3 rows in both vocabularies', async () => {
    const buses = createSgdApps({ db, catalog }).find((h) => h.appId === 'Buses')!;
    const rows = (await buses.call(
      'findbus',
      { origin: 'Philadelphia', destination: 'New York', departure_date: '2019-03-01', group_size: '2' },
      { caller: buses.owner },
    )) as Array<Record<string, unknown>>;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect([row.from_city, row.to_city, row.origin, row.destination]).toEqual([
        'Philadelphia',
        'New York',
        'Philadelphia',
        'New York',
      ]);
      expect([row.num_passengers, row.group_size]).toEqual(['2', '2']);
      expect(row.origin_station_name).toBe(row.from_station);
    }
  });

  it("answers from the caller's version's rows when the bound version has none (Buses_1 names)", async () => {
    const buses = createSgdApps({ db, catalog }).find((h) => h.appId === 'Buses')!;
    // SGD has Buses_1 rows from San Diego to Fresno on March 9th, no Buses_3 row
    const rows = (await buses.call(
      'findbus',
      { from_location: 'San Diego', to_location: 'Fresno', leaving_date: '2019-03-09' },
      { caller: buses.owner },
    )) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(12);
    for (const row of rows)
      expect([row.from_location, row.from_city, row.to_location, row.to_city, row.departure_date]).toEqual([
        'San Diego',
        'San Diego',
        'Fresno',
        'Fresno',
        '2019-03-09',
      ]);
    // the same call in Buses_3's names finds nothing: the fallback is for calls of another version
    expect(
      await buses.call(
        'findbus',
        { from_city: 'San Diego', to_city: 'Fresno', departure_date: '2019-03-09' },
        { caller: buses.owner },
      ),
    ).toEqual([]);
  });

  it('answers event_type Sports with the Sports rows of Events_1, in Events_3 names', async () => {
    const events = createSgdApps({ db, catalog }).find((h) => h.appId === 'Events')!;
    const rows = (await events.call(
      'findevents',
      { event_type: 'Sports', city: 'New York', date: '2019-03-08' },
      { caller: events.owner },
    )) as Array<Record<string, unknown>>;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows)
      expect([row.category, row.event_type, row.city, row.date]).toEqual([
        'Sports',
        'Sports',
        'New York',
        '2019-03-08',
      ]);
  });
});
