import { z } from 'zod';

/**
 * Resource limits of one sandboxed Python run. Every limit is set before the user's code starts
 * (soft = hard, so the code cannot raise it again); the wall time and the output size are
 * enforced from outside by killing the sandbox.
 */
export const SandboxLimitsSchema = z.object({
  /** Wall-clock time of the whole run, start-up included; the sandbox is killed after it. */
  wallMs: z.number().int().positive().default(20_000),
  /** CPU seconds (RLIMIT_CPU): an endless computation dies with SIGXCPU. */
  cpuSeconds: z.number().int().positive().default(15),
  /**
   * Memory of the whole sandbox in bytes: every process and the tmpfs work folder together (a
   * cgroup's memory limit; in the fallback one process whose RLIMIT_AS is this minus the disk
   * limit and the supervisor's share). Each process also has it as RLIMIT_AS, so one huge
   * allocation raises MemoryError instead of waking the OOM killer.
   */
  memoryBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024 * 1024),
  /**
   * Processes and threads the code may run, its own included (a cgroup's pids.max plus RLIMIT_NPROC
   * in the sandbox's user namespace). Without a cgroup the code gets exactly one (no fork, no thread).
   */
  maxProcesses: z.number().int().positive().default(16),
  /** Size of any one file the code writes (RLIMIT_FSIZE). */
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /**
   * Bytes the run may write in all (the size of its tmpfs work folder, inputs included). Written
   * files come back to the host through a bounded stream; nothing reaches the host's disk before.
   */
  maxDiskBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  /**
   * Files and folders the run may have in its work folder at once (the tmpfs's used inodes, looked
   * at from outside every 50 ms); more ends the run (`limit: 'disk-files'`).
   */
  maxDiskFiles: z.number().int().positive().default(10_000),
  /** Open file descriptors (RLIMIT_NOFILE). */
  maxOpenFiles: z.number().int().positive().default(256),
  /** Bytes kept of stdout and of stderr each; more output ends the run (`limit: 'output'`). */
  maxOutputBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
});
export type SandboxLimits = z.infer<typeof SandboxLimitsSchema>;

/**
 * How code is isolated. `bwrap`: bubblewrap namespaces (the only safe choice). `unsafe-none`: no
 * isolation at all, only the resource limits; for machines where user namespaces are disabled,
 * and only when a person chose it (the run result says so).
 */
export const SandboxIsolationSchema = z.enum(['bwrap', 'unsafe-none']);
export type SandboxIsolation = z.infer<typeof SandboxIsolationSchema>;

export const SandboxOptionsSchema = z.object({
  /** The interpreter; Debian's, which has python3-sympy and python3-matplotlib beside it. */
  pythonPath: z.string().default('/usr/bin/python3'),
  /** bubblewrap; found on PATH when not given. */
  bwrapPath: z.string().optional(),
  isolation: SandboxIsolationSchema.default('bwrap'),
  /**
   * The user the sandbox runs as when Apiary runs as root (root's process count is not limited
   * by the kernel, so a fork bomb is only stopped under another user). Default: nobody.
   */
  rootRunsAs: z
    .object({ uid: z.number().int().nonnegative(), gid: z.number().int().nonnegative() })
    .default({ uid: 65534, gid: 65534 }),
  /** Where fresh work folders are made (must be reachable by `rootRunsAs`); default os.tmpdir(). */
  tempRoot: z.string().optional(),
  /**
   * `auto`: a cgroup per run bounds memory and tasks of the whole sandbox where this process may
   * make one (root; v2, or v1 memory + pids); else, and with `off`, the single-process fallback.
   */
  cgroup: z.enum(['auto', 'off']).default('auto'),
  /** Overrides of the default limits (see SandboxLimitsSchema). */
  limits: SandboxLimitsSchema.partial().optional(),
});
export type SandboxOptions = z.input<typeof SandboxOptionsSchema>;
export type ResolvedSandboxOptions = z.infer<typeof SandboxOptionsSchema>;

/** The Debian packages the sandbox and GTA's Python tools need, for error messages. */
export const SANDBOX_DEBIAN_PACKAGES = 'bubblewrap python3 python3-sympy python3-matplotlib';

/** Environment variable that selects the isolation (`unsafe-none` to opt out, knowingly). */
export const SANDBOX_ISOLATION_ENV = 'APIARY_SANDBOX_ISOLATION';
