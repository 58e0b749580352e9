import { randomBytes } from 'node:crypto';
import { constants, copyFileSync, linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ApiaryError, sha256Hex } from '../shared/index.js';

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

/** How long a process waits for another one that is taking over the same stale lock. */
const RUN_LOCK_TAKEOVER_WAIT_MS = 2000;

/** The lock file's text, or null when there is none. */
function readLockText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parseHolder(text: string): RunLockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<RunLockHolder>;
    return typeof v.pid === 'number' && typeof v.hostname === 'string'
      ? { pid: v.pid, hostname: v.hostname, startedAt: String(v.startedAt ?? '?') }
      : null;
  } catch {
    return null;
  }
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Errors of a file system without hard links (some network and FAT mounts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Creates `target` as a second name of `source`; false when `target` exists (and, with
 * `sourceMayGo`, when `source` is gone). Where hard links are not supported, `target` is created
 * as a copy with O_EXCL: as exclusive, though a reader may then see it half-written.
 */
function linkIfAbsent(source: string, target: string, sourceMayGo = false): boolean {
  try {
    try {
      linkSync(source, target);
    } catch (error) {
      if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      copyFileSync(source, target, constants.COPYFILE_EXCL);
    }
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || (sourceMayGo && code === 'ENOENT')) return false;
    throw error;
  }
}

function unlinkIfPresent(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Locks a run folder for one writer: `run.lock` holds pid, host, start time and a random nonce
 * (so no two locks ever have the same text). It is written whole under a private name and then
 * hard-linked to `run.lock` (link(2) fails if the name exists: one creator wins, and no reader ever
 * sees a half-written lock). A lock whose process is gone (same host, dead pid) is taken over; any
 * other lock refuses at once, naming its holder.
 *
 * Taking over is atomic: the stale lock is first linked to a claim name derived from its text
 * (`run.lock.takeover-<hash>`), which only one process can create. The claimant checks the claim
 * holds that very text (the lock did not change under it), removes `run.lock`, then competes like a
 * fresh creator; the others wait for the claim to go and look again. Only the claimant of a stale
 * lock ever removes it, so a fresh lock is never removed by a late second takeover. Ownership is
 * read back after every acquisition. The lock goes away on `release()` and, should the process exit
 * without it (a second Ctrl-C), on process exit.
 */
export function acquireRunLock(dir: string, deps: Partial<RunLockDeps> = {}): RunLock {
  const d = { ...defaultDeps(), ...deps };
  const file = join(dir, RUN_LOCK_FILE);
  const nonce = randomBytes(16).toString('hex');
  const me: RunLockHolder = { pid: d.pid, hostname: d.hostname, startedAt: d.now().toISOString() };
  const myText = `${JSON.stringify({ ...me, nonce })}\n`;
  const draft = join(dir, `${RUN_LOCK_FILE}.${nonce}.tmp`);
  writeFileSync(draft, myText, { flag: 'wx' });
  let tookOver: RunLockHolder | null = null;
  const deadline = Date.now() + RUN_LOCK_TAKEOVER_WAIT_MS;
  try {
    for (;;) {
      if (linkIfAbsent(draft, file)) {
        if (readLockText(file) !== myText)
          throw new ApiaryError('INTERNAL', `the lock ${file} changed right after it was taken`);
        break;
      }
      const text = readLockText(file);
      if (text === null) continue; // released between our link and our read: try again
      const holder = parseHolder(text);
      if (!holder)
        throw new ApiaryError(
          'USAGE',
          `${dir} is locked (unreadable lock file ${file}); delete it if no run is using the folder`,
        );
      if (holder.hostname !== d.hostname || d.isAlive(holder.pid))
        throw new ApiaryError(
          'USAGE',
          `${dir} is in use by another run (pid ${holder.pid} on ${holder.hostname}, started ${holder.startedAt}); ` +
            `wait for it to end or pick another --out (lock: ${file})`,
        );
      const claim = join(dir, `${RUN_LOCK_FILE}.takeover-${sha256Hex(text).slice(0, 16)}`);
      if (!linkIfAbsent(file, claim, true)) {
        // another process is taking this stale lock over (or the lock just went): look again soon
        if (Date.now() > deadline)
          throw new ApiaryError(
            'USAGE',
            `${dir}: the stale lock of pid ${holder.pid} (started ${holder.startedAt}) is being taken over by ` +
              `another process for more than ${RUN_LOCK_TAKEOVER_WAIT_MS} ms; if no run is using the folder, ` +
              `delete ${claim} and ${file}`,
          );
        sleepSync(2);
        continue;
      }
      try {
        // the claim names what run.lock was when we linked it: act only if that is the stale lock
        if (readFileSync(claim, 'utf8') === text) {
          unlinkIfPresent(file);
          tookOver = holder;
        }
      } finally {
        unlinkIfPresent(claim);
      }
    }
  } finally {
    unlinkIfPresent(draft);
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    try {
      if (readLockText(file) === myText) unlinkSync(file);
    } catch {
      // already gone
    }
  };
  process.on('exit', release);
  return { file, tookOver, release };
}
