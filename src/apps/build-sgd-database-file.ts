import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ApiaryError } from '../shared/index.js';
import {
  buildSgdDatabase,
  findSgdDialogueFiles,
  readSgdDialogueFiles,
  type SgdBuildCounts,
  type SgdIntentCounts,
  sgdDatabaseCounts,
} from './sgd-database.js';

export interface SgdDatabaseFileReport {
  out: string;
  dataDir: string;
  counts: SgdBuildCounts;
  intents: SgdIntentCounts[];
  bytes: number;
  ms: number;
}

/**
 * Builds `out` from the dialogue files under `dataDir` (`sgd/{train,dev,test}/dialogues_*.json`).
 * Writes to a temporary file next to `out` and renames it at the end, so an interrupted build
 * never leaves a half-built database where the apps look for one.
 */
export function buildSgdDatabaseFile(
  dataDir: string,
  out: string,
  deps: { now?: () => number; pid?: number } = {},
): SgdDatabaseFileReport {
  const now = deps.now ?? (() => performance.now());
  const files = findSgdDialogueFiles(dataDir);
  if (files.length === 0)
    throw new ApiaryError(
      'NOT_FOUND',
      `no SGD dialogue files under ${dataDir} (expected sgd/{train,dev,test}/dialogues_*.json); pass --data DIR`,
    );
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.building-${deps.pid ?? process.pid}`;
  rmSync(tmp, { force: true });
  const start = now();
  const db = new Database(tmp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    const counts = buildSgdDatabase(readSgdDialogueFiles(files), db);
    const intents = sgdDatabaseCounts(db);
    db.close();
    renameSync(tmp, out);
    return { out, dataDir, counts, intents, bytes: statSync(out).size, ms: now() - start };
  } catch (error) {
    if (db.open) db.close();
    rmSync(tmp, { force: true });
    throw error;
  }
}
