import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { loadCatalog } from '../catalog/index.js';
import { literal, ref } from '../plan/index.js';
import { slowPlan } from './__fixtures__/slow-plan.js';
import { executePlan } from './execute-plan.js';
import { fakeHandlers } from './fake-handlers.js';
import { jsonlTrace, readTrace, repairTrace, type TraceEvent } from './trace.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const tmp = () => mkdtempSync(join(tmpdir(), 'apiary-trace-'));
const catalog = loadCatalog('appbench');
const T = '2026-01-01T00:00:00.000Z';
const ev = (event: TraceEvent['event'], step: string, attempt = 1): TraceEvent => ({
  event,
  run: 'r1',
  time: T,
  step,
  app: 'Weather',
  api: 'getweather',
  attempt,
});

/** Started attempts (run, step, attempt) that have no end/error/interrupted record. */
function unfinished(events: TraceEvent[]): string[] {
  const open = new Set<string>();
  for (const e of events) {
    const k = `${e.run}/${e.step}#${e.attempt ?? 1}`;
    if (e.event === 'start') open.add(k);
    else if (e.event !== 'refused') open.delete(k);
  }
  return [...open];
}

describe('JSONL trace', () => {
  it('writes one line per event with step, app, api, inputs, outputs and clock timestamps', async () => {
    const file = join(tmp(), 'trace.jsonl');
    const { handlers } = fakeHandlers(catalog);
    let now = Date.parse(T);
    const clock = { now: () => (now += 1000), sleep: async () => {} };
    await executePlan(
      {
        steps: [
          { id: 's1', app: 'Weather', api: 'getweather', args: { city: literal('Rome') }, outputs: ['city'] },
          {
            id: 's2',
            app: 'Travel',
            api: 'findattractions',
            args: { location: ref('s1', 'city') },
            outputs: [],
          },
        ],
      },
      { catalog, handlers, trace: jsonlTrace(file), clock, runId: 'r1' },
    );
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const events = lines.map((l) => JSON.parse(l) as TraceEvent);
    expect(events.map((e) => `${e.event}:${e.step}:${e.app}.${e.api}`)).toEqual([
      'start:s1:Weather.getweather',
      'end:s1:Weather.getweather',
      'start:s2:Travel.findattractions',
      'end:s2:Travel.findattractions',
    ]);
    expect(events[0]).toMatchObject({ run: 'r1', attempt: 1, inputs: { city: 'Rome' } });
    expect(events[1]!.outputs).toEqual({ city: 'Rome' });
    expect(events[2]!.inputs).toEqual({ location: 'Rome' });
    // Timestamps come from the injected clock (t0 = +1 s; each record reads it again).
    expect(events.map((e) => e.time)).toEqual([
      '2026-01-01T00:00:03.000Z',
      '2026-01-01T00:00:05.000Z',
      '2026-01-01T00:00:07.000Z',
      '2026-01-01T00:00:09.000Z',
    ]);
  });

  it('repairTrace closes every started attempt with no end, once', () => {
    const file = join(tmp(), 'trace.jsonl');
    const lines = [
      ev('start', 'a'),
      ev('end', 'a'),
      ev('start', 'b'),
      ev('error', 'b'),
      ev('start', 'b', 2),
      ev('start', 'c'),
    ];
    writeFileSync(file, lines.map((e) => JSON.stringify(e)).join('\n') + '\n{"event":"end","run":"r1","ti');
    const first = repairTrace(file, { now: () => Date.parse(T) });
    expect(first.appended.map((e) => `${e.step}#${e.attempt}`)).toEqual(['b#2', 'c#1']);
    expect(first.skippedLines).toEqual([7]);
    expect(first.appended[0]).toEqual({
      event: 'interrupted',
      run: 'r1',
      time: T,
      step: 'b',
      app: 'Weather',
      api: 'getweather',
      attempt: 2,
      error: { code: 'INTERRUPTED', message: 'the run ended (crash or kill) before this call finished' },
    });
    const events = readTrace(file);
    expect(events).toHaveLength(8);
    expect(unfinished(events)).toEqual([]);
    expect(repairTrace(file).appended).toEqual([]);
  });

  it('repairTrace keeps runs apart and treats a missing file as empty', () => {
    const dir = tmp();
    expect(repairTrace(join(dir, 'none.jsonl'))).toEqual({ appended: [], skippedLines: [] });
    const file = join(dir, 't.jsonl');
    appendFileSync(file, `${JSON.stringify(ev('start', 'a'))}\n`);
    appendFileSync(file, `${JSON.stringify({ ...ev('end', 'a'), run: 'r2' })}\n`);
    expect(repairTrace(file).appended.map((e) => `${e.run}/${e.step}`)).toEqual(['r1/a']);
  });

  it('after a SIGKILL mid-run, trace + repair has an end or interrupted record for every started step', async () => {
    const file = join(tmp(), 'killed.jsonl');
    const script = fileURLToPath(new URL('./__fixtures__/slow-run.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, file], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    // Wait until the three slow calls are in flight (and the two fast ones ended).
    const deadline = Date.now() + 20_000;
    let events: TraceEvent[] = [];
    for (;;) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        events = readTrace(file);
      } catch {
        events = [];
      }
      if (events.filter((e) => e.event === 'start').length >= 5) break;
      if (Date.now() > deadline) throw new Error(`child did not start its steps: ${stderr}`);
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const before = readTrace(file);
    expect(
      before
        .filter((e) => e.event === 'end')
        .map((e) => e.step)
        .sort(),
    ).toEqual(['w1', 'w2']);
    expect(unfinished(before).sort()).toEqual([
      'killed-run/slow1#1',
      'killed-run/slow2#1',
      'killed-run/slow3#1',
    ]);
    const { appended } = repairTrace(file);
    expect(appended.map((e) => e.step).sort()).toEqual(['slow1', 'slow2', 'slow3']);
    const after = readTrace(file);
    expect(unfinished(after)).toEqual([]);
    // The step that never started has no record at all.
    expect(after.some((e) => e.step === 'after')).toBe(false);

    // Resume: the two finished calls are reused from the trace, the rest run now.
    const { handlers, calls } = fakeHandlers(catalog);
    const res = await executePlan(slowPlan, {
      catalog,
      handlers,
      trace: jsonlTrace(file),
      resume: { runId: 'killed-run', events: after },
    });
    expect(res.status).toBe('succeeded');
    expect(res.runId).toBe('killed-run');
    expect(res.steps.filter((s) => s.resumed).map((s) => s.id)).toEqual(['w1', 'w2']);
    expect(calls.map((c) => `${c.api}(${Object.values(c.args).join()})`).sort()).toEqual([
      'findattractions(Oslo)',
      'findattractions(Rome)',
      'findmovies(Comedy)',
      'playmovie(findmovies.title)',
    ]);
    expect(unfinished(readTrace(file))).toEqual([]);
  }, 30_000);
});
