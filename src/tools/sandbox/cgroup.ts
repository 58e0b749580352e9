import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A control group made for one sandbox run, so memory and tasks are bounded for the whole
 * sandbox (every process it forks, its tmpfs work folder included), not per process as rlimits
 * are. cgroup v2 where the machine has it with the memory and pids controllers; else cgroup v1's
 * memory and pids hierarchies. Made only where this process may (root, or a delegated tree).
 */
export interface RunCgroup {
  kind: 'cgroup-v2' | 'cgroup-v1';
  /** The `cgroup.procs` files a process writes its pid into to join (one per hierarchy). */
  procsFiles: string[];
  /** How many processes the kernel's OOM killer has killed in it so far. */
  oomKills(): number;
  /** The highest memory use seen, in bytes (undefined where the kernel does not report it). */
  peakBytes(): number | undefined;
  /** Removes the group; its processes must be gone (retried briefly while they are reaped). */
  remove(): Promise<void>;
}

export interface CgroupLimits {
  memoryBytes: number;
  maxTasks: number;
}

const CGROUP_ROOT = '/sys/fs/cgroup';
const PREFIX = 'apiary-sandbox-';
let counter = 0;
const swept = new Set<string>();

/**
 * Removes the empty run groups of Apiary processes that died mid-run (killed, so their `finally`
 * never ran), once per parent folder and process.
 */
function sweepOnce(...parents: string[]): void {
  for (const parent of parents) {
    if (swept.has(parent)) continue;
    swept.add(parent);
    let names: string[] = [];
    try {
      names = readdirSync(parent).filter((n) => n.startsWith(PREFIX));
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = Number(name.slice(PREFIX.length).split('-')[0]);
      if (Number.isInteger(pid) && !existsSync(`/proc/${pid}`)) rmdirQuiet(join(parent, name)); // EBUSY while tasks remain
    }
  }
}

/**
 * Makes a cgroup for one run with `limits` set, or undefined when the machine offers none this
 * process may make (the caller then uses the single-process fallback).
 */
export function createRunCgroup(
  limits: CgroupLimits,
  where: { root?: string; selfCgroupFile?: string } = {},
): RunCgroup | undefined {
  const root = where.root ?? CGROUP_ROOT;
  const selfCgroupFile = where.selfCgroupFile ?? '/proc/self/cgroup';
  const name = `${PREFIX}${process.pid}-${++counter}`;
  try {
    if (isV2WithControllers(root)) {
      sweepOnce(root);
      return createV2(join(root, name), limits);
    }
    const memoryParent = v1Parent(root, 'memory', selfCgroupFile);
    const pidsParent = v1Parent(root, 'pids', selfCgroupFile);
    if (memoryParent && pidsParent) {
      sweepOnce(memoryParent, pidsParent);
      return createV1(join(memoryParent, name), join(pidsParent, name), limits);
    }
  } catch {
    // no permission (not root, no delegation) or a controller that refuses the values
  }
  return undefined;
}

function isV2WithControllers(root: string): boolean {
  try {
    const enabled = readFileSync(join(root, 'cgroup.subtree_control'), 'utf8').split(/\s+/);
    return enabled.includes('memory') && enabled.includes('pids');
  } catch {
    return false;
  }
}

function createV2(dir: string, limits: CgroupLimits): RunCgroup {
  mkdirSync(dir);
  try {
    writeFileSync(join(dir, 'memory.max'), String(limits.memoryBytes));
    // Swap would let the group hold more than memory.max; absent without swap accounting.
    if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
    // An OOM kill takes every process of the group: the run is over, not half-alive.
    if (existsSync(join(dir, 'memory.oom.group'))) writeFileSync(join(dir, 'memory.oom.group'), '1');
    writeFileSync(join(dir, 'pids.max'), String(limits.maxTasks));
  } catch (error) {
    rmdirQuiet(dir);
    throw error;
  }
  return {
    kind: 'cgroup-v2',
    procsFiles: [join(dir, 'cgroup.procs')],
    oomKills: () => keyedValue(join(dir, 'memory.events'), 'oom_kill'),
    peakBytes: () => numberIn(join(dir, 'memory.peak')),
    remove: () => removeDirs([dir]),
  };
}

function createV1(memoryDir: string, pidsDir: string, limits: CgroupLimits): RunCgroup {
  mkdirSync(memoryDir);
  try {
    mkdirSync(pidsDir);
  } catch (error) {
    rmdirQuiet(memoryDir);
    throw error;
  }
  try {
    writeFileSync(join(memoryDir, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    // memory + swap (present with swap accounting): set after the memory limit, which it must not undercut.
    const memsw = join(memoryDir, 'memory.memsw.limit_in_bytes');
    if (existsSync(memsw)) writeFileSync(memsw, String(limits.memoryBytes));
    writeFileSync(join(pidsDir, 'pids.max'), String(limits.maxTasks));
  } catch (error) {
    rmdirQuiet(memoryDir);
    rmdirQuiet(pidsDir);
    throw error;
  }
  return {
    kind: 'cgroup-v1',
    procsFiles: [join(memoryDir, 'cgroup.procs'), join(pidsDir, 'cgroup.procs')],
    oomKills: () => keyedValue(join(memoryDir, 'memory.oom_control'), 'oom_kill'),
    peakBytes: () => numberIn(join(memoryDir, 'memory.max_usage_in_bytes')),
    remove: () => removeDirs([memoryDir, pidsDir]),
  };
}

/**
 * The v1 hierarchy folder of this process's own group for `controller` (a new group nests in it,
 * so limits set above Apiary still apply); undefined when that hierarchy is not mounted.
 */
function v1Parent(root: string, controller: string, selfCgroupFile: string): string | undefined {
  const mount = join(root, controller);
  if (!existsSync(join(mount, 'cgroup.procs'))) return undefined;
  const own = readFileSync(selfCgroupFile, 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[1]?.split(',').includes(controller))?.[2];
  return own === undefined ? undefined : join(mount, own);
}

/** `key N` from a flat keyed file (memory.events, memory.oom_control); 0 when absent. */
function keyedValue(path: string, key: string): number {
  try {
    const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(readFileSync(path, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function numberIn(path: string): number | undefined {
  try {
    const value = Number(readFileSync(path, 'utf8').trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function rmdirQuiet(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * rmdir fails with EBUSY until the kernel has reaped the group's last task (a few ms after bwrap
 * exits): retry soon, then less often, for up to about 2 s.
 */
async function removeDirs(dirs: string[]): Promise<void> {
  let left = dirs;
  for (let attempt = 0; attempt < 50 && left.length > 0; attempt++) {
    left = left.filter((dir) => !rmdirQuiet(dir));
    if (left.length > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1 + attempt * 5, 50)));
  }
}
