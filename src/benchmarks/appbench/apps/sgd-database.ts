import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import envPaths from 'env-paths';
import { z } from 'zod';
import { bundledDataDir } from '../../../catalog/index.js';
import {
  ApiaryError,
  InputInvalidError,
  parseJsonText,
  parseWith,
  readBytesFile,
  readJsonFile,
  readTextFile,
} from '../../../shared/index.js';
import { normalizeSlotValue } from './normalize-slot-value.js';

/** Bumped whenever the schema or the build rules change; stored in `meta.build_version`. */
const SGD_DB_BUILD_VERSION = '2';

/** A prepared statement, as far as the apps use one (a better-sqlite3 `Statement` fits). */
export interface SqliteStatement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/**
 * The part of a better-sqlite3 `Database` the apps use. Our own type rather than better-sqlite3's,
 * so the package's public signatures compile without `@types/better-sqlite3` (a development
 * dependency); any better-sqlite3 database fits it.
 */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  /** Wraps `fn` so that each call runs in one transaction. */
  transaction<T>(fn: () => T): () => T;
  close(): unknown;
}

/**
 * The database behind the simulated apps (docs/simulated-apps.md):
 * - `calls`: every SGD `service_call` (one per occurrence, in input order) with its source and
 *   its normalised arguments (`params_norm`, for exact replay);
 * - `rows`: the distinct `service_results` rows per (service, intent), keys sorted;
 * - `call_results`: which rows each call returned, in SGD's order;
 * - `row_values`: one normalised value per (row, slot), indexed for matching;
 * - `side_effects`: transactional calls made through the simulated apps (empty after a build);
 * - `meta`: build version, source files and counts.
 */
const SCHEMA_SQL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE sources (
  id INTEGER PRIMARY KEY,
  file TEXT NOT NULL,
  dialogues INTEGER NOT NULL,
  calls INTEGER NOT NULL
);
CREATE TABLE calls (
  id INTEGER PRIMARY KEY,
  service TEXT NOT NULL,
  intent TEXT NOT NULL,
  params_json TEXT NOT NULL,
  params_norm TEXT NOT NULL,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  dialogue_id TEXT NOT NULL,
  turn INTEGER NOT NULL,
  result_count INTEGER NOT NULL
);
CREATE INDEX calls_by_params ON calls (service, intent, params_norm);
CREATE TABLE rows (
  id INTEGER PRIMARY KEY,
  service TEXT NOT NULL,
  intent TEXT NOT NULL,
  row_json TEXT NOT NULL,
  first_call_id INTEGER NOT NULL REFERENCES calls(id),
  occurrences INTEGER NOT NULL,
  UNIQUE (service, intent, row_json)
);
CREATE TABLE call_results (
  call_id INTEGER NOT NULL REFERENCES calls(id),
  rank INTEGER NOT NULL,
  row_id INTEGER NOT NULL REFERENCES rows(id),
  PRIMARY KEY (call_id, rank)
) WITHOUT ROWID;
CREATE TABLE row_values (
  row_id INTEGER NOT NULL REFERENCES rows(id),
  slot TEXT NOT NULL,
  service TEXT NOT NULL,
  value_norm TEXT NOT NULL,
  PRIMARY KEY (row_id, slot)
) WITHOUT ROWID;
CREATE INDEX row_values_lookup ON row_values (service, slot, value_norm, row_id);
CREATE TABLE side_effects (
  id INTEGER PRIMARY KEY,
  app TEXT NOT NULL,
  api TEXT NOT NULL,
  service TEXT NOT NULL,
  intent TEXT NOT NULL,
  caller TEXT NOT NULL,
  args_json TEXT NOT NULL,
  result_json TEXT NOT NULL,
  at TEXT NOT NULL
);
`;

/** A frame of a dialogue turn: its service, and on SYSTEM turns the call made and its results. */
export const FrameSchema = z.object({
  service: z.string().min(1),
  service_call: z
    .object({ method: z.string().min(1), parameters: z.record(z.string(), z.string()) })
    .optional(),
  service_results: z.array(z.record(z.string(), z.string())).optional(),
});
const DialogueSchema = z.object({
  dialogue_id: z.string(),
  /** `turn` (an index kept by the compact bundled subset) overrides the position in `turns`. */
  turns: z.array(z.object({ turn: z.number().int().nonnegative().optional(), frames: z.array(z.unknown()) })),
});

type SgdDialogue = z.infer<typeof DialogueSchema>;

/** Fast structural check; input that fails it goes through the schema for a precise error. */
function looksLikeDialogue(raw: unknown): raw is SgdDialogue {
  if (raw === null || typeof raw !== 'object') return false;
  const { dialogue_id, turns } = raw as { dialogue_id?: unknown; turns?: unknown };
  if (typeof dialogue_id !== 'string' || !Array.isArray(turns)) return false;
  for (const turn of turns) {
    if (turn === null || typeof turn !== 'object') return false;
    const t = turn as { turn?: unknown; frames?: unknown };
    if (!Array.isArray(t.frames)) return false;
    if (t.turn !== undefined && !(Number.isInteger(t.turn) && (t.turn as number) >= 0)) return false;
  }
  return true;
}

type SgdFrame = z.infer<typeof FrameSchema>;

function isStringRecord(value: unknown): value is Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const v of Object.values(value)) if (typeof v !== 'string') return false;
  return true;
}

function looksLikeFrame(raw: object): raw is SgdFrame {
  const { service, service_call: call, service_results: results } = raw as Record<string, unknown>;
  if (typeof service !== 'string' || service === '') return false;
  if (call !== undefined) {
    if (call === null || typeof call !== 'object') return false;
    const { method, parameters } = call as Record<string, unknown>;
    if (typeof method !== 'string' || method === '' || !isStringRecord(parameters)) return false;
  }
  if (results !== undefined && !(Array.isArray(results) && results.every(isStringRecord))) return false;
  return true;
}

export interface SgdDialogueFile {
  /** A name for the source (a path relative to the data folder keeps builds machine-independent). */
  file: string;
  /** The parsed `dialogues_NNN.json` document: an array of dialogues. */
  json: unknown;
}

export interface SgdBuildCounts {
  files: number;
  dialogues: number;
  calls: number;
  /** `service_results` rows as recorded (with repeats). */
  resultRows: number;
  /** Distinct rows per (service, intent), the `rows` table. */
  rows: number;
  rowValues: number;
}

/** Stable JSON of a flat string record: keys sorted, so equal rows serialise equally. */
function canonicalRowJson(row: Record<string, string>): string {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(row).sort()) sorted[key] = row[key]!;
  return JSON.stringify(sorted);
}

/**
 * The identity of a call's arguments for exact replay: `[[slot, normalised value], …]` sorted by
 * slot, without arguments that have no value. `undefined` when an argument holds several values.
 */
export function normalizedParamsKey(
  params: Record<string, unknown>,
  slots?: Iterable<string>,
): string | undefined {
  const pairs: Array<[string, string]> = [];
  for (const slot of slots ?? Object.keys(params)) {
    const value = params[slot];
    if (Array.isArray(value)) return undefined;
    const norm = normalizeSlotValue(value);
    if (norm !== undefined) pairs.push([slot, norm]);
  }
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return JSON.stringify(pairs);
}

/** Creates the tables in an empty database (idempotence is not needed: builds start empty). */
function createSgdSchema(db: SqliteDatabase): void {
  const existing = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as {
    n: number;
  };
  if (existing.n > 0)
    throw new ApiaryError('USAGE', 'buildSgdDatabase needs an empty database (it already has tables)');
  db.exec(SCHEMA_SQL);
}

/**
 * Fills an empty database from parsed SGD dialogue files, in the order given (rows and calls
 * are numbered in that order, so the same input gives the same content). Frames without a
 * `service_call` are skipped. Throws INPUT_INVALID naming file, dialogue and field on bad input.
 */
export function buildSgdDatabase(
  dialogueFiles: Iterable<SgdDialogueFile>,
  db: SqliteDatabase,
): SgdBuildCounts {
  const steps = sgdDatabaseBuild(dialogueFiles, db);
  db.transaction(() => {
    while (!steps.next().done);
  })();
  db.exec('ANALYZE');
  return steps.counts;
}

/**
 * The build as steps, for a caller that must stay responsive (Ctrl-C): `next()` indexes one
 * dialogue file (the last step writes the occurrences and the meta table); the caller owns the
 * transaction and runs ANALYZE at the end. `counts` grows as the steps run.
 */
export function sgdDatabaseBuild(
  dialogueFiles: Iterable<SgdDialogueFile>,
  db: SqliteDatabase,
): Generator<string, void> & { counts: SgdBuildCounts } {
  createSgdSchema(db);
  const insertSource = db.prepare('INSERT INTO sources (id, file, dialogues, calls) VALUES (?, ?, 0, 0)');
  const updateSource = db.prepare('UPDATE sources SET dialogues = ?, calls = ? WHERE id = ?');
  const insertCall = db.prepare(
    `INSERT INTO calls (id, service, intent, params_json, params_norm, source_id, dialogue_id, turn, result_count)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertRow = db.prepare(
    'INSERT INTO rows (id, service, intent, row_json, first_call_id, occurrences) VALUES (?, ?, ?, ?, ?, 1)',
  );
  const updateOccurrences = db.prepare('UPDATE rows SET occurrences = ? WHERE id = ?');
  const insertResult = db.prepare('INSERT INTO call_results (call_id, rank, row_id) VALUES (?, ?, ?)');
  const insertValue = db.prepare(
    'INSERT INTO row_values (row_id, slot, service, value_norm) VALUES (?, ?, ?, ?)',
  );
  const insertMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');

  const counts: SgdBuildCounts = {
    files: 0,
    dialogues: 0,
    calls: 0,
    resultRows: 0,
    rows: 0,
    rowValues: 0,
  };
  const rowIds = new Map<string, number>();
  const occurrences: number[] = [0];
  const files: string[] = [];

  function* build(): Generator<string, void> {
    for (const { file, json } of dialogueFiles) {
      const sourceId = ++counts.files;
      files.push(file);
      insertSource.run(sourceId, file);
      if (!Array.isArray(json)) throw new InputInvalidError({ file }, 'expected an array of dialogues');
      let fileCalls = 0;
      json.forEach((raw, d) => {
        const dialogue = looksLikeDialogue(raw)
          ? raw
          : parseWith(DialogueSchema, raw, { file, record: d + 1 });
        counts.dialogues++;
        dialogue.turns.forEach((turn, t) => {
          turn.frames.forEach((rawFrame, f) => {
            // Only frames with a service call matter; the others are not validated (fast path).
            if (rawFrame === null || typeof rawFrame !== 'object' || !('service_call' in rawFrame)) return;
            const frame = looksLikeFrame(rawFrame)
              ? rawFrame
              : parseWith(FrameSchema, rawFrame, {
                  file,
                  record: `${dialogue.dialogue_id} turn ${t} frame ${f}`,
                });
            if (!frame.service_call) return;
            const results = frame.service_results ?? [];
            const callId = ++counts.calls;
            fileCalls++;
            const { service } = frame;
            const intent = frame.service_call.method;
            insertCall.run(
              callId,
              service,
              intent,
              canonicalRowJson(frame.service_call.parameters),
              normalizedParamsKey(frame.service_call.parameters) ?? '[]',
              sourceId,
              dialogue.dialogue_id,
              turn.turn ?? t,
              results.length,
            );
            results.forEach((row, rank) => {
              counts.resultRows++;
              const rowJson = canonicalRowJson(row);
              const key = `${service}\u0000${intent}\u0000${rowJson}`;
              let rowId = rowIds.get(key);
              if (rowId === undefined) {
                rowId = ++counts.rows;
                rowIds.set(key, rowId);
                occurrences.push(1);
                insertRow.run(rowId, service, intent, rowJson, callId);
                for (const slot of Object.keys(row).sort()) {
                  const norm = normalizeSlotValue(row[slot]);
                  if (norm === undefined) continue;
                  insertValue.run(rowId, slot, service, norm);
                  counts.rowValues++;
                }
              } else {
                occurrences[rowId] = (occurrences[rowId] ?? 0) + 1;
              }
              insertResult.run(callId, rank, rowId);
            });
          });
        });
      });
      updateSource.run(json.length, fileCalls, sourceId);
      yield file;
    }
    for (let id = 1; id < occurrences.length; id++)
      if (occurrences[id]! > 1) updateOccurrences.run(occurrences[id], id);
    const meta: Record<string, string> = {
      build_version: SGD_DB_BUILD_VERSION,
      source: 'Schema-Guided Dialogue (google-research-datasets/dstc8-schema-guided-dialogue), CC BY-SA 4.0',
      files: JSON.stringify(files),
      dialogues: String(counts.dialogues),
      calls: String(counts.calls),
      result_rows: String(counts.resultRows),
      rows: String(counts.rows),
      row_values: String(counts.rowValues),
    };
    for (const key of Object.keys(meta).sort()) insertMeta.run(key, meta[key]);
  }
  return Object.assign(build(), { counts });
}

/** Per-(service, intent) counts of a built database, ordered by service then intent. */
export interface SgdIntentCounts {
  service: string;
  intent: string;
  calls: number;
  rows: number;
}

export function sgdDatabaseCounts(db: SqliteDatabase): SgdIntentCounts[] {
  return db
    .prepare(
      `SELECT c.service, c.intent, c.calls, coalesce(r.rows, 0) AS rows
       FROM (SELECT service, intent, count(*) AS calls FROM calls GROUP BY service, intent) c
       LEFT JOIN (SELECT service, intent, count(*) AS rows FROM rows GROUP BY service, intent) r
         ON r.service = c.service AND r.intent = c.intent
       ORDER BY c.service, c.intent`,
    )
    .all() as SgdIntentCounts[];
}

/** The `meta` table as a record. */
export function sgdDatabaseMeta(db: SqliteDatabase): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of db.prepare('SELECT key, value FROM meta ORDER BY key').all() as Array<{
    key: string;
    value: string;
  }>)
    out[key] = value;
  return out;
}

/**
 * The dialogue files of an SGD release folder (`sgd/{train,dev,test}/dialogues_*.json`, the
 * splits that exist), sorted by split then name; `file` is relative to `dataDir`.
 */
export function findSgdDialogueFiles(dataDir: string): Array<{ file: string; path: string }> {
  const out: Array<{ file: string; path: string }> = [];
  for (const split of ['train', 'dev', 'test']) {
    const dir = join(dataDir, 'sgd', split);
    if (!existsSync(dir)) continue;
    const names = readdirSync(dir)
      .filter((n) => /^dialogues_\d+\.json$/.test(n))
      .sort();
    for (const name of names) out.push({ file: `sgd/${split}/${name}`, path: join(dir, name) });
  }
  return out;
}

/** Reads the files lazily, one at a time, so a full build never holds every file in memory. */
export function* readSgdDialogueFiles(
  files: ReadonlyArray<{ file: string; path: string }>,
): Generator<SgdDialogueFile> {
  for (const { file, path } of files) yield { file, json: readJsonFile(path) };
}

/** Path of the compact dialogue subset vendored with the package (see data/sgd-db/README.md). */
export function bundledSgdSubsetPath(): string {
  return join(bundledDataDir(), 'sgd-db', 'sgd-subset.json');
}

export interface SgdDatabaseHandle {
  db: SqliteDatabase;
  /** `file`: a database built by `apiary apps build-db`; `bundled`: the vendored subset, built in memory. */
  source: 'file' | 'bundled';
  /** The database file when `source` is `file`. */
  path?: string;
}

let bundledImage: Buffer | undefined;

/**
 * An in-memory database of the vendored subset (`data/sgd-db/sgd-subset.json`). The first call
 * builds it; later calls get a fresh copy of that build (own side effects), which is much faster.
 */
export function openBundledSgdDatabase(): SgdDatabaseHandle {
  if (!bundledImage) {
    const path = bundledSgdSubsetPath();
    const json = parseJsonText(readTextFile(path), path);
    const db = new Database(':memory:');
    buildSgdDatabase([{ file: 'data/sgd-db/sgd-subset.json', json }], db);
    bundledImage = db.serialize();
    return { db, source: 'bundled' };
  }
  return { db: new Database(bundledImage), source: 'bundled' };
}

export interface OpenSgdDatabaseOptions {
  /**
   * Work on an in-memory copy of the file (default), so side effects of a session never
   * touch the built database. `false` opens the file itself, read-write.
   */
  copy?: boolean;
}

/**
 * The built database at `path` (default `defaultSgdDatabasePath()`) when it exists, else the
 * bundled subset; `source` says which. A file from another build version is refused.
 */
export function openSgdDatabase(path?: string, opts: OpenSgdDatabaseOptions = {}): SgdDatabaseHandle {
  const file = path ?? defaultSgdDatabasePath();
  if (!existsSync(file)) {
    if (path !== undefined)
      throw new ApiaryError('NOT_FOUND', `no SGD database at ${path} (build it with: apiary apps build-db)`);
    return openBundledSgdDatabase();
  }
  const db = opts.copy === false ? new Database(file) : new Database(readBytesFile(file));
  let version: string | undefined;
  try {
    version = sgdDatabaseMeta(db).build_version;
  } catch (error) {
    db.close();
    throw new ApiaryError('INPUT_INVALID', `${file}: not an Apiary SGD database`, { cause: error });
  }
  if (version !== SGD_DB_BUILD_VERSION) {
    db.close();
    throw new ApiaryError(
      'INPUT_INVALID',
      `${file}: built by database version ${version ?? '?'}, this Apiary reads version ${SGD_DB_BUILD_VERSION}; rebuild with: apiary apps build-db`,
    );
  }
  return { db, source: 'file', path: file };
}

/** Where `apiary apps build-db` writes by default: `<env-paths('apiary').data>/sgd.sqlite`. */
export function defaultSgdDatabasePath(): string {
  return join(envPaths('apiary').data, 'sgd.sqlite');
}
