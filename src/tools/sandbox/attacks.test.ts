import { randomBytes } from 'node:crypto';
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
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { plotTool } from '../../benchmarks/gta/tools/plot.js';
import { solverTool } from '../../benchmarks/gta/tools/solver.js';
import { indexCatalog, loadCatalog } from '../../catalog/index.js';
import { appRegistry, type CallOutcome, dispatchCall } from '../../exec/index.js';
import { toolHandler } from '../tool.js';
import { ETC_READ_ONLY } from './bwrap-args.js';
import { sandboxSkipNotice } from './requirements.js';
import { type PythonRunResult, PythonSandbox } from './sandbox.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

/**
 * The sandbox attack suite: code a model could send to Solver or Plot tries to reach the network,
 * read secrets, write outside its folder, escape through symlinks, exhaust processes, CPU,
 * memory and output, and signal its parents. Each attempt must end as a tool error or a harmless
 * result, the next call must still work, and host-side checks count escapes (there must be none).
 * About 10 s on an idle 2-core machine, longer under load: every attempt really starts Python
 * (most through Solver, which imports sympy) and the CPU, wall-clock and process limits are
 * really hit; a security suite that only simulated them would prove nothing.
 */
const probe = new PythonSandbox();
const missing = probe.unavailable(['sympy', 'matplotlib']);
// Said on the console too: a skipped security suite must not pass unnoticed.
if (missing) console.warn(sandboxSkipNotice('sandbox attack suite', missing));

const SECRET_FILE_TEXT = `file-secret-${randomBytes(8).toString('hex')}`;
const SECRET_ENV_TEXT = `env-secret-${randomBytes(8).toString('hex')}`;
const MARKER_ENV = 'APIARY_ATTACK_SUITE_SECRET';

/** What an attack produced: the tool outcome (or the raw sandbox run) and its text. */
interface Attempt {
  outcome?: CallOutcome;
  run?: PythonRunResult;
  text: string;
}

describe.skipIf(missing !== undefined)(
  missing ? sandboxSkipNotice('sandbox attack suite', missing) : 'sandbox attack suite',
  () => {
    // Every user can traverse it: when the suite runs as root, the sandbox runs as nobody.
    const scratch = mkdtempSync(join(tmpdir(), 'apiary-attacks-'));
    chmodSync(scratch, 0o755);
    const secretFile = join(scratch, 'secret.txt');
    const outsideDir = join(scratch, 'outside');
    const outputDir = join(scratch, 'output');
    const sandbox = new PythonSandbox({
      tempRoot: scratch,
      // Tighter than the defaults to keep the suite short; sympy and a plot fit well in them.
      limits: { cpuSeconds: 1, memoryBytes: 512 * 1024 ** 2, maxOutputBytes: 64 * 1024 },
    });
    const catalog = indexCatalog(loadCatalog('gta'));
    const apps = appRegistry([
      toolHandler(solverTool({ sandbox, timeoutMs: 20_000 }), { outputDir, readable: [] }),
      toolHandler(plotTool({ sandbox, timeoutMs: 20_000 }), { outputDir, readable: [] }),
    ]);
    // A Solver with a short wall clock, for the attack that only sleeps.
    const shortApps = appRegistry([
      toolHandler(solverTool({ sandbox, timeoutMs: 1_500 }), { outputDir, readable: [] }),
    ]);
    const summary = { attempts: 0, escapes: 0, toolErrors: 0, harmless: 0, nextCallWorked: 0 };
    const escapes: string[] = [];
    let server: Server;
    let port = 0;
    let connections = 0;
    let signalsReceived = 0;
    const onSignal = () => {
      signalsReceived++;
    };

    beforeAll(async () => {
      writeFileSync(secretFile, SECRET_FILE_TEXT);
      chmodSync(secretFile, 0o644);
      mkdirSync(outsideDir);
      chmodSync(outsideDir, 0o777); // writable by anyone on the host: only the sandbox stops a write
      process.env[MARKER_ENV] = SECRET_ENV_TEXT;
      process.on('SIGUSR2', onSignal);
      server = createServer((socket) => {
        connections++;
        socket.end('hello from the host\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });

    afterAll(async () => {
      delete process.env[MARKER_ENV];
      process.off('SIGUSR2', onSignal);
      await new Promise((resolve) => server.close(resolve));
      rmSync(scratch, { recursive: true, force: true });
    });

    const solve = (body: string) =>
      dispatchCall(
        {
          app: 'Solver',
          api: 'Solver',
          args: { command: `\`\`\`python\ndef solution():\n${indent(body)}\n\`\`\`` },
        },
        { catalog, apps, timeoutMs: 30_000 },
      );
    const solveShort = (body: string) =>
      dispatchCall(
        { app: 'Solver', api: 'Solver', args: { command: `def solution():\n${indent(body)}` } },
        { catalog, apps: shortApps, timeoutMs: 30_000 },
      );
    const plot = (body: string) =>
      dispatchCall(
        { app: 'Plot', api: 'Plot', args: { command: `def solution():\n${indent(body)}` } },
        { catalog, apps, timeoutMs: 30_000 },
      );

    /** Runs one attack, checks it ended cleanly and leaked nothing, then checks the tool still works. */
    async function attack(
      name: string,
      attempt: () => Promise<Attempt>,
      escaped: (a: Attempt) => boolean | Promise<boolean>,
    ): Promise<Attempt> {
      summary.attempts++;
      const a = await attempt();
      const leaked = a.text.includes(SECRET_FILE_TEXT) || a.text.includes(SECRET_ENV_TEXT);
      if (leaked || (await escaped(a))) {
        summary.escapes++;
        escapes.push(name);
      }
      if (a.outcome) {
        if (a.outcome.ok) summary.harmless++;
        else summary.toolErrors++;
      } else summary.harmless++;
      const next = await solve('return str(1 + 1)');
      if (next.ok && next.content[0]?.type === 'text' && next.content[0].text === '2')
        summary.nextCallWorked++;
      return a;
    }
    const viaTool = async (outcome: Promise<CallOutcome>): Promise<Attempt> => {
      const o = await outcome;
      return { outcome: o, text: o.ok ? JSON.stringify(o.content) : o.error.message };
    };
    const okText = (a: Attempt) =>
      a.outcome?.ok && a.outcome.content[0]?.type === 'text' ? a.outcome.content[0].text : '';

    it('network: a connection to a server on the host loopback fails', async () => {
      const a = await attack(
        'network',
        () =>
          viaTool(
            solve(
              `import socket\ns = socket.create_connection(("127.0.0.1", ${port}), timeout=3)\nreturn s.recv(100).decode()`,
            ),
          ),
        (x) => connections > 0 || x.text.includes('hello from the host'),
      );
      expect(a.text).toBe('ConnectionRefusedError: [Errno 111] Connection refused');
      const ifaces = await attack(
        'network interfaces',
        () => viaTool(solve('import socket\nreturn str(sorted(n for _, n in socket.if_nameindex()))')),
        (x) => okText(x) !== "['lo']",
      );
      expect(okText(ifaces)).toBe("['lo']");
    });

    it('secrets: the home folder, /etc/shadow and a host file are not there', async () => {
      const home = await attack(
        'home folder',
        () => viaTool(solve(`import os\nreturn str(os.listdir(${JSON.stringify(homedir())}))`)),
        (x) => x.outcome?.ok === true,
      );
      expect(home.text).toBe(`FileNotFoundError: [Errno 2] No such file or directory: '${homedir()}'`);
      const shadow = await attack(
        '/etc/shadow',
        () => viaTool(solve('return open("/etc/shadow").read()')),
        (x) => x.outcome?.ok === true,
      );
      expect(shadow.text).toBe("FileNotFoundError: [Errno 2] No such file or directory: '/etc/shadow'");
      const hostFile = await attack(
        'host temp file',
        () => viaTool(solve(`return open(${JSON.stringify(secretFile)}).read()`)),
        (x) => x.outcome?.ok === true,
      );
      expect(hostFile.text).toBe(`FileNotFoundError: [Errno 2] No such file or directory: '${secretFile}'`);
      const passwd = await attack(
        '/etc/passwd and other users',
        () => viaTool(solve('import os\nreturn str(sorted(os.listdir("/etc")))')),
        (x) => okText(x).includes('passwd'),
      );
      // Only the read-only system files Python and matplotlib need, as far as the host has them.
      const expected = ETC_READ_ONLY.filter((p) => existsSync(p)).map((p) => `'${basename(p)}'`);
      expect(okText(passwd)).toBe(`[${expected.sort().join(', ')}]`);
    });

    it("secrets: the parent's environment variables are not inherited or readable", async () => {
      const a = await attack(
        'parent environment',
        () =>
          viaTool(
            solve(
              [
                'import os',
                'seen = [str(dict(os.environ))]',
                'for pid in os.listdir("/proc"):',
                '    if pid.isdigit():',
                '        try:',
                '            seen.append(open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace"))',
                '        except OSError as e:',
                '            seen.append(type(e).__name__)',
                `seen.append(str(${JSON.stringify(MARKER_ENV)} in os.environ))`,
                'return "\\n".join(seen)',
              ].join('\n'),
            ),
          ),
        (x) => !okText(x).endsWith('\nFalse'), // the marker variable was inherited
      );
      expect(a.outcome?.ok).toBe(true);
      expect(okText(a).endsWith('\nFalse')).toBe(true);
    });

    it('writing outside the work folder fails (host folder, /tmp, /usr, /, /dev)', async () => {
      const targets = [
        join(outsideDir, 'pwned.txt'),
        '/tmp/pwned.txt',
        '/usr/pwned.txt',
        '/pwned.txt',
        '/dev/pwned',
      ];
      const a = await attack(
        'write outside',
        () =>
          viaTool(
            solve(
              [
                'out = []',
                `for target in ${JSON.stringify(targets)}:`,
                '    try:',
                '        open(target, "w").write("pwned")',
                '        out.append("written")',
                '    except OSError as e:',
                '        out.append(e.errno)',
                'return str(out)',
              ].join('\n'),
            ),
          ),
        () => readdirSync(outsideDir).length > 0,
      );
      // ENOENT for folders the sandbox does not have, EROFS for the read-only system.
      expect(okText(a)).toBe('[2, 2, 30, 30, 30]');
      expect(readdirSync(outsideDir)).toEqual([]);
    });

    it('symlink escapes: a link inside the work folder pointing out is neither followed inside nor by the host', async () => {
      const inside = await attack(
        'symlink read',
        () =>
          viaTool(
            solve(`import os\nos.symlink(${JSON.stringify(secretFile)}, "leak")\nreturn open("leak").read()`),
          ),
        (x) => x.outcome?.ok === true,
      );
      expect(inside.text).toBe("FileNotFoundError: [Errno 2] No such file or directory: 'leak'");
      // The host copies written files out: a symlink must not make it copy a host file.
      const collectInto = join(scratch, 'collected');
      const copied = await attack(
        'symlink collected by the host',
        async () => {
          const run = await sandbox.run({
            code: [
              'import os',
              `os.symlink(${JSON.stringify(secretFile)}, "figure.png")`,
              'os.symlink("/etc/ld.so.cache", "cache")',
              `os.symlink(${JSON.stringify(scratch)}, "dir")`,
              'open("real.txt", "w").write("ok")',
            ].join('\n'),
            collectInto,
            read: ['figure.png', 'cache', 'dir/secret.txt', 'real.txt'],
          });
          const data = run.files.map((f) => f.data?.toString('utf8') ?? '').join('');
          return { run, text: `${JSON.stringify(run.files.map((f) => f.name))}${data}` };
        },
        () => readdirSync(collectInto).some((n) => n !== 'real.txt'),
      );
      expect(copied.run?.files.map((f) => f.name)).toEqual(['real.txt']);
      expect(readdirSync(collectInto)).toEqual(['real.txt']);
      const viaPlot = await attack(
        'symlink as the plot output',
        () =>
          viaTool(
            plot(`import os\nos.symlink(${JSON.stringify(secretFile)}, "figure.png")\nreturn plt.figure()`),
          ),
        (x) => x.outcome?.ok === true,
      );
      expect(viaPlot.text).toMatch(/^FileNotFoundError: \[Errno 2\] No such file or directory/);
    });

    it('a fork bomb is stopped by the process limit and leaves no process behind', async () => {
      const marker = `forkbomb-${randomBytes(6).toString('hex')}`;
      const a = await attack(
        'fork bomb',
        async () => {
          const run = await sandbox.run({
            code: 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass',
            args: [marker],
            limits: { wallMs: 1_500 },
          });
          return { run, text: run.stderr };
        },
        () => processesWithArgument(marker) > 0,
      );
      expect(a.run?.limit === 'wall-time' || a.run?.signal === 'SIGXCPU').toBe(true);
      expect(processesWithArgument(marker)).toBe(0);
      const plain = await attack(
        'fork bomb through Solver',
        () => viaTool(solve('import os\nwhile True:\n    os.fork()')),
        (x) => x.outcome?.ok === true,
      );
      expect(plain.text).toBe('BlockingIOError: [Errno 11] Resource temporarily unavailable');
    });

    it('an infinite loop ends at the CPU limit, a sleeping one at the wall clock', async () => {
      const a = await attack(
        'infinite loop',
        () => viaTool(solve('while True:\n    pass')),
        (x) => x.outcome?.ok === true,
      );
      expect(a.text).toBe('Solver: the code used more than 1 s of CPU time (CPU limit)');
      const sleeper = await attack(
        'sleeping forever',
        () => viaTool(solveShort('import time\ntime.sleep(3600)')),
        (x) => x.outcome?.ok === true,
      );
      expect(sleeper.text).toBe('Solver: the code timed out after 1.5 s (wall-clock limit)');
    });

    it('huge output is cut at the output limit and the run stopped', async () => {
      const printed = await attack(
        'huge printed output',
        () => viaTool(solve('while True:\n    print("x" * 100000)')),
        (x) => x.outcome?.ok === true,
      );
      expect(printed.text).toBe(
        'Solver: the code printed more than 65536 bytes (output limit); the run was stopped',
      );
      const returned = await attack(
        'huge result',
        () => viaTool(solve('return "y" * 10**7')),
        (x) => x.outcome?.ok === true,
      );
      expect(returned.text).toBe(
        'Solver: the code printed more than 65536 bytes (output limit); the run was stopped',
      );
    });

    it('huge memory ends as MemoryError', async () => {
      const once = await attack(
        'one huge allocation',
        () => viaTool(solve('return str(len(bytearray(8 * 1024**3)))')),
        (x) => x.outcome?.ok === true,
      );
      expect(once.text).toBe('MemoryError');
      const growing = await attack(
        'growing allocation',
        () => viaTool(solve('blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024**2))')),
        (x) => x.outcome?.ok === true,
      );
      expect(growing.text).toBe('MemoryError');
    });

    it('signalling the parent or the test runner reaches neither', async () => {
      const before = signalsReceived;
      const a = await attack(
        'signal the parent and the runner',
        () =>
          viaTool(
            solve(
              [
                'import os, signal',
                'results = []',
                `for pid, sig in [(os.getppid(), signal.SIGKILL), (${process.pid}, signal.SIGUSR2), (${process.pid}, signal.SIGKILL), (${process.ppid}, signal.SIGUSR2), (-1, signal.SIGUSR2)]:`,
                '    try:',
                '        os.kill(pid, sig)',
                '        results.append("sent")',
                '    except OSError as e:',
                '        results.append(type(e).__name__)',
                'return str(os.getppid()) + " " + str(results)',
              ].join('\n'),
            ),
          ),
        () => signalsReceived > before,
      );
      // Still here: the runner was not killed. Whatever the code managed to signal was inside the sandbox.
      expect(signalsReceived).toBe(before);
      expect(a.outcome === undefined || a.outcome.ok || a.outcome.error.code === 'TOOL_FAILED').toBe(true);
    });

    it('privileges: the code cannot become root or mount anything', async () => {
      const a = await attack(
        'setuid / mount',
        () =>
          viaTool(
            solve(
              [
                'import os, ctypes',
                'out = []',
                'try:',
                '    os.setuid(0)',
                '    out.append("root")',
                'except OSError as e:',
                '    out.append(type(e).__name__)',
                'libc = ctypes.CDLL(None, use_errno=True)',
                'out.append(str(libc.mount(b"none", b"/sandbox", b"tmpfs", 0, None)))',
                'return str(out)',
              ].join('\n'),
            ),
          ),
        (x) => okText(x).includes("'root'") || okText(x).endsWith("'0']"),
      );
      // setuid(0) fails with EINVAL (uid 0 is not mapped in the sandbox's user namespace) or EPERM.
      expect(okText(a)).toMatch(/^\['(OSError|PermissionError)', '-1'\]$/);
    });

    it('summary: every attempt was contained and the next call still worked', () => {
      // Reported for the issue note: attempts and escapes.
      console.info(`sandbox attack suite: ${JSON.stringify(summary)}`);
      expect(escapes).toEqual([]);
      expect(summary).toEqual({
        attempts: 21,
        escapes: 0,
        // 14 / 7 since the code's parent is the bootstrap's supervisor: SIGKILL to it ends the
        // run (a tool error), where bwrap's init ignored it before.
        toolErrors: 14,
        harmless: 7,
        nextCallWorked: 21,
      });
    });
  },
);

function indent(body: string): string {
  return body
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

/** Host processes whose command line contains `argument` (the sandboxed code's own marker). */
function processesWithArgument(argument: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(argument)) count++;
    } catch {
      // gone
    }
  }
  return count;
}
