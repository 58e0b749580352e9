import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../shared/index.js';
import { LONG_SYSTEM, toyScoring, writeToyRun } from './__fixtures__/toy-run.js';
import { indexRun, newViewerToken, type RunIndex, viewerApp } from './index.js';
import { sampleHintsView, sampleTimeline, timelineItem } from './sample-view.js';

/*
 * A sample's events, as every record will carry them (`events`: the runtime's typed log), written
 * here by hand: model turns with usage, tool calls with arguments and outcome, the stop, and kinds
 * this viewer does not know yet.
 */

const usage = { inputTokens: 50, outputTokens: 7 };
const turn = {
  type: 'turn',
  step: 1,
  sent: { system: 'Use the tools.', messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
  reply: { text: '', toolCalls: [{ id: 'c1', name: 'Weather_get', input: { city: 'Oslo' } }] },
  decision: 'calls',
  usage,
  latencyMs: 30,
};
const okCall = {
  type: 'call',
  step: 1,
  id: 'c1',
  tool: 'Weather_get',
  app: 'Weather',
  api: 'get',
  args: { city: 'Oslo' },
  ok: true,
  result: '{"city":"Oslo","temp":9}\n[image](images/map.png)',
  durationMs: 4,
};
const failedCall = {
  ...okCall,
  id: 'c2',
  ok: false,
  result: undefined,
  error: { code: 'INPUT_INVALID', message: 'city: unknown' },
};
const observation = { type: 'observation', step: 1, text: 'It is cold.' };
const stop = { type: 'stop', step: 2, reason: 'final', answer: '9 °C', usage, totalMs: 80 };

describe('sampleTimeline', () => {
  it("reads the record's events kind by kind: known kinds as they are, anything else raw", () => {
    const timeline = sampleTimeline({ events: [turn, okCall, failedCall, observation, 'noise', stop] });
    expect(timeline).toEqual({
      source: 'events',
      items: [
        { kind: 'turn', event: turn },
        { kind: 'call', event: okCall },
        { kind: 'call', event: failedCall },
        { kind: 'other', label: 'observation', event: observation },
        { kind: 'other', label: 'event', event: 'noise' },
        { kind: 'stop', event: stop },
      ],
    });
  });

  it('a known kind not in the shape the page reads is shown raw, named as such', () => {
    expect(timelineItem({ type: 'turn', step: 1 })).toEqual({
      kind: 'other',
      label: 'turn (not in the shape this viewer reads)',
      event: { type: 'turn', step: 1 },
    });
    // a failed call must say why
    const { error: _e, ...noError } = failedCall;
    expect(timelineItem(noError).kind).toBe('other');
    expect(timelineItem({ ...stop, reason: 3 }).kind).toBe('other');
    expect(timelineItem(null)).toEqual({ kind: 'other', label: 'event', event: null });
  });

  it('records before events: the trace a tool-loop solver kept in its output; else none (events win)', () => {
    expect(sampleTimeline({ output: { reply: 'x', trace: [stop] } })).toEqual({
      source: 'output.trace',
      items: [{ kind: 'stop', event: stop }],
    });
    expect(sampleTimeline({ events: [], output: { trace: [stop] } })).toEqual({
      source: 'events',
      items: [],
    });
    expect(sampleTimeline({ output: { reply: 'x' } })).toBeNull();
    expect(sampleTimeline({ output: null })).toBeNull();
    expect(sampleTimeline({ events: { type: 'stop' }, output: null })).toBeNull();
  });
});

describe('sampleHintsView', () => {
  it("applies the task's hints; a hint that throws on an unexpected shape adds nothing", () => {
    const hints = {
      answer: (o: unknown) => (o as { reply: string }).reply,
      hiddenOutputFields: ['agent'],
      scoreFacts: (s: unknown) => [['gold', String((s as { gold: string[] }).gold.join(', '))] as const],
    };
    expect(sampleHintsView({ output: { reply: 'plan' }, score: { gold: ['a', 'b'] } }, hints)).toEqual({
      hiddenOutputFields: ['agent'],
      answer: 'plan',
      scoreFacts: [['gold', 'a, b']],
    });
    expect(sampleHintsView({ output: null, score: null }, hints)).toEqual({
      hiddenOutputFields: ['agent'],
      answer: null,
      scoreFacts: [],
    });
    // a legacy trace in the output is shown as the timeline, not again among the output fields
    expect(sampleHintsView({ output: {} }, {}, { source: 'output.trace', items: [] })).toEqual({
      hiddenOutputFields: ['trace'],
      answer: null,
      scoreFacts: [],
    });
  });
});

describe('viewer routes over records that carry events', () => {
  let index: RunIndex;
  let app: ReturnType<typeof viewerApp>;
  const token = newViewerToken();
  const get = async (path: string) =>
    (await app.request(`http://127.0.0.1${path}`, {
      headers: { cookie: `apiary_viewer_default=${token}` },
    })) as Response;
  const record = (id: string, events: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      type: 'sample',
      id,
      epoch: 1,
      category: 'e',
      output: { reply: `${id} reply`, agent: { steps: 2 } },
      error: null,
      usage,
      modelCalls: 2,
      startedAt: '2026-01-02T03:04:10.000Z',
      durationMs: 90,
      score: { accuracy: 1 },
      ...(events === undefined ? {} : { events }),
      ...extra,
    });

  beforeAll(async () => {
    const run = await writeToyRun(mkdtempSync(join(tmpdir(), 'apiary-viewer-events-')));
    const file = join(run, 'results.jsonl');
    // a long system text stored once as a blob line, referred to from a turn's events
    const sha = sha256Hex(LONG_SYSTEM);
    const longTurn = { ...turn, sent: { ...turn.sent, system: { $blob: sha } } };
    appendFileSync(
      file,
      [
        record('e-ok', [longTurn, okCall, observation, stop]),
        record('e-fail', [turn, failedCall, { type: 'turn', step: 2 }, stop]),
        record('e-none', undefined),
        '',
      ].join('\n'),
    );
    // the toy run already holds the blob line of LONG_SYSTEM (its trace refers to it)
    index = await indexRun(run, toyScoring);
    app = viewerApp(index, {
      token,
      hints: {
        answer: (o) => (o as { reply?: string } | null)?.reply ?? null,
        hiddenOutputFields: ['agent'],
        scoreFacts: (s) => [['accuracy as text', String((s as { accuracy: number }).accuracy)]],
      },
    });
  });

  it('lists error kinds from the events: a failed call is a tool error', () => {
    expect(index.samples.slice(7).map((e) => [e.id, e.errorKinds])).toEqual([
      ['e-ok', []],
      ['e-fail', ['tool']],
      ['e-none', []],
    ]);
  });

  it('/api/samples/:n: the events as the timeline (long texts put back), the hints applied', async () => {
    const body = (await (await get('/api/samples/7')).json()) as {
      record: Record<string, unknown>;
      view: unknown;
    };
    expect(body.record).not.toHaveProperty('events');
    expect(body.record.output).toEqual({ reply: 'e-ok reply', agent: { steps: 2 } });
    expect(body.view).toEqual({
      timeline: {
        source: 'events',
        items: [
          { kind: 'turn', event: { ...turn, sent: { ...turn.sent, system: LONG_SYSTEM } } },
          { kind: 'call', event: okCall },
          { kind: 'other', label: 'observation', event: observation },
          { kind: 'stop', event: stop },
        ],
      },
      hiddenOutputFields: ['agent'],
      answer: 'e-ok reply',
      scoreFacts: [['accuracy as text', '1']],
    });
    const failed = (await (await get('/api/samples/8')).json()) as {
      view: { timeline: { items: Array<{ kind: string; label?: string }> } };
    };
    expect(failed.view.timeline.items.map((i) => i.label ?? i.kind)).toEqual([
      'turn',
      'call',
      'turn (not in the shape this viewer reads)',
      'stop',
    ]);
    const none = (await (await get('/api/samples/9')).json()) as { view: { timeline: unknown } };
    expect(none.view.timeline).toBeNull();
  });

  it('serves the images the events name (and only files inside the run)', async () => {
    expect(index.namedFiles.has('images/map.png')).toBe(true);
    expect((await get('/api/file?path=images/map.png')).status).toBe(404); // named, inside, absent
    expect((await get('/api/file?path=images/plot.png')).status).toBe(200);
  });
});
