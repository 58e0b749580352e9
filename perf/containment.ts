/**
 * Issue 24's attacks, before and after containment, in one run; then the per-call cost of the
 * isolation (median of N calls) on Calculator, DrawBox and Solver.
 *
 *   npx tsx perf/containment.ts [--before-rev REV | --no-before] [--deadline S] [--calls N] [--only TEXT]
 *
 * "Before" is the code at REV (default 60040f0, the main the attack suite ran on), checked out into
 * a temporary git worktree that shares this checkout's node_modules; "after" is this checkout. Each
 * attack runs in its own process (perf/containment-probes.ts) that is killed at the deadline
 * (default 60 s); the parent samples, every 25 ms, the resident memory of the probe's whole process
 * tree (a sandbox's forks, an MCP server child) and how much the temp folder's file system filled,
 * and counts sandbox work folders left in the temp folder afterwards.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const BEFORE_REV = argv.includes('--no-before') ? undefined : (flag('--before-rev') ?? '60040f0');
const DEADLINE_MS = Number(flag('--deadline') ?? 60) * 1000;
const CALLS = Number(flag('--calls') ?? 50);
const ONLY = flag('--only');
const PAGE = 4096;

interface Measured {
  ms: number;
  peakRssMiB: number;
  peakDiskMiB: number;
  leftDirs: number;
  outcome: string;
}

/** Every process whose ancestry reaches `root` (children of children: bwrap, Python, forks). */
function processTree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(entry), Number(fields[1]));
    } catch {
      // ended meanwhile
    }
  }
  const tree = [root];
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parent)
      if (!tree.includes(pid) && tree.includes(ppid)) {
        tree.push(pid);
        grew = true;
      }
  }
  return tree;
}

function treeRssBytes(root: number): number {
  let total = 0;
  for (const pid of processTree(root)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE;
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

const usedTempBytes = () => {
  const s = statfsSync(tmpdir());
  return (s.blocks - s.bfree) * s.bsize;
};
const sandboxDirs = () => readdirSync(tmpdir()).filter((n) => n.startsWith('apiary-sandbox-')).length;

function runProbe(args: string[]): Promise<Measured> {
  const dirsBefore = sandboxDirs();
  const disk0 = usedTempBytes();
  const t0 = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(here, 'perf/containment-probes.ts'), ...args],
    { cwd: here, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  let peakRss = 0;
  let peakDisk = 0;
  const sample = setInterval(() => {
    peakRss = Math.max(peakRss, treeRssBytes(child.pid!));
    peakDisk = Math.max(peakDisk, usedTempBytes() - disk0);
  }, 25);
  let killed = false;
  const deadline = setTimeout(() => {
    killed = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }, DEADLINE_MS);
  return new Promise((done) => {
    child.once('exit', () => {
      clearInterval(sample);
      clearTimeout(deadline);
      let attackMs = performance.now() - t0;
      // Let a killed run's work folders and processes go before counting what stayed.
      setTimeout(() => {
        const last = out.trim().split('\n').pop() ?? '';
        let outcome = killed ? `killed at the ${DEADLINE_MS / 1000} s deadline` : '';
        if (!killed)
          try {
            const parsed = JSON.parse(last) as {
              ms?: number;
              outcome?: string;
              medianMs?: number;
              p95Ms?: number;
            };
            // The probe's own clock, without the process start-up (tsx, imports).
            if (parsed.ms !== undefined) attackMs = parsed.ms;
            outcome =
              parsed.medianMs !== undefined
                ? `median ${parsed.medianMs.toFixed(2)} ms, p95 ${parsed.p95Ms!.toFixed(2)} ms; ${parsed.outcome}`
                : String(parsed.outcome);
          } catch {
            outcome = `probe failed: ${(err.trim().split('\n').pop() ?? last).slice(0, 160)}`;
          }
        done({
          ms: attackMs,
          peakRssMiB: peakRss / 2 ** 20,
          peakDiskMiB: Math.max(0, peakDisk) / 2 ** 20,
          leftDirs: sandboxDirs() - dirsBefore,
          outcome,
        });
      }, 500);
    });
  });
}

/** A worktree of the code before containment, sharing this checkout's node_modules. */
function checkoutBefore(rev: string): { root: string; remove: () => void } {
  const root = join(mkdtempSync(join(tmpdir(), 'apiary-before-')), 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', root, rev], { cwd: here, stdio: 'ignore' });
  symlinkSync(join(here, 'node_modules'), join(root, 'node_modules'));
  return {
    root,
    remove: () => {
      execFileSync('git', ['worktree', 'remove', '--force', root], { cwd: here, stdio: 'ignore' });
      rmSync(dirname(root), { recursive: true, force: true });
    },
  };
}

/** Time is the attack's own (process start-up excluded), or the deadline when it was killed. */
const fmt = (m: Measured) =>
  `${(m.ms / 1000).toFixed(2).padStart(7)} s ${m.peakRssMiB.toFixed(0).padStart(6)} MiB ${m.peakDiskMiB
    .toFixed(0)
    .padStart(6)} MiB ${String(m.leftDirs).padStart(4)}  ${m.outcome}`;

async function main(): Promise<void> {
  const before = BEFORE_REV && existsSync(join(here, '.git')) ? checkoutBefore(BEFORE_REV) : undefined;
  try {
    console.log(`containment: before = ${before ? BEFORE_REV : '(not measured)'}, after = this checkout`);
    console.log(
      `deadline ${DEADLINE_MS / 1000} s per attack; memory = peak RSS of the probe's process tree;`,
    );
    console.log('disk = peak growth of the temp file system; left = sandbox work folders left behind\n');
    console.log('attack / side         time      memory    disk  left  outcome');
    const names = JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', join(here, 'perf/containment-probes.ts'), 'list'], {
        encoding: 'utf8',
      }),
    ) as string[];
    for (const name of names.filter((n) => !ONLY || n.includes(ONLY))) {
      console.log(name);
      if (before) console.log(`  before ${fmt(await runProbe(['attack', name, before.root]))}`);
      console.log(`  after  ${fmt(await runProbe(['attack', name, here]))}`);
    }
    console.log(`\nper-call cost of the isolation: median of ${CALLS} calls through dispatchCall`);
    for (const tool of ['Calculator', 'DrawBox', 'Solver']) {
      if (ONLY && !tool.includes(ONLY)) continue;
      const b = before ? await runProbe(['overhead', tool, before.root, String(CALLS)]) : undefined;
      const a = await runProbe(['overhead', tool, here, String(CALLS)]);
      const median = (m: Measured) => Number(/median ([\d.]+)/.exec(m.outcome)?.[1] ?? Number.NaN);
      const added = b ? median(a) - median(b) : Number.NaN;
      const ratio = b ? median(a) / median(b) : Number.NaN;
      console.log(
        `${tool.padEnd(11)} before ${b ? median(b).toFixed(2) : '-'} ms, after ${median(a).toFixed(2)} ms: ` +
          `+${added.toFixed(2)} ms (×${ratio.toFixed(2)})`,
      );
    }
  } finally {
    before?.remove();
  }
}

await main();
