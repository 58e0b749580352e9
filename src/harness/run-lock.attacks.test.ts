import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { RUN_LOCK_FILE } from './run-lock.js';

/*
 * Attack (issue 24, row 20): several processes find the same stale run lock at the same instant
 * and each takes it over. Contenders are worker threads (each with its own pid as the lock sees it)
 * released together by one barrier, 200 times; every time exactly one may own the folder and every
 * other must be refused naming that owner.
 */

const TRIALS = 200;
const CONTENDERS = 4;
const STALE_PID = 999_999;

describe('stale run lock taken over by many at once', () => {
  it(`${TRIALS} trials × ${CONTENDERS} contenders: exactly one owner each time`, {
    timeout: 60_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'apiary-lock-race-'));
    const stale = JSON.stringify({ pid: STALE_PID, hostname: 'box', startedAt: '2026-01-01T00:00:00.000Z' });
    const dirs = Array.from({ length: TRIALS }, (_, t) => {
      const dir = mkdtempSync(join(root, `t${t}-`));
      writeFileSync(join(dir, RUN_LOCK_FILE), stale);
      return dir;
    });
    const shared = new SharedArrayBuffer(4 * (2 + TRIALS));
    const sync = new Int32Array(shared);
    const workers = Array.from(
      { length: CONTENDERS },
      (_, w) =>
        new Worker(new URL('./__fixtures__/lock-contender.mjs', import.meta.url), {
          workerData: { dirs, me: 1000 + w, contenders: CONTENDERS, stalePid: STALE_PID, shared },
        }),
    );
    const next = () =>
      Promise.all(
        workers.map(
          (worker) =>
            new Promise<unknown>((resolve, reject) => {
              worker.once('message', resolve);
              worker.once('error', reject);
            }),
        ),
      );
    const results = next();
    // the barrier: release trial t once every contender waits for it
    for (let t = 0; t < TRIALS; t++) {
      const ready = CONTENDERS * (t + 1);
      for (let seen = Atomics.load(sync, 1); seen < ready; seen = Atomics.load(sync, 1))
        Atomics.wait(sync, 1, seen, 50);
      Atomics.store(sync, 0, t + 1);
      Atomics.notify(sync, 0);
    }
    const outcomes = (await results) as string[][];
    const released = next();
    Atomics.store(sync, 0, TRIALS + 1); // every contender has tried every trial: release the locks
    Atomics.notify(sync, 0);
    await released;
    await Promise.all(workers.map((w) => w.terminate()));

    const badTrials: string[] = [];
    for (let t = 0; t < TRIALS; t++) {
      const each = outcomes.map((o) => o[t]!);
      const owners = each.flatMap((o, w) => (o === 'owner' ? [1000 + w] : []));
      const refusedByOwner = each.every(
        (o) =>
          o === 'owner' ||
          o.startsWith(`USAGE: ${dirs[t]} is in use by another run (pid ${owners[0]} on box`),
      );
      if (owners.length !== 1 || !refusedByOwner) badTrials.push(`trial ${t}: ${JSON.stringify(each)}`);
    }
    expect(badTrials).toEqual([]);
    // every owner released its lock; no claim or draft file is left behind
    for (const dir of dirs) expect(readdirSync(dir)).toEqual([]);
  });

  it('a stale lock is taken over once, leaving the new lock whole', async () => {
    const { acquireRunLock } = await import('./run-lock.js');
    const dir = mkdtempSync(join(tmpdir(), 'apiary-lock-one-'));
    writeFileSync(
      join(dir, RUN_LOCK_FILE),
      JSON.stringify({ pid: STALE_PID, hostname: 'box', startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    const lock = acquireRunLock(dir, { pid: 5, hostname: 'box', isAlive: (pid) => pid !== STALE_PID });
    expect(lock.tookOver).toEqual({ pid: STALE_PID, hostname: 'box', startedAt: '2026-01-01T00:00:00.000Z' });
    expect(JSON.parse(readFileSync(join(dir, RUN_LOCK_FILE), 'utf8'))).toMatchObject({
      pid: 5,
      hostname: 'box',
    });
    expect(readdirSync(dir)).toEqual([RUN_LOCK_FILE]);
    lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });
});
