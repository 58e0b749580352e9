import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentTraceEvent } from '../agents/index.js';
import { sampleSolver, type TaskSample } from '../tasks/index.js';
import { minimalRunSpec } from './__fixtures__/run-spec.js';
import {
  BLOB_MIN_CHARS,
  headerLine,
  ResultsWriter,
  readResultsFile,
  recordedBeforeEvents,
  type SampleLine,
} from './results-file.js';
import { runEval } from './run-eval.js';
import { formatRunSummary, summarizeResults } from './summary.js';

/** A results file written before sample events existed (the AppBench baseline on two mini samples). */
const PRE_EVENTS = resolve(import.meta.dirname, '__fixtures__/pre-events-results.jsonl');
const usage = { inputTokens: 3, outputTokens: 2 };
const spec = minimalRunSpec({
  task: { name: 'toy', version: '1', options: {} },
  solver: { name: 'echo', options: {} },
  data: { path: '/data', sha256: null },
  size: 1,
});
const line = (id: string, extra: Partial<SampleLine> = {}): SampleLine => ({
  type: 'sample',
  id,
  epoch: 1,
  category: null,
  output: { reply: id },
  error: null,
  usage,
  modelCalls: 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  durationMs: 1,
  score: { ok: true },
  ...extra,
});
const stop: AgentTraceEvent = { type: 'stop', step: 1, reason: 'final', answer: 'a', usage, totalMs: 4 };
const tmpFile = () => join(mkdtempSync(join(tmpdir(), 'apiary-events-')), 'results.jsonl');
function write(file: string, lines: SampleLine[]): void {
  const w = ResultsWriter.open(file, 0);
  w.append(headerLine(spec));
  for (const l of lines) w.append(l);
  w.close();
}

describe('results written before events', () => {
  it('load with events absent, counted and flagged, never a crash', () => {
    const contents = readResultsFile(PRE_EVENTS);
    expect(contents.samples.map((s) => [s.id, s.events, recordedBeforeEvents(s)])).toEqual([
      ['ss-0', undefined, true],
      ['ss-1', undefined, true],
    ]);
    expect(contents.recordedBeforeEvents).toBe(2);
  });

  it('the summary says how many records have no events, and the table shows it', () => {
    const summary = summarizeResults(
      { summarize: () => null, dataset: [] },
      readResultsFile(PRE_EVENTS),
      PRE_EVENTS,
    );
    expect(summary.recordedBeforeEvents).toBe(2);
    expect(formatRunSummary(summary)).toMatch(/│ events +│ none on 2 records \(recorded before events\) +│/);
  });

  it('a file whose records all carry events has no such count (summary.json as before)', () => {
    const file = tmpFile();
    write(file, [line('a', { events: [stop] })]);
    const contents = readResultsFile(file);
    expect(contents.recordedBeforeEvents).toBe(0);
    const summary = summarizeResults({ summarize: () => null, dataset: [] }, contents, file);
    expect('recordedBeforeEvents' in summary).toBe(false);
  });
});

describe('sample events on the results line', () => {
  it('round-trip, their long texts stored once as blobs', () => {
    const system = 'S'.repeat(BLOB_MIN_CHARS);
    const turn: AgentTraceEvent = {
      type: 'turn',
      step: 1,
      sent: { system, messages: [{ role: 'user', content: 'hi' }] },
      reply: { text: 'a', toolCalls: [] },
      decision: 'final',
      usage,
      latencyMs: 2,
    };
    const file = tmpFile();
    write(file, [line('a', { events: [turn, stop] }), line('b', { events: [turn, stop] })]);
    const text = readFileSync(file, 'utf8');
    expect(text.split(system).length - 1).toBe(1); // one blob line holds it
    expect(readResultsFile(file).samples.map((s) => s.events)).toEqual([
      [turn, stop],
      [turn, stop],
    ]);
  });

  it('a malformed event is INPUT_INVALID naming the file, line and field', () => {
    const file = tmpFile();
    write(file, [line('a', { events: [stop] })]);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"reason":"final"', '"reason":"bored"'));
    expect(() => readResultsFile(file)).toThrow(
      expect.objectContaining({ code: 'INPUT_INVALID', file, record: 'line 2', field: 'events[0].reason' }),
    );
  });

  it('runEval records every sample with its events; the harness ends them with a stop when the solver did not say why it ended', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-events-run-'));
    const outFile = join(dir, 'results.jsonl');
    await runEval({
      task: {
        name: 'toy',
        version: '1',
        dataset: [{ id: 'quiet' }, { id: 'talks' }, { id: 'throws' }, { id: 'stops-then-throws' }],
        solver: sampleSolver(async (sample: TaskSample, ctx) => {
          if (sample.id === 'throws') throw new Error('no luck');
          if (sample.id === 'stops-then-throws') {
            ctx.events?.write(stop); // an agent run ended, then the solver found nothing to answer
            throw new Error('nothing selected');
          }
          if (sample.id === 'talks') ctx.events?.write({ ...stop, answer: 'said' });
          return { output: sample.id, usage };
        }),
        scorer: (_s: TaskSample, o: { output: unknown }) => ({ ok: o.output !== null }),
        summarize: () => null,
      },
      spec,
      outFile,
      lock: false,
      shuffle: false,
      deps: { now: () => new Date(0), monotonic: () => 0 },
    });
    const events = Object.fromEntries(
      readResultsFile(outFile).samples.map((s) => [
        s.id,
        s.events?.map((e) => ({ ...e, ...(e.type === 'stop' ? { totalMs: 0 } : {}) })),
      ]),
    );
    expect(events).toEqual({
      quiet: [{ type: 'stop', step: 0, reason: 'final', answer: null, usage, totalMs: 0 }],
      talks: [{ ...stop, answer: 'said', totalMs: 0 }],
      throws: [
        {
          type: 'stop',
          step: 0,
          reason: 'error',
          answer: null,
          detail: 'no luck',
          usage: { inputTokens: 0, outputTokens: 0 },
          totalMs: 0,
        },
      ],
      'stops-then-throws': [
        { ...stop, totalMs: 0 },
        {
          type: 'stop',
          step: 0,
          reason: 'error',
          answer: null,
          detail: 'nothing selected',
          usage: { inputTokens: 0, outputTokens: 0 },
          totalMs: 0,
        },
      ],
    });
  });
});

describe('typed output and score', () => {
  const schemas = {
    outputSchema: z.object({ reply: z.string() }),
    scoreSchema: z.object({ ok: z.boolean() }),
  };
  const forToy = (name: string) => (name === 'toy' ? schemas : undefined);

  it('records that fit the task schemas read as written (a failed output is null)', () => {
    const file = tmpFile();
    write(file, [line('a'), line('b', { output: null, error: 'x' })]);
    expect(readResultsFile(file, forToy).samples.map((s) => s.output)).toEqual([{ reply: 'a' }, null]);
  });

  it('an output or a score off its schema is INPUT_INVALID naming the file, line and field', () => {
    const file = tmpFile();
    write(file, [line('a'), line('b', { output: { reply: 7 } })]);
    expect(() => readResultsFile(file, forToy)).toThrow(
      expect.objectContaining({ code: 'INPUT_INVALID', file, record: 'line 3', field: 'output.reply' }),
    );
    write(file, [line('a', { score: { ok: 'yes' } })]);
    expect(() => readResultsFile(file, forToy)).toThrow(
      expect.objectContaining({ code: 'INPUT_INVALID', file, record: 'line 2', field: 'score.ok' }),
    );
  });

  it('a task the reader does not know is not checked', () => {
    const file = tmpFile();
    write(file, [line('a', { output: { reply: 7 } })]);
    expect(readResultsFile(file, () => undefined).samples).toHaveLength(1);
  });
});
