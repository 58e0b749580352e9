import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, statfsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ApiaryError } from '../../shared/index.js';
import { type BootstrapConfig, PYTHON_BOOTSTRAP, rlimitsFor } from './bootstrap.js';
import {
  bwrapArgs,
  HOST_OUT_DIR,
  ROOT_LIBRARY_PATHS,
  type RootEntry,
  SANDBOX_HOME_DIRS,
  SANDBOX_INPUT_DIR,
  SANDBOX_PRIVATE_DIRS,
  SANDBOX_WORK_DIR,
  sandboxEnvironment,
} from './bwrap-args.js';
import { createRunCgroup, type RunCgroup } from './cgroup.js';
import {
  type ResolvedSandboxOptions,
  SANDBOX_ISOLATION_ENV,
  type SandboxIsolation,
  SandboxIsolationSchema,
  type SandboxLimits,
  SandboxLimitsSchema,
  type SandboxOptions,
  SandboxOptionsSchema,
} from './config.js';
import { countTasksOfUser } from './process-count.js';
import { exitOf, parseStatus, type SandboxLimitHit, STATUS_FD, TRANSFER_FD, watch } from './process-watch.js';
import {
  type BwrapFeatures,
  bwrapFeatures,
  bwrapSetupError,
  findBwrap,
  NO_TMPFS_SIZE,
  sandboxProblem,
} from './requirements.js';
import { MAX_TRANSFER_NAME, parseTransfer, TRANSFER_HEADER_ROOM, writeTransferred } from './transfer.js';
import {
  collectFiles,
  ENTRY_FILE,
  listWrittenFiles,
  MAX_LISTED_FILES,
  readNoFollow,
  removeTree,
  type SandboxFile,
  safeRelativeName,
} from './work-folder.js';

/**
 * What bounds the sandbox as a whole: a cgroup per run (memory and tasks of every process
 * together), else one process (`single-process`: no fork, no thread, so RLIMIT_AS bounds it all);
 * `rlimits` only without isolation (per process, as the rlimits are).
 */
export type SandboxBounds = 'cgroup-v2' | 'cgroup-v1' | 'single-process' | 'rlimits';

/** In the single-process fallback, memory kept for bwrap's init and the bootstrap's supervisor. */
const SUPERVISOR_RESERVE_BYTES = 32 * 1024 * 1024;
/** Tasks of a run that are not the code's: the outer bwrap, its init and the supervisor. */
const SANDBOX_OWN_TASKS = 3;
/** Joins the cgroups named before `--` (one `cgroup.procs` per hierarchy), then runs the rest. */
const JOIN_CGROUP = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

export interface PythonRunRequest {
  /** The program, run as `__main__` from the work folder (`/sandbox/main.py`). */
  code: string;
  /** Input files written into the work folder first, by relative name. */
  files?: Record<string, string | Uint8Array>;
  /** Command-line arguments (`sys.argv[1:]`). */
  args?: string[];
  /** Modules the code needs; a missing one is reported before anything runs. */
  modules?: readonly string[];
  /** Copy the regular files the run wrote into this host folder (listed in `files` with `path`). */
  collectInto?: string;
  /** Written files whose bytes to return (`files[i].data`), by relative name. */
  read?: readonly string[];
  /** Overrides of the sandbox's limits for this run. */
  limits?: Partial<SandboxLimits>;
  signal?: AbortSignal;
}

export interface PythonRunResult {
  /** Python's exit status; null when it died by a signal or was killed. */
  exitCode: number | null;
  /** The signal that ended Python (`SIGXCPU` for the CPU limit, `SIGKILL`, …). */
  signal: NodeJS.Signals | null;
  limit: SandboxLimitHit | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  durationMs: number;
  /** Regular files the code wrote into the work folder (not symlinks, not inputs). */
  files: SandboxFile[];
  isolation: SandboxIsolation;
  bounds: SandboxBounds;
  /** Highest memory use of the whole sandbox (its cgroup's peak, tmpfs included); null without a cgroup. */
  memoryPeakBytes: number | null;
}

export interface SandboxDeps {
  now?: () => number;
  /** Environment read for APIARY_SANDBOX_ISOLATION (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs Python code in a bubblewrap sandbox: no network, a read-only system, a fresh work folder
 * as the only writable place, a clean environment, limits on time, CPU, memory, processes, file
 * size and output. One instance per configuration; runs are independent and may overlap.
 */
export class PythonSandbox {
  readonly options: ResolvedSandboxOptions;
  private readonly now: () => number;
  private readonly bwrap: string | undefined;
  private features: BwrapFeatures | undefined;
  private readonly problems = new Map<string, string | undefined>();
  private fontList: Promise<FontList | undefined> | undefined;

  constructor(options: SandboxOptions = {}, deps: SandboxDeps = {}) {
    const env = deps.env ?? process.env;
    const fromEnv = env[SANDBOX_ISOLATION_ENV];
    const isolation =
      options.isolation ?? (fromEnv ? parseIsolation(fromEnv) : undefined) ?? ('bwrap' as const);
    this.options = SandboxOptionsSchema.parse({ ...options, isolation });
    this.now = deps.now ?? (() => performance.now());
    this.bwrap = findBwrap(this.options.bwrapPath);
  }

  get isolation(): SandboxIsolation {
    return this.options.isolation;
  }

  /** Why runs needing `modules` cannot happen here (what to install); undefined when ready. */
  unavailable(modules: readonly string[] = []): string | undefined {
    const key = [...modules].sort().join(',');
    if (!this.problems.has(key))
      this.problems.set(
        key,
        sandboxProblem({
          bwrap: this.bwrap,
          needsBwrap: this.isolation === 'bwrap',
          pythonPath: this.options.pythonPath,
          modules,
        }) ?? this.namespaceProblem(),
      );
    return this.problems.get(key);
  }

  private namespaceChecked = false;
  private namespaceProblemFound: string | undefined;

  /**
   * Whether bwrap can build a sandbox here at all (user namespaces allowed, reachable as the
   * sandbox user): one empty Python start in a minimal sandbox, checked once per instance.
   */
  private namespaceProblem(): string | undefined {
    if (this.isolation !== 'bwrap' || this.namespaceChecked) return this.namespaceProblemFound;
    this.namespaceChecked = true;
    const runAs = runAsFor(this.options);
    const args = ['--unshare-all', '--unshare-user', '--die-with-parent', '--ro-bind', '/usr', '/usr'];
    for (const entry of hostRootEntries())
      args.push(
        ...(entry.kind === 'symlink'
          ? ['--symlink', entry.target, entry.path]
          : ['--ro-bind', entry.path, entry.path]),
      );
    args.push('--proc', '/proc', '--dev', '/dev', '--', this.options.pythonPath, '-I', '-c', 'pass');
    const probe = spawnSync(this.bwrap!, args, {
      encoding: 'utf8',
      env: {},
      timeout: 10_000,
      ...(runAs ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    if (probe.status !== 0)
      this.namespaceProblemFound = bwrapSetupError(
        `${probe.stderr ?? ''}${probe.error ? probe.error.message : ''}`,
      );
    return this.namespaceProblemFound;
  }

  /**
   * Runs `code` and returns what happened. Code that fails, loops or floods is a result (exit
   * status, signal, `limit`); only a sandbox that cannot start throws (`TOOL_FAILED`).
   */
  async run(request: PythonRunRequest): Promise<PythonRunResult> {
    const problem = this.unavailable(request.modules ?? []);
    if (problem) throw new ApiaryError('TOOL_FAILED', problem);
    const limits = SandboxLimitsSchema.parse({ ...this.options.limits, ...request.limits });
    const runAs = runAsFor(this.options);
    const own = request.modules?.includes('matplotlib') ? await this.matplotlibFontList() : undefined;
    const workDir = await this.prepareWorkDir(request, runAs, own);
    try {
      return await this.execute(request, limits, workDir, runAs);
    } finally {
      await removeTree(workDir);
    }
  }

  /**
   * matplotlib's font list, built once per instance by a run of our own code (never from a user
   * run, which could have tampered with it) and copied into each run that imports matplotlib:
   * otherwise every fresh home folder rebuilds it.
   */
  private matplotlibFontList(): Promise<FontList | undefined> {
    this.fontList ??= this.run({
      code: BUILD_FONT_LIST,
      read: ['fontlist.json', 'fontlist.name'],
    }).then(
      (run) => {
        const data = run.files.find((f) => f.name === 'fontlist.json')?.data;
        const name = run.files.find((f) => f.name === 'fontlist.name')?.data?.toString('utf8');
        return data && name && /^fontlist-v\d+\.json$/.test(name) ? { name, data } : undefined;
      },
      () => undefined,
    );
    return this.fontList;
  }

  private async prepareWorkDir(
    request: PythonRunRequest,
    runAs: RunAs | undefined,
    fontList: FontList | undefined,
  ): Promise<string> {
    const workDir = await mkdtemp(join(this.options.tempRoot ?? tmpdir(), 'apiary-sandbox-'));
    const made = [workDir];
    for (const dir of SANDBOX_HOME_DIRS) {
      await mkdir(join(workDir, dir));
      made.push(join(workDir, dir));
    }
    if (fontList) {
      const dir = join(workDir, MATPLOTLIB_CONFIG_DIR);
      await mkdir(dir);
      await writeFile(join(dir, fontList.name), fontList.data);
      made.push(dir, join(dir, fontList.name));
    }
    await writeFile(join(workDir, ENTRY_FILE), request.code);
    made.push(join(workDir, ENTRY_FILE));
    for (const [name, content] of Object.entries(request.files ?? {})) {
      const target = join(workDir, safeRelativeName(name));
      for (let dir = dirname(target); dir !== workDir && !made.includes(dir); dir = dirname(dir))
        made.push(dir);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
      made.push(target);
    }
    if (runAs) for (const path of made) await chown(path, runAs.uid, runAs.gid);
    return workDir;
  }

  private async execute(
    request: PythonRunRequest,
    limits: SandboxLimits,
    workDir: string,
    runAs: RunAs | undefined,
  ): Promise<PythonRunResult> {
    const sandboxed = this.isolation === 'bwrap';
    // setpriv (util-linux) makes bwrap itself die with us; bwrap's --die-with-parent covers
    // only the sandboxed child. It also drops to the sandbox user after joining a cgroup.
    const guard = existsSync(SETPRIV);
    const cgroup =
      sandboxed && this.options.cgroup === 'auto' && (guard || !runAs)
        ? createRunCgroup({
            memoryBytes: limits.memoryBytes,
            maxTasks: limits.maxProcesses + SANDBOX_OWN_TASKS,
          })
        : undefined;
    try {
      return await this.executeBounded(request, limits, workDir, runAs, guard, cgroup);
    } finally {
      await cgroup?.remove();
    }
  }

  private async executeBounded(
    request: PythonRunRequest,
    limits: SandboxLimits,
    workDir: string,
    runAs: RunAs | undefined,
    guard: boolean,
    cgroup: RunCgroup | undefined,
  ): Promise<PythonRunResult> {
    const sandboxed = this.isolation === 'bwrap';
    const bounds: SandboxBounds = cgroup?.kind ?? (sandboxed ? 'single-process' : 'rlimits');
    const base = sandboxed ? SANDBOX_WORK_DIR : workDir;
    const inputs = new Set([ENTRY_FILE, ...Object.keys(request.files ?? {}).map(safeRelativeName)]);
    const config: BootstrapConfig = {
      rlimits: rlimitsFor({
        ...limits,
        // Alone in the sandbox, the code's one process holds all memory but the tmpfs and ours.
        memoryBytes:
          bounds === 'single-process'
            ? Math.max(limits.memoryBytes - limits.maxDiskBytes - SUPERVISOR_RESERVE_BYTES, 64 * 1024 ** 2)
            : limits.memoryBytes,
        // In bwrap the count is per user namespace (bwrap's init and the supervisor count too);
        // without it every task of the user counts, so add those already running.
        processCap:
          limits.maxProcesses +
          (sandboxed ? SANDBOX_OWN_TASKS - 1 : countTasksOfUser(runAs?.uid ?? process.getuid?.() ?? 0)),
      }),
      singleProcess: bounds === 'single-process',
      transfer: sandboxed
        ? {
            fd: TRANSFER_FD,
            input: SANDBOX_INPUT_DIR,
            skip: [...inputs],
            private: SANDBOX_PRIVATE_DIRS,
            maxFiles: MAX_LISTED_FILES,
            maxBytes: limits.maxDiskBytes,
            maxName: MAX_TRANSFER_NAME,
          }
        : null,
    };
    const python = [
      this.options.pythonPath,
      '-I',
      '-B',
      '-c',
      PYTHON_BOOTSTRAP,
      JSON.stringify(config),
      `${base}/${ENTRY_FILE}`,
      ...(request.args ?? []),
    ];
    if (sandboxed && !this.bwrapFeatures().tmpfsSize && !cgroup)
      throw new ApiaryError('TOOL_FAILED', `the sandbox could not start: ${NO_TMPFS_SIZE}`);
    const [file, args] = sandboxed
      ? this.bwrapCommand(workDir, limits.maxDiskBytes, python)
      : [python[0]!, python.slice(1)];
    const [command, commandArgs] = launcher(file, args, guard, cgroup, runAs);
    const t0 = this.now();
    // Its own process group lets a limit kill everything at once.
    const child = spawn(command, commandArgs, {
      cwd: workDir,
      env: sandboxed ? {} : sandboxEnvironment(workDir),
      stdio: sandboxed ? ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
      detached: true,
      // With a cgroup the launcher joins it as root and setpriv drops to the sandbox user.
      ...(runAs && !cgroup ? { uid: runAs.uid, gid: runAs.gid } : {}),
    });
    const ended = await watch(child, limits, request.signal, {
      transferBytes: limits.maxDiskBytes + TRANSFER_HEADER_ROOM,
      ...(sandboxed ? { poll: outsideLimits(cgroup, limits.maxDiskFiles) } : {}),
    });
    const durationMs = this.now() - t0;
    const memoryPeakBytes = cgroup?.peakBytes() ?? null;
    const status = sandboxed ? parseStatus(ended.status) : undefined;
    if (sandboxed && ended.limit === null && status?.exitCode === undefined) {
      const why = bwrapSetupError(ended.stderr.text());
      const hint = runAs && /Permission denied/.test(why) ? unreachableHint(runAs, this.options) : '';
      throw new ApiaryError('TOOL_FAILED', `${why}${hint}`);
    }
    const exit = exitOf(status?.exitCode ?? ended.code, ended.signal, sandboxed);
    // In bwrap the written files exist only in the stream the sandbox sent back; the host writes
    // them into a folder of the work folder made now (the sandbox is gone), only if there are any.
    const filesDir = sandboxed ? join(workDir, HOST_OUT_DIR) : workDir;
    if (sandboxed)
      await writeTransferred(
        filesDir,
        parseTransfer(ended.transfer.buffer(), (name) => inputs.has(name)),
      );
    const files = await listWrittenFiles(filesDir, sandboxed ? new Set() : inputs);
    if (request.collectInto) await collectFiles(filesDir, files, request.collectInto);
    for (const file of files)
      if (request.read?.includes(file.name)) file.data = await readNoFollow(join(filesDir, file.name));
    return {
      ...exit,
      limit: ended.limit,
      stdout: ended.stdout.text(),
      stderr: ended.stderr.text(),
      stdoutTruncated: ended.stdout.truncated,
      stderrTruncated: ended.stderr.truncated,
      durationMs,
      files,
      isolation: this.isolation,
      bounds,
      memoryPeakBytes,
    };
  }

  private bwrapFeatures(): BwrapFeatures {
    this.features ??= bwrapFeatures(this.bwrap!);
    return this.features;
  }

  private bwrapCommand(workDir: string, workBytes: number, python: string[]): [string, string[]] {
    const bwrap = this.bwrap!;
    const features = this.bwrapFeatures();
    return [
      bwrap,
      bwrapArgs({
        workDir,
        rootEntries: hostRootEntries(),
        readOnlyBinds: pythonOutsideUsr(this.options.pythonPath),
        disableNestedUserns: features.disableUserns,
        // Without --size the tmpfs is bounded by the cgroup's memory limit only (checked by the caller).
        ...(features.tmpfsSize ? { workBytes } : {}),
        statusFd: STATUS_FD,
        command: python,
      }),
    ];
  }
}

const SETPRIV = '/usr/bin/setpriv';

/**
 * The limits only a look from outside sees: an OOM kill in the run's cgroup, and the files and
 * folders in its tmpfs (inodes are kernel memory the tmpfs size does not count: without a cgroup
 * an empty-file loop would grow it unbounded). The tmpfs is reached through /proc/<pid>/root of
 * the sandbox's init, whose pid bwrap reports first on its status fd.
 */
function outsideLimits(
  cgroup: RunCgroup | undefined,
  maxDiskFiles: number,
): (status: string) => SandboxLimitHit | null {
  const oomBefore = cgroup?.oomKills() ?? 0;
  return (status) => {
    if (cgroup && cgroup.oomKills() > oomBefore) return 'memory';
    const pid = /"child-pid":\s*(\d+)/.exec(status)?.[1];
    if (!pid) return null;
    try {
      const fs = statfsSync(`/proc/${pid}/root${SANDBOX_WORK_DIR}`);
      // Counted against what the tmpfs has room for (f_files), so the root folder itself counts too.
      if (fs.files - fs.ffree > maxDiskFiles) return 'disk-files';
    } catch {
      // not built yet, or already gone
    }
    return null;
  };
}

/**
 * The command that starts `file`: through setpriv where there is one (death with Apiary), and
 * with a cgroup through a shell that joins it first (as root: the group's files are root's),
 * setpriv then dropping to the sandbox user. Everything bwrap forks inherits the group, so
 * nothing escapes its limits. (A cgroup with a sandbox user is only made where setpriv exists.)
 */
function launcher(
  file: string,
  args: string[],
  guard: boolean,
  cgroup: RunCgroup | undefined,
  runAs: RunAs | undefined,
): [string, string[]] {
  const user =
    cgroup && runAs ? ['--reuid', String(runAs.uid), '--regid', String(runAs.gid), '--clear-groups'] : [];
  const command = guard ? [SETPRIV, ...user, '--pdeathsig', 'KILL', '--', file, ...args] : [file, ...args];
  if (!cgroup) return [command[0]!, command.slice(1)];
  return ['/bin/sh', ['-c', JOIN_CGROUP, 'sh', ...cgroup.procsFiles, '--', ...command]];
}

interface FontList {
  name: string;
  data: Buffer;
}

/** Where MPLCONFIGDIR points, relative to the work folder (see sandboxEnvironment). */
const MATPLOTLIB_CONFIG_DIR = '.home/matplotlib';

/**
 * Builds matplotlib's font list and copies it where the host can read it back. Building it starts
 * a threading.Timer (a "building the font cache" warning after 5 s), which the single-process
 * fallback refuses: this run of our own code replaces Timer by one that never starts a thread.
 */
const BUILD_FONT_LIST = `import glob, os, shutil, threading
class _QuietTimer:
    def __init__(self, *args, **kwargs):
        pass
    def start(self):
        pass
    def cancel(self):
        pass
threading.Timer = _QuietTimer
import matplotlib.font_manager
found = sorted(glob.glob(os.path.join(os.environ['MPLCONFIGDIR'], 'fontlist-*.json')))
if found:
    shutil.copy(found[-1], 'fontlist.json')
    open('fontlist.name', 'w').write(os.path.basename(found[-1]))
`;

interface RunAs {
  uid: number;
  gid: number;
}

/** Root's process count is never limited by the kernel: root runs the sandbox as another user. */
function runAsFor(options: ResolvedSandboxOptions): RunAs | undefined {
  return process.getuid?.() === 0 ? options.rootRunsAs : undefined;
}

function unreachableHint(runAs: RunAs, options: ResolvedSandboxOptions): string {
  return (
    ` (Apiary runs as root, so the sandbox runs as uid ${runAs.uid}: the temp root ` +
    `${options.tempRoot ?? tmpdir()} and the bwrap binary must be reachable by that user)`
  );
}

function parseIsolation(value: string): SandboxIsolation {
  const parsed = SandboxIsolationSchema.safeParse(value);
  if (!parsed.success)
    throw new ApiaryError('USAGE', `${SANDBOX_ISOLATION_ENV}=${value}: expected "bwrap" or "unsafe-none"`);
  return parsed.data;
}

function hostRootEntries(): RootEntry[] {
  const entries: RootEntry[] = [];
  for (const path of ROOT_LIBRARY_PATHS) {
    try {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) entries.push({ path, kind: 'symlink', target: readlinkSync(path) });
      else if (stat.isDirectory()) entries.push({ path, kind: 'dir' });
    } catch {
      // absent on this system
    }
  }
  return entries;
}

/** A configured Python outside /usr needs its installation folder visible (read-only). */
function pythonOutsideUsr(pythonPath: string): string[] {
  if (pythonPath.startsWith('/usr/') || pythonPath.startsWith('/bin/')) return [];
  return [dirname(dirname(pythonPath))];
}
