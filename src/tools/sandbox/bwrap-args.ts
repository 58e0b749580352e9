/** Where things are inside the sandbox: the work folder (a size-limited tmpfs) and its inputs. */
export const SANDBOX_WORK_DIR = '/sandbox';
export const SANDBOX_INPUT_DIR = '/.input';
/**
 * Folders of the work folder that are the sandbox's own (home, temp, and where the host puts the
 * files sent back), not files the code wrote.
 */
export const SANDBOX_PRIVATE_DIRS = ['.home', '.tmp', '.out'];
/** The sandbox's home and temp folders, made in every work folder. */
export const SANDBOX_HOME_DIRS = ['.home', '.tmp'];
/** Where, in the host's work folder, the files the sandbox sent back are written after the run. */
export const HOST_OUT_DIR = '.out';

/** A top-level system path as it is on the host: merged-/usr systems make /lib etc. symlinks. */
export type RootEntry = { path: string; kind: 'dir' } | { path: string; kind: 'symlink'; target: string };

/** The top-level paths Python may need besides /usr (checked on the host: symlink or folder). */
export const ROOT_LIBRARY_PATHS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * Files under /etc that Python, the dynamic loader and matplotlib read; bound read-only when
 * present. Nothing else of /etc (no passwd, shadow, hosts, resolv.conf) is visible.
 */
export const ETC_READ_ONLY = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/matplotlibrc',
  '/etc/fonts',
  '/etc/mime.types',
];

/** The clean environment of sandboxed Python: nothing is inherited from the parent. */
export function sandboxEnvironment(workDir = SANDBOX_WORK_DIR): Record<string, string> {
  return {
    HOME: `${workDir}/.home`,
    MPLCONFIGDIR: `${workDir}/.home/matplotlib`,
    XDG_CACHE_HOME: `${workDir}/.home/.cache`,
    TMPDIR: `${workDir}/.tmp`,
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    MPLBACKEND: 'Agg',
    // One thread each: BLAS thread pools would count against the process limit.
    OPENBLAS_NUM_THREADS: '1',
    OMP_NUM_THREADS: '1',
  };
}

export interface BwrapArgsInput {
  /** The host folder with the run's inputs, bound read-only at /.input (copied into /sandbox). */
  workDir: string;
  /** Size of the tmpfs at /sandbox, the only writable place: the run's disk limit (absent: bwrap < 0.7). */
  workBytes?: number;
  rootEntries: RootEntry[];
  /** Extra host paths bound read-only at the same place (a Python outside /usr). */
  readOnlyBinds: string[];
  /** bwrap ≥ 0.8 can forbid nested user namespaces. */
  disableNestedUserns: boolean;
  /** The fd bwrap writes its JSON status to (child pid, exit code). */
  statusFd: number;
  command: string[];
}

/**
 * The bwrap command line: every namespace unshared (no network: no --share-net), a read-only
 * system, one writable work folder that is a tmpfs of fixed size (nothing the code writes
 * reaches the host's disk; the bootstrap sends the written files back), a clean environment, a
 * new session (no terminal injection), death with the parent, and a read-only root so nothing
 * else can be created.
 */
export function bwrapArgs(input: BwrapArgsInput): string[] {
  const args = ['--unshare-all', '--unshare-user'];
  if (input.disableNestedUserns) args.push('--disable-userns');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--hostname', 'sandbox');
  args.push('--clearenv');
  for (const [key, value] of Object.entries(sandboxEnvironment())) args.push('--setenv', key, value);
  args.push('--ro-bind', '/usr', '/usr');
  for (const entry of input.rootEntries) {
    if (entry.kind === 'symlink') args.push('--symlink', entry.target, entry.path);
    else args.push('--ro-bind', entry.path, entry.path);
  }
  for (const path of ETC_READ_ONLY) args.push('--ro-bind-try', path, path);
  for (const path of input.readOnlyBinds) args.push('--ro-bind', path, path);
  // /dev is a fresh tmpfs with the harmless devices (null, zero, urandom…): made read-only too
  // (writing to a device still works on a read-only mount).
  args.push('--proc', '/proc', '--dev', '/dev', '--remount-ro', '/dev');
  args.push('--ro-bind', input.workDir, SANDBOX_INPUT_DIR);
  if (input.workBytes !== undefined) args.push('--size', String(input.workBytes));
  args.push('--perms', '0700', '--tmpfs', SANDBOX_WORK_DIR);
  args.push('--chdir', SANDBOX_WORK_DIR);
  args.push('--remount-ro', '/');
  args.push('--json-status-fd', String(input.statusFd));
  args.push('--', ...input.command);
  return args;
}
