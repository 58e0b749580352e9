import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rlimitsFor } from './bootstrap.js';
import { BoundedOutput } from './bounded-output.js';
import { bwrapArgs, sandboxEnvironment } from './bwrap-args.js';
import { createRunCgroup } from './cgroup.js';
import { SandboxLimitsSchema } from './config.js';
import { describeRunFailure } from './describe.js';
import { tasksIfOwnedBy } from './process-count.js';
import { bwrapSetupError, findBwrap, sandboxProblem } from './requirements.js';
import type { PythonRunResult } from './sandbox.js';
import { parseTransfer } from './transfer.js';

const scratch = mkdtempSync(join(tmpdir(), 'apiary-sandbox-parts-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('bwrapArgs', () => {
  const args = bwrapArgs({
    workDir: '/tmp/w1',
    workBytes: 1048576,
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

  it('binds the system and the inputs read-only; the only writable place is a tmpfs of fixed size', () => {
    expect(joined).toContain('--ro-bind /usr /usr');
    expect(joined).toContain('--symlink usr/lib /lib');
    expect(joined).toContain('--ro-bind /lib64 /lib64');
    expect(joined).toContain('--ro-bind /opt/py /opt/py');
    expect(joined).toContain('--ro-bind-try /etc/matplotlibrc /etc/matplotlibrc');
    const writable = args.flatMap((a, i) => (a === '--bind' ? [`${args[i + 1]}→${args[i + 2]}`] : []));
    expect(writable).toEqual([]);
    expect(joined).toContain('--ro-bind /tmp/w1 /.input');
    expect(joined).toContain('--size 1048576 --perms 0700 --tmpfs /sandbox --chdir /sandbox');
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
      workBytes: 1,
      rootEntries: [],
      readOnlyBinds: [],
      disableNestedUserns: false,
      statusFd: 3,
      command: ['p'],
    });
    expect(old).not.toContain('--disable-userns');
    const noSize = bwrapArgs({
      workDir: '/w',
      rootEntries: [],
      readOnlyBinds: [],
      disableNestedUserns: false,
      statusFd: 3,
      command: ['p'],
    });
    // bwrap < 0.7: no --size; the sandbox then runs only with a cgroup, whose memory limit covers the tmpfs.
    expect(noSize.join(' ')).toContain('--perms 0700 --tmpfs /sandbox');
    expect(noSize).not.toContain('--size');
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
    bounds: 'cgroup-v2',
    memoryPeakBytes: null,
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
    expect(describeRunFailure(run({ limit: 'memory', signal: 'SIGKILL' }), limits)).toBe(
      'used more than 1073741824 bytes of memory, all its processes together (memory limit); the run was stopped',
    );
    expect(describeRunFailure(run({ limit: 'disk-files', signal: 'SIGKILL' }), limits)).toBe(
      'made more than 10000 files and folders (file count limit); the run was stopped',
    );
    expect(describeRunFailure(run({}), limits)).toBeUndefined();
  });
});

describe('createRunCgroup (on a fake cgroup tree)', () => {
  const limits = { memoryBytes: 1024 ** 3, maxTasks: 19 };
  const remove = (dir: string) => {
    for (const name of readdirSync(dir)) rmSync(join(dir, name));
  };

  it('v2: memory.max, swap off, OOM kills the whole group, pids.max; reads OOM kills and the peak', async () => {
    const root = mkdtempSync(join(scratch, 'v2-'));
    writeFileSync(join(root, 'cgroup.subtree_control'), 'cpu io memory pids\n');
    const group = createRunCgroup(limits, { root })!;
    expect(group.kind).toBe('cgroup-v2');
    expect(group.procsFiles).toHaveLength(1);
    const dir = dirname(group.procsFiles[0]!);
    expect(basename(dir)).toMatch(new RegExp(`^apiary-sandbox-${process.pid}-\\d+$`));
    expect(readFileSync(join(dir, 'memory.max'), 'utf8')).toBe('1073741824');
    expect(readFileSync(join(dir, 'pids.max'), 'utf8')).toBe('19');
    expect(group.oomKills()).toBe(0);
    writeFileSync(join(dir, 'memory.events'), 'low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\n');
    writeFileSync(join(dir, 'memory.peak'), '1073741824\n');
    expect([group.oomKills(), group.peakBytes()]).toEqual([2, 1024 ** 3]);
    remove(dir);
    await group.remove();
    expect(existsSync(dir)).toBe(false);
  });

  it("v1: nested in this process's own memory and pids groups", async () => {
    const root = mkdtempSync(join(scratch, 'v1-'));
    for (const dir of ['memory/outer', 'pids']) {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir.split('/')[0]!, 'cgroup.procs'), '');
    }
    const self = join(root, 'self-cgroup');
    writeFileSync(self, '8:pids:/\n4:memory:/outer\n0::/\n');
    const group = createRunCgroup(limits, { root, selfCgroupFile: self })!;
    expect(group.kind).toBe('cgroup-v1');
    const [memory, pids] = group.procsFiles.map((f) => dirname(f));
    expect(dirname(memory!)).toBe(join(root, 'memory', 'outer'));
    expect(dirname(pids!)).toBe(join(root, 'pids'));
    expect(readFileSync(join(memory!, 'memory.limit_in_bytes'), 'utf8')).toBe('1073741824');
    expect(readFileSync(join(pids!, 'pids.max'), 'utf8')).toBe('19');
    writeFileSync(join(memory!, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\noom_kill 1\n');
    expect(group.oomKills()).toBe(1);
    remove(memory!);
    remove(pids!);
    await group.remove();
    expect([existsSync(memory!), existsSync(pids!)]).toEqual([false, false]);
  });

  it("sweeps the empty groups of Apiary processes that died mid-run, not a live process's", async () => {
    const root = mkdtempSync(join(scratch, 'v2-sweep-'));
    writeFileSync(join(root, 'cgroup.subtree_control'), 'memory pids\n');
    mkdirSync(join(root, 'apiary-sandbox-999999999-1')); // no such process
    mkdirSync(join(root, `apiary-sandbox-${process.pid}-999`)); // this one, alive
    const group = createRunCgroup(limits, { root })!;
    expect(
      readdirSync(root)
        .filter((n) => n.startsWith('apiary-sandbox-'))
        .sort(),
    ).toEqual([`apiary-sandbox-${process.pid}-999`, basename(dirname(group.procsFiles[0]!))].sort());
  });

  it('no usable tree (no controllers, no v1 hierarchies): undefined, the caller falls back', () => {
    const root = mkdtempSync(join(scratch, 'none-'));
    writeFileSync(join(root, 'cgroup.subtree_control'), '\n');
    expect(createRunCgroup(limits, { root })).toBeUndefined();
  });
});

describe('parseTransfer', () => {
  const record = (name: string, data: string, bytes = Buffer.byteLength(data)) =>
    Buffer.concat([Buffer.from(`${JSON.stringify({ name, bytes })}\n`), Buffer.from(data)]);

  it('reads the files and drops unsafe names, inputs and repeats', () => {
    const stream = Buffer.concat([
      record('figure.png', 'PNG'),
      record('../escape', 'x'),
      record('/etc/passwd', 'x'),
      record('main.py', 'x'),
      record('.home/x', 'x'),
      record('command.py', 'x'),
      record('out/a.txt', 'a\nb'),
      record('figure.png', 'again'),
    ]);
    const files = parseTransfer(stream, (name) => name === 'command.py');
    expect(files.map((f) => [f.name, f.data.toString()])).toEqual([
      ['figure.png', 'PNG'],
      ['out/a.txt', 'a\nb'],
    ]);
  });

  it('stops at a malformed or cut record', () => {
    const cut = Buffer.concat([record('a', 'aa'), record('b', 'bb', 10)]);
    expect(parseTransfer(cut, () => false).map((f) => f.name)).toEqual(['a']);
    const junk = Buffer.concat([record('a', 'aa'), Buffer.from('not json\n'), record('c', 'c')]);
    expect(parseTransfer(junk, () => false).map((f) => f.name)).toEqual(['a']);
    expect(parseTransfer(Buffer.from('{"name":"a","bytes":-1}\n'), () => false)).toEqual([]);
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
