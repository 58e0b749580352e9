import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCli } from '../__fixtures__/run-cli.js';

/* Issue 13 item 2: Ctrl-C stops `apiary run` on a large plan (a real SIGINT to a child process). */

const STEPS = 50_000;

function traceLines(file: string): Array<{ step: string; event: string; attempt?: number }> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

describe('apiary run and Ctrl-C', { timeout: 120_000 }, () => {
  it('the first SIGINT stops starting steps, closes the trace and exits 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-sigint-'));
    const planFile = join(dir, 'wide.plan.txt');
    const line = "Weather: [temperature = getweather(#city='Warsaw', #date='2019-03-07')]\n";
    writeFileSync(planFile, line.repeat(STEPS));
    const trace = join(dir, 'trace.jsonl');
    const { child, out, done } = startCli(['run', planFile, '--trace', trace]);
    const t0 = Date.now();
    // wait until steps are running (the trace has records), then press Ctrl-C once
    while (traceLines(trace).length === 0) {
      if (Date.now() - t0 > 60_000) throw new Error('the run never started');
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGINT');
    const { code } = await done;
    expect(code).toBe(130);
    const events = traceLines(trace);
    const starts = events.filter((e) => e.event === 'start').map((e) => `${e.step}#${e.attempt}`);
    const ends = new Set(events.filter((e) => e.event === 'end').map((e) => `${e.step}#${e.attempt}`));
    expect(starts.filter((s) => !ends.has(s))).toEqual([]); // every call started was closed
    expect(starts.length).toBeLessThan(STEPS); // it stopped starting new steps
    expect(out.stderr).toContain('interrupted: ');
    expect(out.stdout).toMatch(/^cancelled: \d+\/50000 steps succeeded/m);
  });
});
