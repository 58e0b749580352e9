import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { InputInvalidError } from '../../../shared/index.js';
import { buildSgdDatabaseFile } from './build-sgd-database-file.js';
import {
  buildSgdDatabase,
  bundledSgdSubsetPath,
  findSgdDialogueFiles,
  openBundledSgdDatabase,
  openSgdDatabase,
  type SgdDialogueFile,
  type SqliteDatabase,
  sgdDatabaseCounts,
  sgdDatabaseMeta,
} from './sgd-database.js';

const fixtures = join(import.meta.dirname, '__fixtures__');
const fixtureFiles = (): SgdDialogueFile[] =>
  ['sgd-dialogues-a.json', 'sgd-dialogues-b.json'].map((name) => ({
    file: name,
    json: JSON.parse(readFileSync(join(fixtures, name), 'utf8')),
  }));

function buildFixtureDb(): SqliteDatabase {
  const db = new Database(':memory:');
  buildSgdDatabase(fixtureFiles(), db);
  return db;
}

/** Every table's content in primary-key order, for exact comparisons. */
function dump(db: SqliteDatabase): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of [
    ['meta', 'key'],
    ['sources', 'id'],
    ['calls', 'id'],
    ['rows', 'id'],
    ['call_results', 'call_id, rank'],
    ['row_values', 'row_id, slot'],
    ['side_effects', 'id'],
  ] as const)
    out[table] = db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all();
  return out;
}

const lotusLeaf = {
  address: '12 Elm Street',
  category: 'Thai',
  has_seating_outdoors: 'True',
  has_vegetarian_options: 'True',
  location: 'Springfield',
  phone_number: '555-0101',
  price_range: 'moderate',
  rating: '4.20',
  restaurant_name: 'Lotus Leaf',
};

describe('buildSgdDatabase', () => {
  it('records every call and the distinct rows, in input order', () => {
    const db = new Database(':memory:');
    const counts = buildSgdDatabase(fixtureFiles(), db);
    expect(counts).toEqual({ files: 2, dialogues: 3, calls: 9, resultRows: 9, rows: 8, rowValues: 73 });
    expect(db.prepare('SELECT id, file, dialogues, calls FROM sources ORDER BY id').all()).toEqual([
      { id: 1, file: 'sgd-dialogues-a.json', dialogues: 2, calls: 5 },
      { id: 2, file: 'sgd-dialogues-b.json', dialogues: 1, calls: 4 },
    ]);
    expect(
      db.prepare('SELECT id, service, intent, dialogue_id, turn, result_count FROM calls ORDER BY id').all(),
    ).toEqual([
      {
        id: 1,
        service: 'Restaurants_2',
        intent: 'FindRestaurants',
        dialogue_id: 't_1',
        turn: 1,
        result_count: 2,
      },
      {
        id: 2,
        service: 'Restaurants_2',
        intent: 'ReserveRestaurant',
        dialogue_id: 't_1',
        turn: 3,
        result_count: 1,
      },
      {
        id: 3,
        service: 'Restaurants_2',
        intent: 'FindRestaurants',
        dialogue_id: 't_2',
        turn: 1,
        result_count: 1,
      },
      {
        id: 4,
        service: 'Restaurants_2',
        intent: 'FindRestaurants',
        dialogue_id: 't_2',
        turn: 3,
        result_count: 0,
      },
      { id: 5, service: 'Weather_1', intent: 'GetWeather', dialogue_id: 't_2', turn: 5, result_count: 1 },
      {
        id: 6,
        service: 'Restaurants_2',
        intent: 'FindRestaurants',
        dialogue_id: 't_3',
        turn: 1,
        result_count: 1,
      },
      {
        id: 7,
        service: 'RentalCars_3',
        intent: 'GetCarsAvailable',
        dialogue_id: 't_3',
        turn: 3,
        result_count: 1,
      },
      {
        id: 8,
        service: 'RentalCars_3',
        intent: 'GetCarsAvailable',
        dialogue_id: 't_3',
        turn: 5,
        result_count: 1,
      },
      {
        id: 9,
        service: 'Restaurants_2',
        intent: 'ReserveRestaurant',
        dialogue_id: 't_3',
        turn: 7,
        result_count: 1,
      },
    ]);
    expect(db.prepare('SELECT params_json, params_norm FROM calls WHERE id = 3').get()).toEqual({
      params_json: '{"category":"Thai","location":"Springfield","price_range":"cheap"}',
      params_norm: '[["category","thai"],["location","springfield"],["price_range","cheap"]]',
    });
    // Basil House is recorded twice (with different key orders) and stored once.
    expect(
      db.prepare('SELECT id, service, intent, first_call_id, occurrences FROM rows ORDER BY id').all(),
    ).toEqual([
      { id: 1, service: 'Restaurants_2', intent: 'FindRestaurants', first_call_id: 1, occurrences: 1 },
      { id: 2, service: 'Restaurants_2', intent: 'FindRestaurants', first_call_id: 1, occurrences: 2 },
      { id: 3, service: 'Restaurants_2', intent: 'ReserveRestaurant', first_call_id: 2, occurrences: 1 },
      { id: 4, service: 'Weather_1', intent: 'GetWeather', first_call_id: 5, occurrences: 1 },
      { id: 5, service: 'Restaurants_2', intent: 'FindRestaurants', first_call_id: 6, occurrences: 1 },
      { id: 6, service: 'RentalCars_3', intent: 'GetCarsAvailable', first_call_id: 7, occurrences: 1 },
      { id: 7, service: 'RentalCars_3', intent: 'GetCarsAvailable', first_call_id: 8, occurrences: 1 },
      { id: 8, service: 'Restaurants_2', intent: 'ReserveRestaurant', first_call_id: 9, occurrences: 1 },
    ]);
    expect(
      JSON.parse(
        (db.prepare('SELECT row_json FROM rows WHERE id = 1').get() as { row_json: string }).row_json,
      ),
    ).toEqual(lotusLeaf);
    expect(db.prepare('SELECT call_id, rank, row_id FROM call_results ORDER BY call_id, rank').all()).toEqual(
      [
        { call_id: 1, rank: 0, row_id: 1 },
        { call_id: 1, rank: 1, row_id: 2 },
        { call_id: 2, rank: 0, row_id: 3 },
        { call_id: 3, rank: 0, row_id: 2 },
        { call_id: 5, rank: 0, row_id: 4 },
        { call_id: 6, rank: 0, row_id: 5 },
        { call_id: 7, rank: 0, row_id: 6 },
        { call_id: 8, rank: 0, row_id: 7 },
        { call_id: 9, rank: 0, row_id: 8 },
      ],
    );
    expect(
      db.prepare('SELECT slot, value_norm FROM row_values WHERE row_id = 1 ORDER BY slot').all(),
    ).toEqual([
      { slot: 'address', value_norm: '12 elm street' },
      { slot: 'category', value_norm: 'thai' },
      { slot: 'has_seating_outdoors', value_norm: 'true' },
      { slot: 'has_vegetarian_options', value_norm: 'true' },
      { slot: 'location', value_norm: 'springfield' },
      { slot: 'phone_number', value_norm: '555-0101' },
      { slot: 'price_range', value_norm: 'moderate' },
      { slot: 'rating', value_norm: '4.2' },
      { slot: 'restaurant_name', value_norm: 'lotus leaf' },
    ]);
    expect(
      db.prepare("SELECT value_norm FROM row_values WHERE row_id = 6 AND slot = 'price_per_day'").get(),
    ).toEqual({
      value_norm: '31',
    });
    expect(db.prepare('SELECT count(*) AS n FROM side_effects').get()).toEqual({ n: 0 });
    expect(sgdDatabaseMeta(db)).toEqual({
      build_version: '2',
      calls: '9',
      dialogues: '3',
      files: '["sgd-dialogues-a.json","sgd-dialogues-b.json"]',
      result_rows: '9',
      row_values: '73',
      rows: '8',
      source: expect.stringContaining('CC BY-SA 4.0'),
    });
    expect(sgdDatabaseCounts(db)).toEqual([
      { service: 'RentalCars_3', intent: 'GetCarsAvailable', calls: 2, rows: 2 },
      { service: 'Restaurants_2', intent: 'FindRestaurants', calls: 4, rows: 3 },
      { service: 'Restaurants_2', intent: 'ReserveRestaurant', calls: 2, rows: 2 },
      { service: 'Weather_1', intent: 'GetWeather', calls: 1, rows: 1 },
    ]);
  });

  it('uses real indexes for matching', () => {
    const db = buildFixtureDb();
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT row_id FROM row_values WHERE service = 'Restaurants_2' AND slot = 'location' AND value_norm = 'springfield'",
      )
      .all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join('\n')).toContain('row_values_lookup');
  });

  it('is deterministic: two builds have the same content', () => {
    expect(dump(buildFixtureDb())).toEqual(dump(buildFixtureDb()));
    const subset = () => {
      const db = new Database(':memory:');
      const json = JSON.parse(readFileSync(bundledSgdSubsetPath(), 'utf8'));
      buildSgdDatabase([{ file: 'subset', json }], db);
      return db;
    };
    expect(dump(subset())).toEqual(dump(subset()));
  });

  it('names the file, the dialogue and the field of bad input', () => {
    const bad = fixtureFiles();
    const json = bad[1]!.json as Array<{ turns: Array<{ frames: Array<Record<string, unknown>> }> }>;
    json[0]!.turns[3]!.frames[0]!.service_results = [{ car_name: 42 }];
    let error: unknown;
    try {
      buildSgdDatabase(bad, new Database(':memory:'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputInvalidError);
    expect((error as InputInvalidError).message).toMatch(
      /^sgd-dialogues-b\.json: record t_3 turn 3 frame 0: field "service_results\[0\]\.car_name"/,
    );
    expect(() =>
      buildSgdDatabase(
        [{ file: 'y.json', json: [{ dialogue_id: 'd', turns: 5 }] }],
        new Database(':memory:'),
      ),
    ).toThrow(/^y\.json: record 1: field "turns"/);
    expect(() =>
      buildSgdDatabase(
        [
          {
            file: 'z.json',
            json: [
              { dialogue_id: 'd', turns: [{ frames: [{ service: 'S', service_call: { method: 'M' } }] }] },
            ],
          },
        ],
        new Database(':memory:'),
      ),
    ).toThrow(/^z\.json: record d turn 0 frame 0: field "service_call\.parameters"/);
    expect(() => buildSgdDatabase([{ file: 'x.json', json: {} }], new Database(':memory:'))).toThrow(
      'x.json: expected an array of dialogues',
    );
  });

  it('refuses a database that already has tables', () => {
    expect(() => buildSgdDatabase(fixtureFiles(), buildFixtureDb())).toThrow(/empty database/);
  });
});

describe('database files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-sgd-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds dialogue files of the splits that exist, sorted', () => {
    expect(findSgdDialogueFiles(join(dir, 'nothing'))).toEqual([]);
  });

  it('builds a file atomically and opens an in-memory copy of it', async () => {
    const { cpSync, mkdirSync } = await import('node:fs');
    const data = join(dir, 'data');
    mkdirSync(join(data, 'sgd', 'dev'), { recursive: true });
    mkdirSync(join(data, 'sgd', 'test'), { recursive: true });
    cpSync(join(fixtures, 'sgd-dialogues-b.json'), join(data, 'sgd', 'test', 'dialogues_001.json'));
    cpSync(join(fixtures, 'sgd-dialogues-a.json'), join(data, 'sgd', 'dev', 'dialogues_002.json'));
    expect(findSgdDialogueFiles(data).map((f) => f.file)).toEqual([
      'sgd/dev/dialogues_002.json',
      'sgd/test/dialogues_001.json',
    ]);
    const out = join(dir, 'out', 'sgd.sqlite');
    let t = 0;
    const report = await buildSgdDatabaseFile(data, out, { now: () => (t += 5), pid: 1 });
    expect(report.counts.calls).toBe(9);
    expect(report.ms).toBe(5);
    expect(report.bytes).toBe(statSync(out).size);
    expect(existsSync(`${out}.building-1`)).toBe(false);

    const handle = openSgdDatabase(out);
    expect(handle.source).toBe('file');
    expect(handle.path).toBe(out);
    handle.db
      .prepare(
        "INSERT INTO side_effects (app, api, service, intent, caller, args_json, result_json, at) VALUES ('a', 'b', 'c', 'd', 'e', '{}', '{}', 'now')",
      )
      .run();
    handle.db.close();
    const again = openSgdDatabase(out);
    expect(again.db.prepare('SELECT count(*) AS n FROM side_effects').get()).toEqual({ n: 0 });
    again.db.close();
  });

  it('reports a missing explicit file and an empty data folder', async () => {
    expect(() => openSgdDatabase(join(dir, 'missing.sqlite'))).toThrow(/no SGD database at/);
    await expect(buildSgdDatabaseFile(join(dir, 'empty'), join(dir, 'x.sqlite'))).rejects.toThrow(
      /no SGD dialogue files under/,
    );
  });

  it('refuses a file of another build version', () => {
    const path = join(dir, 'old.sqlite');
    const db = new Database(path);
    db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('build_version', '0')",
    );
    db.close();
    expect(() => openSgdDatabase(path)).toThrow(/built by database version 0/);
  });
});

describe('bundled subset', () => {
  it('builds in memory and covers every AppBench service intent', () => {
    const handle = openBundledSgdDatabase();
    expect(handle.source).toBe('bundled');
    const intents = sgdDatabaseCounts(handle.db).map((i) => `${i.service}.${i.intent}`);
    expect(intents).toHaveLength(33);
    expect(intents).toContain('Movies_3.FindMovies');
    expect(intents).toContain('RideSharing_2.GetRide');
  });

  it('gives every caller its own copy', () => {
    const a = openBundledSgdDatabase().db;
    const b = openBundledSgdDatabase().db;
    a.prepare(
      "INSERT INTO side_effects (app, api, service, intent, caller, args_json, result_json, at) VALUES ('a', 'b', 'c', 'd', 'e', '{}', '{}', 'now')",
    ).run();
    expect(b.prepare('SELECT count(*) AS n FROM side_effects').get()).toEqual({ n: 0 });
    expect(dump(openBundledSgdDatabase().db).rows).toEqual(dump(a).rows);
  });
});
