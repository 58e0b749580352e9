import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rlimitsFor } from './bootstrap.js';
import { BoundedOutput } from './bounded-output.js';
import { bwrapArgs, sandboxEnvironment } from './bwrap-args.js';
import { SandboxLimitsSchema } from './config.js';
import { describeRunFailure } from './describe.js';
import { tasksIfOwnedBy } from './process-count.js';
import { bwrapSetupError, findBwrap, sandboxProblem } from './requirements.js';
import type { PythonRunResult } from './sandbox.js';

const scratch = mkdtempSync(join(tmpdir(), 'apiary-sandbox-parts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('bwrapArgs', () => {
  const args = bwrapArgs({
    workDir: '/tmp/w1',
    rootEntries: [
      { path: '/lib', kind: 'symlink', target: 'usr/lib' },
      { path: '/lib64', kind: 'dir' },
    ],
    readOnlyBinds: ['/opt/py'],
    disableNestedUserns: true,
    statusFd: 3,
    command: ['/usr/bin/python3', '-c', 'pass'],
  });
  const joined = args.join(' ');

  it('unshares everything (network too) and never shares the network back', () => {
    expect(args.slice(0, 3)).toEqual(['--unshare-all', '--unshare-user', '--disable-userns']);
    expect(args).not.toContain('--share-net');
    expect(args).toContain('--die-with-parent');
    expect(args).toContain('--new-session');
  });

  it('binds the system read-only and only the work folder writable', () => {
    expect(joined).toContain('--ro-bind /usr /usr');
    expect(joined).toContain('--symlink usr/lib /lib');
    expect(joined).toContain('--ro-bind /lib64 /lib64');
    expect(joined).toContain('--ro-bind /opt/py /opt/py');
    expect(joined).toContain('--ro-bind-try /etc/matplotlibrc /etc/matplotlibrc');
    const writable = args.flatMap((a, i) => (a === '--bind' ? [`${args[i + 1]}→${args[i + 2]}`] : []));
    expect(writable).toEqual(['/tmp/w1→/sandbox']);
    expect(joined).toContain('--remount-ro /dev');
    expect(args.slice(args.lastIndexOf('--remount-ro'), args.lastIndexOf('--remount-ro') + 2)).toEqual([
      '--remount-ro',
      '/',
    ]);
    expect(joined).not.toMatch(/\/etc\/(passwd|shadow|hosts|resolv)/);
  });

  it('clears the environment and sets only its own variables; the command comes last', () => {
    expect(args).toContain('--clearenv');
    const set = args.flatMap((a, i) => (a === '--setenv' ? [args[i + 1]] : []));
    expect(set).toEqual(Object.keys(sandboxEnvironment()));
    expect(sandboxEnvironment().MPLCONFIGDIR).toBe('/sandbox/.home/matplotlib');
    expect(args.slice(-5)).toEqual(['3', '--', '/usr/bin/python3', '-c', 'pass']);
  });

  it('leaves --disable-userns out for an older bwrap', () => {
    const old = bwrapArgs({
      workDir: '/w',
      rootEntries: [],
      readOnlyBinds: [],
      disableNestedUserns: false,
      statusFd: 3,
      command: ['p'],
    });
    expect(old).not.toContain('--disable-userns');
  });
});

describe('rlimitsFor', () => {
  it('gives hard limits, CPU with one second between SIGXCPU and SIGKILL', () => {
    expect(
      rlimitsFor({ cpuSeconds: 5, memoryBytes: 1000, processCap: 7, maxFileBytes: 10, maxOpenFiles: 64 }),
    ).toEqual({
      RLIMIT_CPU: [5, 6],
      RLIMIT_AS: [1000, 1000],
      RLIMIT_NPROC: [7, 7],
      RLIMIT_FSIZE: [10, 10],
      RLIMIT_NOFILE: [64, 64],
      RLIMIT_CORE: [0, 0],
    });
  });
});

describe('BoundedOutput', () => {
  it('keeps the first maxBytes and reports the overflow once', () => {
    let overflows = 0;
    const out = new BoundedOutput(5, () => overflows++);
    out.add(Buffer.from('abc'));
    expect(out.truncated).toBe(false);
    out.add(Buffer.from('defg'));
    out.add(Buffer.from('hij'));
    expect(out.text()).toBe('abcde');
    expect(out.bytes).toBe(5);
    expect(out.truncated).toBe(true);
    expect(overflows).toBe(1);
  });

  it('an exact fit is not an overflow', () => {
    let overflows = 0;
    const out = new BoundedOutput(3, () => overflows++);
    out.add(Buffer.from('abc'));
    expect([out.text(), out.truncated, overflows]).toEqual(['abc', false, 0]);
  });
});

describe('tasksIfOwnedBy', () => {
  const status = 'Name:\tpython3\nUid:\t65534\t65534\t65534\t65534\nThreads:\t3\n';
  it('counts the threads of a process whose real uid matches', () => {
    expect(tasksIfOwnedBy(status, 65534)).toBe(3);
    expect(tasksIfOwnedBy(status, 0)).toBe(0);
    expect(tasksIfOwnedBy('Name:\tx\n', 0)).toBe(0);
  });
});

describe('describeRunFailure', () => {
  const limits = SandboxLimitsSchema.parse({ wallMs: 2500, cpuSeconds: 3 });
  const run = (over: Partial<PythonRunResult>): PythonRunResult => ({
    exitCode: 0,
    signal: null,
    limit: null,
    stdout: '',
    stderr: '',
    stdoutTruncated: false,
    stderrTruncated: false,
    durationMs: 1,
    files: [],
    isolation: 'bwrap',
    ...over,
  });

  it('names the limit and its value', () => {
    expect(describeRunFailure(run({ limit: 'wall-time', signal: 'SIGKILL' }), limits)).toBe(
      'timed out after 2.5 s (wall-clock limit)',
    );
    expect(describeRunFailure(run({ signal: 'SIGXCPU', exitCode: null }), limits)).toBe(
      'used more than 3 s of CPU time (CPU limit)',
    );
    expect(describeRunFailure(run({ limit: 'output' }), limits)).toBe(
      'printed more than 1048576 bytes (output limit); the run was stopped',
    );
    expect(describeRunFailure(run({ exitCode: 1, stderr: 'Traceback…\nMemoryError\n' }), limits)).toBe(
      'exited with status 1: MemoryError',
    );
    expect(describeRunFailure(run({}), limits)).toBeUndefined();
  });
});

describe('requirements', () => {
  it('names the Debian packages when bwrap is missing', () => {
    expect(findBwrap(join(scratch, 'no-bwrap'))).toBeUndefined();
    expect(findBwrap(undefined, scratch)).toBe(findBwrap(undefined, ''));
    expect(
      sandboxProblem({ bwrap: undefined, needsBwrap: true, pythonPath: '/usr/bin/python3', modules: [] }),
    ).toBe(
      'bubblewrap (bwrap) is not installed or not on PATH: install the Debian packages: ' +
        'apt-get install bubblewrap python3 python3-sympy python3-matplotlib',
    );
  });

  it('names the Debian packages when Python or a module is missing', () => {
    expect(
      sandboxProblem({ bwrap: '/x', needsBwrap: true, pythonPath: join(scratch, 'python3'), modules: [] }),
    ).toMatch(
      /^Python not found at .*python3: install the Debian packages: apt-get install bubblewrap python3/,
    );
    // A fake interpreter that reports every module asked for as missing.
    const fake = join(scratch, 'fake-python');
    writeFileSync(fake, '#!/bin/sh\nshift 3\necho "$@"\n');
    chmodSync(fake, 0o755);
    expect(
      sandboxProblem({ bwrap: '/x', needsBwrap: true, pythonPath: fake, modules: ['sympy', 'matplotlib'] }),
    ).toBe(
      `${fake} lacks the Python modules sympy, matplotlib: install the Debian packages: ` +
        'apt-get install bubblewrap python3 python3-sympy python3-matplotlib',
    );
  });

  it('explains what to enable when user namespaces are disabled, and offers no silent fallback', () => {
    const message = bwrapSetupError(
      'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.\n',
    );
    expect(message).toContain('kernel.unprivileged_userns_clone=1');
    expect(message).toContain('kernel.apparmor_restrict_unprivileged_userns=0');
    expect(message).toContain("isolation 'unsafe-none' (APIARY_SANDBOX_ISOLATION=unsafe-none)");
    expect(bwrapSetupError("bwrap: Can't find source path /x: No such file or directory\n")).toBe(
      "the sandbox could not start: bwrap: Can't find source path /x: No such file or directory",
    );
  });
});
