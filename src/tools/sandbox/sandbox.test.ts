import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiaryError } from '../../shared/index.js';
import { SANDBOX_DEBIAN_PACKAGES } from './config.js';
import { runPythonSolution } from './python-solution.js';
import { PythonSandbox } from './sandbox.js';

const missing = new PythonSandbox().unavailable(['sympy', 'matplotlib']);
// Reachable by every user: when tests run as root, the sandbox runs as nobody.
const scratch = mkdtempSync(join(tmpdir(), 'apiary-sandbox-test-'));
chmodSync(scratch, 0o755);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Work folders the sandbox made under `root` and did not remove. */
const leftovers = (root: string) => readdirSync(root).filter((n) => n.startsWith('apiary-sandbox-'));

describe.skipIf(missing !== undefined)(
  missing ? `PythonSandbox (skipped: ${missing})` : 'PythonSandbox',
  () => {
    const tempRoot = mkdtempSync(join(scratch, 'runs-'));
    chmodSync(tempRoot, 0o755);
    const sandbox = new PythonSandbox({ tempRoot });

    it('runs code and returns its output, exit status, timing and the files it wrote', async () => {
      const into = join(scratch, 'collected');
      const run = await sandbox.run({
        code: [
          'import sys, os',
          'print("args", sys.argv[1:])',
          'print(open("data/in.txt").read())',
          'sys.stderr.write("to stderr\\n")',
          'os.makedirs("out", exist_ok=True)',
          'open("out/a.txt", "w").write("hello")',
          'open("b.bin", "wb").write(bytes(range(4)))',
          'sys.exit(3)',
        ].join('\n'),
        files: { 'data/in.txt': 'input-file' },
        args: ['x', 'y'],
        collectInto: into,
        read: ['b.bin'],
      });
      expect(run.exitCode).toBe(3);
      expect(run.signal).toBeNull();
      expect(run.limit).toBeNull();
      expect(run.stdout).toBe("args ['x', 'y']\ninput-file\n");
      expect(run.stderr).toBe('to stderr\n');
      expect(run.isolation).toBe('bwrap');
      expect(run.durationMs).toBeGreaterThan(0);
      expect(run.files.map((f) => [f.name, f.bytes])).toEqual([
        ['b.bin', 4],
        ['out/a.txt', 5],
      ]);
      expect([...run.files[0]!.data!]).toEqual([0, 1, 2, 3]);
      expect(run.files[1]!.data).toBeUndefined();
      expect(readFileSync(join(into, 'out', 'a.txt'), 'utf8')).toBe('hello');
      expect(run.files[1]!.path).toBe(join(into, 'out', 'a.txt'));
      expect(leftovers(tempRoot)).toEqual([]);
    });

    it('shows a traceback that starts at the code, not at the sandbox bootstrap', async () => {
      const run = await sandbox.run({ code: 'x = 1\nraise ValueError("bad value")\n' });
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toBe(
        'Traceback (most recent call last):\n' +
          '  File "/sandbox/main.py", line 2, in <module>\n' +
          '    raise ValueError("bad value")\n' +
          'ValueError: bad value\n',
      );
    });

    it('sees only its clean environment and the sandbox layout', async () => {
      const run = await sandbox.run({
        code: 'import os, json\nprint(json.dumps([sorted(os.environ), sorted(os.listdir("/")), os.getcwd()]))\nprint(os.getuid())',
      });
      const [listing, uid] = run.stdout.trim().split('\n');
      // Root's sandbox runs as nobody; anyone else's as themselves (mapped in its user namespace).
      expect(Number(uid)).toBe(process.getuid!() === 0 ? 65534 : process.getuid!());
      expect(JSON.parse(listing!)).toEqual([
        [
          'HOME',
          'LANG',
          'MPLBACKEND',
          'MPLCONFIGDIR',
          'OMP_NUM_THREADS',
          'OPENBLAS_NUM_THREADS',
          'PATH',
          'PWD',
          'TMPDIR',
          'XDG_CACHE_HOME',
        ],
        expect.arrayContaining(['dev', 'etc', 'proc', 'sandbox', 'usr']),
        '/sandbox',
      ]);
      expect(JSON.parse(listing!)[1]).not.toContain('home');
      expect(JSON.parse(listing!)[1]).not.toContain('tmp');
    });

    it('stops at the wall-clock limit and on cancellation', async () => {
      const slow = await sandbox.run({ code: 'import time\ntime.sleep(60)', limits: { wallMs: 400 } });
      expect([slow.limit, slow.signal, slow.exitCode]).toEqual(['wall-time', 'SIGKILL', null]);
      expect(slow.durationMs).toBeLessThan(5_000);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const cancelled = await sandbox.run({ code: 'import time\ntime.sleep(60)', signal: controller.signal });
      expect(cancelled.limit).toBe('cancelled');
    });

    it('gives runs that need matplotlib a font list built by its own code, which a run cannot spoil', async () => {
      const look = [
        'import glob, os',
        'found = glob.glob(os.path.join(os.environ["MPLCONFIGDIR"], "fontlist-*.json"))',
        'print(len(found), open(found[0]).read(1) if found else "")',
        'for path in found:',
        '    open(path, "w").write("spoiled")',
      ].join('\n');
      const first = await sandbox.run({ code: look, modules: ['matplotlib'] });
      const second = await sandbox.run({ code: look, modules: ['matplotlib'] });
      const without = await sandbox.run({ code: look });
      expect([first.stdout, second.stdout, without.stdout]).toEqual(['1 {\n', '1 {\n', '0 \n']);
    });

    it('in the single-process fallback (no cgroup) Solver and Plot still work: sympy and matplotlib need no thread', async () => {
      const fallback = new PythonSandbox({ tempRoot, cgroup: 'off' });
      const text = await runPythonSolution(
        fallback,
        'def solution():\n    x = symbols("x")\n    return solve(Eq(x**2, 4), x)',
        'text',
        {
          toolName: 'Solver',
          timeoutMs: 20_000,
          header: 'from sympy import symbols, Eq, solve',
          modules: ['sympy'],
        },
      );
      const figure = await runPythonSolution(
        fallback,
        'def solution():\n    fig = plt.figure()\n    plt.plot([1, 2], [3, 4])\n    return fig',
        'figure',
        {
          toolName: 'Plot',
          timeoutMs: 20_000,
          header: 'import matplotlib.pyplot as plt',
        },
      );
      expect(text).toEqual({ text: '[-2, 2]' });
      expect('png' in figure && figure.png.subarray(1, 4).toString()).toBe('PNG');
      expect(leftovers(tempRoot)).toEqual([]);
    });

    it('refuses input file names outside the work folder', async () => {
      await expect(sandbox.run({ code: 'pass', files: { '../escape.txt': 'x' } })).rejects.toThrow(
        'sandbox input file "../escape.txt" must be a relative path inside the work folder',
      );
      await expect(sandbox.run({ code: 'pass', files: { '/etc/x': 'x' } })).rejects.toThrow(ApiaryError);
      await expect(sandbox.run({ code: 'pass', files: { 'main.py': 'x' } })).rejects.toThrow(
        'sandbox input file "main.py" would replace the sandbox\'s own files',
      );
      await expect(sandbox.run({ code: 'pass', files: { '.home/x': 'x' } })).rejects.toThrow(ApiaryError);
      expect(existsSync(join(tempRoot, '..', 'escape.txt'))).toBe(false);
    });
  },
);

describe('PythonSandbox configuration', () => {
  it('says which Debian packages to install when bwrap or Python is missing', async () => {
    const noBwrap = new PythonSandbox({ bwrapPath: join(scratch, 'missing-bwrap') });
    expect(noBwrap.unavailable()).toBe(
      `bubblewrap (bwrap) is not installed or not on PATH: install the Debian packages: apt-get install ${SANDBOX_DEBIAN_PACKAGES}`,
    );
    await expect(noBwrap.run({ code: 'pass' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('apt-get install bubblewrap python3 python3-sympy python3-matplotlib'),
    });
    const noPython = new PythonSandbox({
      isolation: 'unsafe-none',
      pythonPath: join(scratch, 'missing-python'),
    });
    expect(noPython.unavailable()).toMatch(
      /^Python not found at .*missing-python: install the Debian packages/,
    );
  });

  const NO_USERNS =
    'echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1';
  const fakeBwrap = (name: string, script: string) => {
    const path = join(scratch, name);
    writeFileSync(path, `#!/bin/sh\n${script}\n`);
    chmodSync(path, 0o755);
    return path;
  };

  it('reports a bwrap that cannot create namespaces with what to enable, before any run', async () => {
    const sandbox = new PythonSandbox({
      bwrapPath: fakeBwrap('bwrap-no-userns', NO_USERNS),
      tempRoot: scratch,
    });
    expect(sandbox.unavailable()).toContain('sysctl kernel.unprivileged_userns_clone=1');
    await expect(sandbox.run({ code: 'pass' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining("isolation 'unsafe-none' (APIARY_SANDBOX_ISOLATION=unsafe-none)"),
    });
  });

  it('a sandbox that fails to build during a run is an error, never an unsandboxed run', async () => {
    // Passes the start-up probe, then fails as a real run starts (its status fd is asked for).
    const flaky = fakeBwrap(
      'bwrap-flaky',
      `case "$*" in *--help*) echo "--size BYTES";; *--json-status-fd*) ${NO_USERNS.replace('\n', ';')};; esac\nexit 0`,
    );
    const sandbox = new PythonSandbox({ bwrapPath: flaky, tempRoot: scratch });
    expect(sandbox.unavailable()).toBeUndefined();
    await expect(sandbox.run({ code: 'print("ran")' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('sysctl kernel.unprivileged_userns_clone=1'),
    });
  });

  it('refuses to run unbounded with a bwrap that cannot size the tmpfs and no cgroup', async () => {
    const sandbox = new PythonSandbox({
      bwrapPath: fakeBwrap('bwrap-0.6', 'exit 0'),
      tempRoot: scratch,
      cgroup: 'off',
    });
    expect(sandbox.unavailable()).toBeUndefined();
    await expect(sandbox.run({ code: 'pass' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('--size needs bubblewrap ≥ 0.7'),
    });
  });

  it('takes the isolation from APIARY_SANDBOX_ISOLATION and rejects unknown values', () => {
    expect(new PythonSandbox({}, { env: { APIARY_SANDBOX_ISOLATION: 'unsafe-none' } }).isolation).toBe(
      'unsafe-none',
    );
    expect(new PythonSandbox({}, { env: {} }).isolation).toBe('bwrap');
    expect(() => new PythonSandbox({}, { env: { APIARY_SANDBOX_ISOLATION: 'off' } })).toThrow(
      'APIARY_SANDBOX_ISOLATION=off: expected "bwrap" or "unsafe-none"',
    );
  });

  it.skipIf(!existsSync('/usr/bin/python3'))(
    "runs without isolation only when asked, and says so in the result (needs Debian's python3)",
    async () => {
      const sandbox = new PythonSandbox({ isolation: 'unsafe-none', tempRoot: scratch });
      const run = await sandbox.run({
        code: 'import os\nprint(os.environ["MPLBACKEND"], "APIARY" in str(os.environ))',
      });
      expect([run.isolation, run.exitCode, run.stdout]).toEqual(['unsafe-none', 0, 'Agg False\n']);
      // A process that left the group keeps the pipes open: the run still ends about a second
      // after Python exits, not when that process does (3 s later).
      const stray = await sandbox.run({
        code: 'import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(3)\n    os._exit(0)\nprint("done")',
      });
      expect([stray.exitCode, stray.stdout]).toEqual([0, 'done\n']);
      expect(stray.durationMs).toBeLessThan(2_900);
    },
  );
});
