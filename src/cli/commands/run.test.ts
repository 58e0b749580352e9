import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

const fx = (name: string) => `src/cli/commands/__fixtures__/${name}`;

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

describe('apiary run', () => {
  it('runs a plan: first row flows into the reservation, questions come from --answers', async () => {
    const r = await apiary(
      'run',
      fx('run-restaurant.plan.txt'),
      '--approve',
      'auto',
      '--answers',
      fx('run-answers.json'),
      '--json',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('succeeded');
    expect(out.database).toBe('bundled');
    expect(out.outputs).toEqual({
      s1: { restaurant_name: 'Acquerello', location: 'San Francisco', phone_number: '(415) 567-5432' },
      s2: { restaurant_name: 'Acquerello', number_of_seats: '2' },
      s3: { temperature: '81' },
    });
    expect(out.steps[2].args).toEqual({ city: 'Alamo', date: '2019-03-01' });
  });

  it('prints one line per step and exits 3 when a transactional call is denied', async () => {
    const r = await apiary('run', fx('run-payment.plan.txt'), '--approve', 'deny');
    expect(r.code).toBe(3);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toContain(
      's1 Weather.getweather(city="Alamo", date="2019-03-01") → {"temperature":"81"}',
    );
    expect(lines[1]).toContain(
      's2 Payment.makepayment(payment_method="debit card", amount="110", receiver="Tom") refused [PERMISSION_DENIED] transactional call Payment.makepayment not approved: transactional calls are denied for this run',
    );
    expect(lines[2]).toContain('failed: 1/2 steps succeeded');
  });

  it('refuses a plan that uses an app outside --grant (exit 1), and repairs an existing trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-run-'));
    const trace = join(dir, 'trace.jsonl');
    const open = {
      event: 'start',
      run: 'old',
      time: '2026-01-01T00:00:00.000Z',
      step: 's9',
      app: 'Weather',
      api: 'getweather',
      attempt: 1,
    };
    writeFileSync(trace, `${JSON.stringify(open)}\n`);
    const r = await apiary(
      'run',
      fx('run-payment.plan.txt'),
      '--grant',
      'Weather',
      '--approve',
      'auto',
      '--trace',
      trace,
      '--json',
    );
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('refused');
    expect(out.repairedTraceRecords).toBe(1);
    expect(out.steps[1].error).toEqual({
      code: 'PERMISSION_DENIED',
      message: 'app "Payment" is not granted to this run (granted: Weather)',
    });
    const events = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.map((e) => `${e.run}:${e.event}:${e.step}`)).toEqual([
      'old:start:s9',
      'old:interrupted:s9',
      `${out.runId}:refused:s1`,
      `${out.runId}:refused:s2`,
    ]);
  });

  it('--approve ask with no terminal: the steps are printed, the payment refused, then one USAGE line (exit 2)', async () => {
    const r = await apiary('run', fx('run-payment.plan.txt'), '--approve', 'ask');
    expect(r.code).toBe(2);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toContain(
      's1 Weather.getweather(city="Alamo", date="2019-03-01") → {"temperature":"81"}',
    );
    expect(lines[1]).toContain(
      's2 Payment.makepayment(payment_method="debit card", amount="110", receiver="Tom") refused [PERMISSION_DENIED] transactional call Payment.makepayment not approved: no terminal to ask on',
    );
    expect(lines[2]).toContain('failed: 1/2 steps succeeded');
    expect(r.stderr).toBe(
      'error [USAGE] --approve ask needs a terminal to ask on (stdin is not one); pass --approve auto or --approve deny (1 transactional call(s) refused)\n',
    );
  });

  it('rejects a bad --approve value (exit 2)', async () => {
    const r = await apiary('run', fx('run-payment.plan.txt'), '--approve', 'maybe');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('[USAGE] --approve must be one of auto | ask | deny (got "maybe")');
  });
});

describe('apiary run --resume', () => {
  it('continues the last run of the trace without repeating the finished payment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-resume-'));
    const trace = join(dir, 'trace.jsonl');
    // First run: the payment is denied, the weather call finishes.
    const first = await apiary(
      'run',
      fx('run-payment.plan.txt'),
      '--approve',
      'deny',
      '--trace',
      trace,
      '--json',
    );
    expect(first.code).toBe(3);
    const runId = JSON.parse(first.stdout).runId;
    // Resume with approval: the weather call is reused, only the payment runs.
    const r = await apiary(
      'run',
      fx('run-payment.plan.txt'),
      '--approve',
      'auto',
      '--trace',
      trace,
      '--resume',
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`resumed run ${runId}: 1 finished call(s) reused`);
    expect(r.stdout.split('\n')[0]).toContain('→ {"temperature":"81"} (reused from the trace)');
    const events = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // Steps run in parallel: compare each step's own sequence of records.
    const of = (step: string) => events.filter((e) => e.step === step).map((e) => e.event);
    expect(of('s1')).toEqual(['start', 'end']);
    expect(of('s2')).toEqual(['refused', 'start', 'end']);
    expect(new Set(events.map((e) => e.run))).toEqual(new Set([runId]));
  });
});

describe('apiary run: flag checks', () => {
  it('names an unknown app in --grant (exit 2)', async () => {
    const r = await apiary('run', fx('run-payment.plan.txt'), '--grant', 'Weather,Rent');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown app in --grant "Rent" (available: Hotels, Rents,');
  });
});

describe('apiary run: an empty search result (issue 13 item 8)', () => {
  it('marks a search that matched no row, in the lines, the summary, the JSON and the trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-run-empty-'));
    const trace = join(dir, 'trace.jsonl');
    const r = await apiary('run', fx('run-no-row.plan.txt'), '--approve', 'auto', '--trace', trace);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toContain(
      's1 Rents.getcarsavailable(city="Warsaw", start_date="2019-03-07", pickup_time="13:30", end_date="2019-03-13", car_type="Hatchback") → no matching row (empty result)',
    );
    expect(lines[0]).toMatch(/^\S*∅/);
    expect(lines[3]).toContain('failed: 2/3 steps succeeded (2 with an empty result)');
    const ends = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.event === 'end');
    expect(ends.map((e) => [e.step, e.empty])).toEqual([
      ['s1', true],
      ['s3', true],
    ]);
    const json = JSON.parse(
      (await apiary('run', fx('run-no-row.plan.txt'), '--approve', 'auto', '--json')).stdout,
    );
    expect(json.steps.map((s: { id: string; empty?: boolean }) => [s.id, s.empty])).toEqual([
      ['s1', true],
      ['s2', undefined],
      ['s3', true],
    ]);
  });
});
