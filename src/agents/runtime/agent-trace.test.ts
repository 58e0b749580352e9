import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../exec/index.js';
import { nativeToolsProtocol } from '../protocols/native-tools.js';
import { reactProtocol } from '../protocols/react.js';
import {
  type AgentTraceEvent,
  AgentTraceEventSchema,
  memoryAgentTrace,
  outputAgentTrace,
  withoutStops,
} from './agent-trace.js';
import { runAgent } from './run-agent.js';
import type { AgentTool, Toolset, TurnReply, TurnTaker } from './types.js';

const weather: AgentTool = {
  name: 'Weather',
  description: 'weather',
  inputSchema: { type: 'object', properties: { x: { type: 'string' } } },
  app: 'App',
  api: 'Weather',
  parameters: [{ name: 'x', required: true, type: 'string' }],
};
const toolset: Toolset = {
  tools: [weather],
  run: async ({ args }): Promise<CallOutcome> => ({
    ok: true,
    content: [{ type: 'text', text: `rain in ${String(args.x)}` }],
    raw: {},
    transactional: false,
    durationMs: 0,
  }),
};
function scripted(replies: Array<Partial<TurnReply>>): TurnTaker {
  let i = 0;
  return async () => ({
    text: '',
    toolCalls: [],
    usage: { inputTokens: 10, outputTokens: 5 },
    latencyMs: 1,
    ...replies[Math.min(i++, replies.length - 1)],
  });
}
const nativeCall = (id: string, input: unknown) => ({
  id,
  name: 'Weather',
  input,
  inputText: JSON.stringify(input),
});
/** The events without their timings and payloads, for exact comparison. */
const shape = (events: AgentTraceEvent[]) =>
  events.map((e) =>
    e.type === 'repair'
      ? e
      : e.type === 'ask-user'
        ? e
        : e.type === 'call'
          ? { type: e.type, step: e.step, ok: e.ok }
          : { type: e.type, step: e.step },
  );

describe('runAgent events', () => {
  it('a call refused as INPUT_INVALID and then repaired gives a requested and a succeeded repair', async () => {
    const trace = memoryAgentTrace();
    const r = await runAgent({
      turn: scripted([
        {
          toolCalls: [
            { id: 'a', name: 'Weather', input: undefined, inputText: '{x:', invalid: 'JSON parse error' },
          ],
        },
        { toolCalls: [nativeCall('b', { x: 'Rome' })] },
        { text: 'Rain.' },
      ]),
      protocol: nativeToolsProtocol(),
      instruction: 'Rome?',
      toolset,
      trace,
    });
    expect(r.repairs).toBe(1);
    expect(shape(trace.events)).toEqual([
      { type: 'turn', step: 1 },
      { type: 'call', step: 1, ok: false },
      {
        type: 'repair',
        step: 1,
        kind: 'call',
        status: 'requested',
        tool: 'Weather',
        message: '[INPUT_INVALID] JSON parse error',
      },
      { type: 'turn', step: 2 },
      { type: 'call', step: 2, ok: true },
      { type: 'repair', step: 2, kind: 'call', status: 'succeeded', tool: 'Weather' },
      { type: 'turn', step: 3 },
      { type: 'stop', step: 3 },
    ]);
  });

  it('an unparseable reply fed back, then a call, gives a decode repair pair', async () => {
    const trace = memoryAgentTrace();
    await runAgent({
      turn: scripted([
        { text: 'Let me think.' },
        { text: 'Thought: look\nAction: Weather\nAction Input: {"x": "Rome"}' },
        { text: 'Thought: done\nFinal Answer: rain' },
      ]),
      protocol: reactProtocol(),
      instruction: '?',
      toolset,
      trace,
    });
    const repairs = trace.events.filter((e) => e.type === 'repair');
    expect(repairs).toEqual([
      { type: 'repair', step: 1, kind: 'decode', status: 'requested', message: expect.any(String) },
      { type: 'repair', step: 2, kind: 'decode', status: 'succeeded' },
    ]);
  });

  it('ask-user turns are events with the answer, or null when nobody answers', async () => {
    const ask = {
      toolCalls: [{ id: 'q', name: 'ask_user', input: { question: 'Which date?' }, inputText: '' }],
    };
    const answered = memoryAgentTrace();
    await runAgent({
      turn: scripted([ask, { text: 'Booked.' }]),
      protocol: nativeToolsProtocol(),
      instruction: 'Book',
      askUser: async () => 'Friday',
      trace: answered,
    });
    expect(answered.events.filter((e) => e.type === 'ask-user')).toEqual([
      { type: 'ask-user', step: 1, question: 'Which date?', answer: 'Friday' },
    ]);
    const unanswered = memoryAgentTrace();
    await runAgent({
      turn: scripted([ask]),
      protocol: nativeToolsProtocol(),
      instruction: 'Book',
      trace: unanswered,
    });
    expect(unanswered.events.map((e) => e.type)).toEqual(['turn', 'ask-user', 'stop']);
    expect(unanswered.events[1]).toEqual({
      type: 'ask-user',
      step: 1,
      question: 'Which date?',
      answer: null,
    });
  });

  it('every event runAgent writes passes the schema, as written and after a JSON round trip', async () => {
    const trace = memoryAgentTrace();
    await runAgent({
      turn: scripted([{ toolCalls: [nativeCall('a', { x: 'Rome' })] }, { text: 'Rain.' }]),
      protocol: nativeToolsProtocol(),
      instruction: 'Rome?',
      toolset,
      trace,
    });
    const back = JSON.parse(JSON.stringify(trace.events)) as unknown[];
    for (const e of back) expect(AgentTraceEventSchema.parse(e)).toEqual(e);
  });

  it('the schema refuses an unknown type and a stop without a reason, naming the field', () => {
    expect(AgentTraceEventSchema.safeParse({ type: 'dance', step: 1 }).success).toBe(false);
    const r = AgentTraceEventSchema.safeParse({
      type: 'stop',
      step: 1,
      answer: null,
      usage: { inputTokens: 0, outputTokens: 0 },
      totalMs: 0,
    });
    expect(r.success === false && r.error.issues[0]!.path).toEqual(['reason']);
  });

  it('outputAgentTrace keeps turns, calls and stops and forwards everything; withoutStops drops stops', () => {
    const all = memoryAgentTrace();
    const out = outputAgentTrace(withoutStops(all));
    const usage = { inputTokens: 0, outputTokens: 0 };
    out.write({ type: 'repair', step: 1, kind: 'decode', status: 'requested' });
    out.write({ type: 'stop', step: 1, reason: 'final', answer: 'x', usage, totalMs: 0 });
    expect(out.events.map((e) => e.type)).toEqual(['stop']);
    expect(all.events.map((e) => e.type)).toEqual(['repair']);
  });
});
