import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ApiaryError } from '../../../shared/index.js';
import {
  findSgdDialogueFiles,
  readSgdDialogueFiles,
  type SgdBuildCounts,
  type SgdIntentCounts,
  sgdDatabaseBuild,
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

/** An interrupted build: nothing was written at `out` (an earlier database there is kept). */
export interface SgdDatabaseBuildInterrupted {
  out: string;
  interrupted: { filesDone: number; files: number };
}

/** Gives the event loop a turn (a Ctrl-C handler runs) at most this often during a build. */
const YIELD_EVERY_MS = 50;

/**
 * Builds `out` from the dialogue files under `dataDir` (`sgd/{train,dev,test}/dialogues_*.json`).
 * Writes to a temporary file next to `out` and renames it at the end, so an interrupted build
 * never leaves a half-built database where the apps look for one. Once `signal` is aborted the
 * build stops after the file in progress and discards the temporary file: an index missing some
 * files would make searches miss rows without saying so, so a partial build is never written. The
 * temporary file is also removed if the process exits meanwhile (a second Ctrl-C).
 */
export function buildSgdDatabaseFile(
  dataDir: string,
  out: string,
  deps?: { now?: () => number; pid?: number },
): Promise<SgdDatabaseFileReport>;
export function buildSgdDatabaseFile(
  dataDir: string,
  out: string,
  deps: { now?: () => number; pid?: number; signal: AbortSignal },
): Promise<SgdDatabaseFileReport | SgdDatabaseBuildInterrupted>;
export async function buildSgdDatabaseFile(
  dataDir: string,
  out: string,
  deps: { now?: () => number; pid?: number; signal?: AbortSignal } = {},
): Promise<SgdDatabaseFileReport | SgdDatabaseBuildInterrupted> {
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
  const removeTmp = () => {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true }); // SQLite's, while the file is being created
  };
  process.on('exit', removeTmp);
  const start = now();
  const db = new Database(tmp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    const steps = sgdDatabaseBuild(readSgdDialogueFiles(files), db);
    db.exec('BEGIN');
    let filesDone = 0;
    let lastTurn = performance.now();
    while (!steps.next().done) {
      filesDone++;
      if (performance.now() - lastTurn >= YIELD_EVERY_MS) {
        await new Promise((r) => setImmediate(r));
        lastTurn = performance.now();
      }
      if (deps.signal?.aborted) {
        db.close();
        removeTmp();
        return { out, interrupted: { filesDone, files: files.length } };
      }
    }
    db.exec('COMMIT');
    db.exec('ANALYZE');
    const counts = steps.counts;
    const intents = sgdDatabaseCounts(db);
    db.close();
    renameSync(tmp, out);
    return { out, dataDir, counts, intents, bytes: statSync(out).size, ms: now() - start };
  } catch (error) {
    if (db.open) db.close();
    removeTmp();
    throw error;
  } finally {
    process.off('exit', removeTmp);
  }
}
