/**
 * Start-up of the built CLI (issue 25 item 9): wall time, median of N runs, of `apiary --help` and
 * `apiary catalog list` from dist/, beside `node -e 0` (Node's own start), and how many ES modules
 * each loads (counted by loader hooks). Target: ≤ 300 ms for both commands.
 * With a second build (e.g. main's or HEAD's before the change, `git worktree add` + `npm run build`),
 * pass its dist/ folder as `before` and each row is measured on both, interleaved, in the same run.
 *
 *   npm run build && npx tsx perf/cli-start.ts [runs=10] [before=<path to another dist/>]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const runs = Number(process.argv[2] ?? 10);
const before = process.argv[3] ? resolve(process.argv[3]) : undefined;
const builds: Record<string, string> = { after: join(root, 'dist') };
if (before) builds.before = before;
for (const dir of Object.values(builds))
  if (!existsSync(join(dir, 'cli/main.js'))) throw new Error(`${dir}/cli/main.js missing: npm run build`);

const hooks = pathToFileURL(join(root, 'src/cli/__fixtures__/module-log.mjs')).href;
const home = mkdtempSync(join(tmpdir(), 'apiary-cli-start-'));
const env = { ...process.env, NO_COLOR: '1', HOME: home };

function wallMs(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function modulesLoaded(args: string[]): number {
  const log = join(home, 'modules.txt');
  rmSync(log, { force: true });
  spawnSync(process.execPath, ['--import', hooks, ...args], {
    cwd: root,
    env: { ...env, APIARY_MODULE_LOG: log },
    stdio: 'ignore',
  });
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const commands: Record<string, string[]> = { '--help': ['--help'], 'catalog list': ['catalog', 'list'] };
const rows: { name: string; build: string; args: string[] }[] = [
  { name: 'node -e 0', build: '-', args: ['-e', '0'] },
  ...Object.entries(commands).flatMap(([name, argv]) =>
    Object.entries(builds).map(([build, dir]) => ({
      name,
      build,
      args: [join(dir, 'cli/main.js'), ...argv],
    })),
  ),
];

// interleaved rounds, so load on the machine falls on every row alike
const times = rows.map(() => [] as number[]);
for (const r of rows) wallMs(r.args); // warm the file cache
for (let i = 0; i < runs; i++)
  rows.forEach((r, j) => {
    times[j]!.push(wallMs(r.args));
  });

console.log(`median of ${runs} runs, wall ms (node ${process.version})`);
console.log('command        build    median    min  modules');
const medians = new Map<string, number>();
rows.forEach((r, j) => {
  const m = median(times[j]!);
  medians.set(`${r.name}/${r.build}`, m);
  console.log(
    `${r.name.padEnd(14)} ${r.build.padEnd(6)} ${m.toFixed(0).padStart(8)} ${Math.min(...times[j]!)
      .toFixed(0)
      .padStart(6)} ${String(modulesLoaded(r.args)).padStart(8)}`,
  );
});
if (before)
  for (const name of Object.keys(commands))
    console.log(
      `${name}: after/before = ${(medians.get(`${name}/after`)! / medians.get(`${name}/before`)!).toFixed(2)}`,
    );
rmSync(home, { recursive: true, force: true });
