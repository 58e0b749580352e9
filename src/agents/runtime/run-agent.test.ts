import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../exec/index.js';
import { nativeToolsProtocol } from '../protocols/native-tools.js';
import { reactProtocol } from '../protocols/react.js';
import { memoryAgentTrace } from './agent-trace.js';
import { runAgent } from './run-agent.js';
import type { AgentTool, Toolset, TurnReply, TurnRequest, TurnTaker } from './types.js';

const tool = (name: string, params: string[] = ['x']): AgentTool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) },
  app: 'App',
  api: name,
  parameters: params.map((p) => ({ name: p, required: true, type: 'string' })),
});

function ok(text: string): CallOutcome {
  return { ok: true, content: [{ type: 'text', text }], raw: { text }, transactional: false, durationMs: 0 };
}

/** Tools that answer `<name>(<args json>)` after `delayMs`, recording calls and their overlap. */
function fakeToolset(
  tools: AgentTool[],
  delayMs = 0,
  fail?: (name: string, args: Record<string, unknown>) => CallOutcome | undefined,
) {
  const seen: Array<{ tool: string; args: Record<string, unknown> }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const toolset: Toolset = {
    tools,
    async run({ tool, args }, signal) {
      seen.push({ tool: tool.name, args });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, delayMs);
          signal?.addEventListener('abort', () => {
            clearTimeout(t);
            reject(new Error('aborted'));
          });
        });
      } catch {
        return {
          ok: false,
          error: { code: 'CANCELLED', message: 'cancelled' },
          transactional: false,
          durationMs: 0,
          dispatched: true,
        };
      } finally {
        inFlight--;
      }
      return fail?.(tool.name, args) ?? ok(`${tool.name}(${JSON.stringify(args)})`);
    },
  };
  return { toolset, seen, maxInFlight: () => maxInFlight };
}

/** A turn taker that plays replies in order and records the requests. */
function scripted(replies: Array<Partial<TurnReply>>) {
  const requests: TurnRequest[] = [];
  const turn: TurnTaker = async (req) => {
    requests.push(structuredClone(req));
    const r = replies[Math.min(requests.length - 1, replies.length - 1)]!;
    return { text: '', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, latencyMs: 1, ...r };
  };
  return { turn, requests };
}

const call = (id: string, name: string, input: unknown) => ({
  id,
  name,
  input,
  inputText: JSON.stringify(input),
});

describe('runAgent', () => {
  it('runs two independent calls of one turn in parallel, feeds results back, ends with the answer', async () => {
    const { toolset, seen, maxInFlight } = fakeToolset([tool('Weather'), tool('Hotels')], 30);
    const { turn, requests } = scripted([
      { toolCalls: [call('a', 'Weather', { x: 'Paris' }), call('b', 'Hotels', { x: 'Paris' })] },
      { text: 'Sunny, and Hotel Lux is free.' },
    ]);
    const trace = memoryAgentTrace();
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: 'Plan Paris',
      toolset,
      trace,
    });
    expect(r.stopReason).toBe('final');
    expect(r.answer).toBe('Sunny, and Hotel Lux is free.');
    expect(seen.map((s) => s.tool)).toEqual(['Weather', 'Hotels']);
    expect(maxInFlight()).toBe(2);
    expect(r.steps).toBe(2);
    expect(r.usage).toEqual({ inputTokens: 20, outputTokens: 10 });
    // The second request carries the assistant tool calls and both tool results.
    const second = requests[1]!.messages;
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second[2]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'a',
          toolName: 'Weather',
          output: { type: 'text', value: 'Weather({"x":"Paris"})' },
        },
        {
          type: 'tool-result',
          toolCallId: 'b',
          toolName: 'Hotels',
          output: { type: 'text', value: 'Hotels({"x":"Paris"})' },
        },
      ],
    });
    expect(trace.events.map((e) => e.type)).toEqual(['turn', 'call', 'call', 'turn', 'stop']);
    expect(requests[0]!.tools && Object.keys(requests[0]!.tools)).toEqual(['Weather', 'Hotels', 'ask_user']);
  });

  it('feeds an invalid call back as a tool error; the model repairs it (counted as a repair)', async () => {
    const { toolset, seen } = fakeToolset([tool('Weather')]);
    const { turn, requests } = scripted([
      {
        toolCalls: [
          { id: 'a', name: 'Weather', input: undefined, inputText: '{x:', invalid: 'JSON parse error' },
        ],
      },
      { toolCalls: [call('b', 'Weather', { x: 'Rome' })] },
      { text: 'Rain.' },
    ]);
    const r = await runAgent({ turn, protocol: nativeToolsProtocol(), instruction: 'Rome?', toolset });
    expect(r.stopReason).toBe('final');
    expect(r.callErrors).toBe(1);
    expect(r.repairs).toBe(1);
    expect(seen).toEqual([{ tool: 'Weather', args: { x: 'Rome' } }]);
    expect(r.calls[0]!.outcome).toMatchObject({
      ok: false,
      error: { code: 'INPUT_INVALID' },
      dispatched: false,
    });
    const fed = requests[1]!.messages[2];
    expect(fed).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'a',
          toolName: 'Weather',
          output: { type: 'error-text', value: 'invalid arguments (JSON parse error): {x:' },
        },
      ],
    });
  });

  it('stops at the repair cap per tool with a reason', async () => {
    const { toolset } = fakeToolset([tool('Weather')]);
    const bad = { toolCalls: [{ id: 'a', name: 'Weather', input: 'x', inputText: 'x' }] };
    const { turn } = scripted([bad]);
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: '?',
      toolset,
      budget: { maxRepairsPerTool: 2 },
    });
    expect(r.stopReason).toBe('repair-limit');
    expect(r.steps).toBe(3);
    expect(r.detail).toBe('3 invalid calls of Weather: the arguments must be a JSON object');
  });

  it('stops a repeated identical call before running it a third time', async () => {
    const { toolset, seen } = fakeToolset([tool('Weather')]);
    const { turn } = scripted([{ toolCalls: [call('a', 'Weather', { x: 'Oslo' })] }]);
    const r = await runAgent({ turn, protocol: nativeToolsProtocol(), instruction: '?', toolset });
    expect(r.stopReason).toBe('repeated-call');
    expect(seen).toHaveLength(2);
    expect(r.detail).toBe('Weather called again with the same arguments (already run 2×)');
  });

  it('reports the step budget as a clear stop reason', async () => {
    const { toolset } = fakeToolset([tool('Weather')]);
    let i = 0;
    const turn: TurnTaker = async () => ({
      text: '',
      toolCalls: [call(`c${i}`, 'Weather', { x: `city ${i++}` })],
      usage: { inputTokens: 1, outputTokens: 1 },
      latencyMs: 0,
    });
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: '?',
      toolset,
      budget: { maxSteps: 3 },
    });
    expect(r).toMatchObject({
      stopReason: 'step-budget',
      answer: null,
      steps: 3,
      detail: 'no final answer within 3 turns',
    });
    expect(r.calls).toHaveLength(3);
  });

  it('stops at the token budget', async () => {
    const { toolset } = fakeToolset([tool('Weather')]);
    let i = 0;
    const turn: TurnTaker = async () => ({
      text: '',
      toolCalls: [call(`c${i}`, 'Weather', { x: `${i++}` })],
      usage: { inputTokens: 40, outputTokens: 10 },
      latencyMs: 0,
    });
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: '?',
      toolset,
      budget: { maxTokens: 120 },
    });
    expect(r).toMatchObject({ stopReason: 'token-budget', steps: 3, detail: '150 tokens used, budget 120' });
  });

  it('ends with ask-user, or continues when an answer provider is given', async () => {
    const ask = { toolCalls: [call('q', 'ask_user', { question: 'Which date?' })] };
    const a = await runAgent({
      turn: scripted([ask]).turn,
      protocol: nativeToolsProtocol(),
      instruction: 'Book',
    });
    expect(a).toMatchObject({ stopReason: 'ask-user', question: 'Which date?', answer: null });
    const s = scripted([ask, { text: 'Booked for Friday.' }]);
    const b = await runAgent({
      turn: s.turn,
      protocol: nativeToolsProtocol(),
      instruction: 'Book',
      askUser: async () => 'Friday',
    });
    expect(b.answer).toBe('Booked for Friday.');
    expect(s.requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'Friday' });
  });

  it('counts decode failures apart, feeds the ReAct format error back, and recovers', async () => {
    const { toolset } = fakeToolset([tool('Calculator', ['expression'])]);
    const s = scripted([
      { text: 'Let me think about it.' },
      { text: 'Thought: compute\nAction: Calculator\nAction Input: {"expression": "6*7"}' },
      { text: 'Thought: done\nFinal Answer: 42' },
    ]);
    const r = await runAgent({ turn: s.turn, protocol: reactProtocol(), instruction: '6 times 7?', toolset });
    expect(r).toMatchObject({
      stopReason: 'final',
      answer: ' 42',
      decodeFailures: 1,
      repairs: 1,
      callErrors: 0,
    });
    expect(s.requests[2]!.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Let me think about it.' },
      { role: 'system', content: 'Response:Please follow the format\n' },
      {
        role: 'assistant',
        content: 'Thought: compute\nAction: Calculator\nAction Input: {"expression": "6*7"}',
      },
      { role: 'system', content: 'Response:Calculator({"expression":"6*7"})\n' },
    ]);
  });

  it('stops after too many unparseable replies in a row', async () => {
    const r = await runAgent({
      turn: scripted([{ text: 'blah' }]).turn,
      protocol: reactProtocol(),
      instruction: '?',
      budget: { maxDecodeFailures: 1 },
    });
    expect(r).toMatchObject({ stopReason: 'decode-limit', decodeFailures: 2, steps: 2 });
  });

  it('turns a model failure into a stop reason (no throw)', async () => {
    const turn: TurnTaker = async () => {
      throw new Error('MODEL_CALL_FAILED: 5 attempts');
    };
    const trace = memoryAgentTrace();
    const r = await runAgent({ turn, protocol: nativeToolsProtocol(), instruction: '?', trace });
    expect(r).toMatchObject({ stopReason: 'model-error', detail: 'MODEL_CALL_FAILED: 5 attempts', steps: 1 });
    expect(trace.events.map((e) => e.type)).toEqual(['stop']);
  });

  it('cancellation mid-call closes every call in the trace and stops', async () => {
    const { toolset } = fakeToolset([tool('Slow')], 10_000);
    const ac = new AbortController();
    const turn: TurnTaker = async () => {
      setTimeout(() => ac.abort(), 20);
      return {
        text: '',
        toolCalls: [call('a', 'Slow', { x: '1' }), call('b', 'Slow', { x: '2' })],
        usage: { inputTokens: 1, outputTokens: 1 },
        latencyMs: 0,
      };
    };
    const trace = memoryAgentTrace();
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: '?',
      toolset,
      signal: ac.signal,
      trace,
    });
    expect(r.stopReason).toBe('cancelled');
    expect(trace.events.map((e) => e.type)).toEqual(['turn', 'call', 'call', 'stop']);
    expect(r.calls.map((c) => !c.outcome.ok && c.outcome.error.code)).toEqual(['CANCELLED', 'CANCELLED']);
  });
});
