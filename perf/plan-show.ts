/**
 * `apiary plan show` at scale (issue 13 item 9): wall time of the CLI, as a user runs it, on
 *   - N independent steps (N parallel components of one call each), and
 *   - an N-step chain (each call takes the previous call's output, one component N levels deep),
 * in each output format (dag, text, json), plus whether any command printed a MaxListeners
 * warning (checked on `plan show` and on `run` of a 12-step plan). Target: < 3 s each at N = 40,000.
 *
 *   npx tsx perf/plan-show.ts [steps=40000]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const steps = Number(process.argv[2] ?? 40_000);
const root = join(import.meta.dirname, '..');
const main = join(root, 'src/cli/main.ts');
const dir = mkdtempSync(join(tmpdir(), 'apiary-plan-show-'));

const independent = Array.from(
  { length: steps },
  (_, i) => `Weather: [temperature = getweather(#city='City ${i}', #date='2019-03-01')]`,
).join('\n');
const chain = Array.from({ length: steps }, (_, i) =>
  i === 0
    ? `Weather: [temperature = getweather(#city='Alamo', #date='2019-03-01')]`
    : `Weather: [temperature = getweather(#city=temperature, #date='2019-03-01')]`,
).join('\n');
const plans = { independent, chain };

let warnings = 0;
function cli(args: string[]): { ms: number; bytes: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', main, ...args], {
    cwd: root,
    maxBuffer: 1 << 30,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const ms = performance.now() - t0;
  if (/MaxListeners/.test(r.stderr)) warnings++;
  if (r.status !== 0 && args[0] === 'plan')
    throw new Error(`${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return { ms, bytes: r.stdout.length };
}

// Node + tsx start-up, to read the numbers below against.
const startup = cli(['--version']).ms;
console.log(`CLI start-up (apiary --version): ${startup.toFixed(0)} ms`);
console.log(`plan show on ${steps} steps (wall time of the CLI, one run each):`);
for (const [name, text] of Object.entries(plans)) {
  const file = join(dir, `${name}.plan.txt`);
  writeFileSync(file, `${text}\n`);
  for (const format of ['dag', 'text', 'json']) {
    const { ms, bytes } = cli(['plan', 'show', file, '--format', format]);
    console.log(
      `  ${name.padEnd(12)} --format ${format.padEnd(5)} ${(ms / 1000).toFixed(2).padStart(6)} s  ${(bytes / 1e6).toFixed(1)} MB out  ${ms < 3000 ? 'ok' : 'OVER 3 s'}`,
    );
  }
}

const small = join(dir, 'twelve.plan.txt');
writeFileSync(small, `${independent.split('\n').slice(0, 12).join('\n')}\n`);
cli(['run', small, '--approve', 'auto']);
console.log(`MaxListeners warnings printed (plan show ×6, run of 12 steps ×1): ${warnings}`);
execFileSync('rm', ['-rf', dir]);
