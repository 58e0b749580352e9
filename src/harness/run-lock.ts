import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ApiaryError } from '../shared/index.js';

/** Who holds a run folder: written into the lock file. */
export interface RunLockHolder {
  pid: number;
  hostname: string;
  startedAt: string;
}

export interface RunLockDeps {
  pid: number;
  hostname: string;
  now: () => Date;
  /** Whether a process of this host is running (signal 0 probe). */
  isAlive: (pid: number) => boolean;
}

export interface RunLock {
  file: string;
  /** A stale lock (its process is gone) that was taken over, else null. */
  tookOver: RunLockHolder | null;
  /** Removes the lock if it is still ours; safe to call twice. */
  release(): void;
}

export const RUN_LOCK_FILE = 'run.lock';

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const defaultDeps = (): RunLockDeps => ({
  pid: process.pid,
  hostname: hostname(),
  now: () => new Date(),
  isAlive: processIsAlive,
});

function readHolder(file: string): RunLockHolder | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunLockHolder>;
    return typeof v.pid === 'number' && typeof v.hostname === 'string'
      ? { pid: v.pid, hostname: v.hostname, startedAt: String(v.startedAt ?? '?') }
      : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw error;
    return null;
  }
}

/**
 * Locks a run folder for one writer: `run.lock` is created with O_EXCL and holds pid, host and
 * start time. A lock whose process is gone (same host, dead pid) is taken over; any other lock
 * refuses at once, naming its holder. The lock goes away on `release()` and, should the process
 * exit without it (a second Ctrl-C), on process exit.
 */
export function acquireRunLock(dir: string, deps: Partial<RunLockDeps> = {}): RunLock {
  const d = { ...defaultDeps(), ...deps };
  const file = join(dir, RUN_LOCK_FILE);
  const me: RunLockHolder = { pid: d.pid, hostname: d.hostname, startedAt: d.now().toISOString() };
  let tookOver: RunLockHolder | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder: RunLockHolder | null;
      try {
        holder = readHolder(file);
      } catch {
        continue; // released between our open and our read: try again
      }
      if (!holder)
        throw new ApiaryError(
          'USAGE',
          `${dir} is locked (unreadable lock file ${file}); delete it if no run is using the folder`,
        );
      if (holder.hostname === d.hostname && !d.isAlive(holder.pid)) {
        try {
          unlinkSync(file);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
        tookOver = holder;
        continue;
      }
      throw new ApiaryError(
        'USAGE',
        `${dir} is in use by another run (pid ${holder.pid} on ${holder.hostname}, started ${holder.startedAt}); ` +
          `wait for it to end or pick another --out (lock: ${file})`,
      );
    }
    try {
      writeSync(fd, `${JSON.stringify(me)}\n`);
    } finally {
      closeSync(fd);
    }
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      process.off('exit', release);
      try {
        const now = readHolder(file);
        if (now && now.pid === me.pid && now.startedAt === me.startedAt && now.hostname === me.hostname)
          unlinkSync(file);
      } catch {
        // already gone
      }
    };
    process.on('exit', release);
    return { file, tookOver, release };
  }
  throw new ApiaryError('USAGE', `could not lock ${dir}: the lock file keeps changing (${file})`);
}
