import { readdirSync, readFileSync } from 'node:fs';

/**
 * Tasks (processes and threads) whose real user is `uid`, as the kernel counts them against
 * RLIMIT_NPROC outside a user namespace. Read from /proc; 0 where there is no /proc.
 */
export function countTasksOfUser(uid: number, procDir = '/proc'): number {
  let names: string[];
  try {
    names = readdirSync(procDir);
  } catch {
    return 0;
  }
  let tasks = 0;
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      tasks += tasksIfOwnedBy(readFileSync(`${procDir}/${name}/status`, 'utf8'), uid);
    } catch {
      // the process ended while we looked
    }
  }
  return tasks;
}

/** The `Threads:` count of a /proc status text whose real uid (first `Uid:` field) is `uid`. */
export function tasksIfOwnedBy(status: string, uid: number): number {
  const realUid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
  if (realUid === undefined || Number(realUid) !== uid) return 0;
  return Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
}
