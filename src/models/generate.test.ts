import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiaryError } from '../shared/index.js';
import {
  type ScriptedChatRequest,
  type ScriptedOpenAiServer,
  type ScriptedReply,
  startScriptedOpenAiServer,
} from '../test/index.js';
import { generate, type ModelToolSpec } from './generate.js';
import { retryAfterMs } from './model-faults.js';
import { addUsage, costOf } from './token-usage.js';

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that plays `replies` in order (the last one repeats). */
async function serverPlaying(replies: ScriptedReply[]) {
  let i = 0;
  server = await startScriptedOpenAiServer({ respond: () => replies[Math.min(i++, replies.length - 1)]! });
  return createOpenAICompatible({ name: 'scripted', baseURL: server.url })('m');
}

function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const user = (content: string): ModelMessage => ({ role: 'user', content });

const TOOLS: Record<string, ModelToolSpec> = {
  get_weather: {
    description: 'Weather in a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  get_time: { inputSchema: { type: 'object', properties: { tz: { type: 'string' } } } },
};

describe('generate', () => {
  it('returns a text reply with usage, finish reason, the assistant turn and latency', async () => {
    const model = await serverPlaying([
      { text: 'Hello there', usage: { prompt_tokens: 9, completion_tokens: 2 } },
    ]);
    const clock = [1000, 1250];
    const out = await generate({ model, system: 'S', messages: [user('hi')] }, { now: () => clock.shift()! });
    expect(out).toEqual({
      text: 'Hello there',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 9, outputTokens: 2 },
      attempts: 1,
      faults: [],
      responseMessages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello there' }] }],
      cacheHit: false,
      latencyMs: 250,
    });
    expect(server?.requests[0]?.messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('returns two tool calls and sends the tools as JSON Schema with the tool choice', async () => {
    const model = await serverPlaying([
      {
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'call_b', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
        ],
      },
    ]);
    const out = await generate({
      model,
      messages: [user('weather and time in Paris?')],
      tools: TOOLS,
      toolChoice: 'required',
    });
    expect(out.toolCalls).toEqual([
      { id: 'call_a', name: 'get_weather', input: { city: 'Paris' }, inputText: '{"city":"Paris"}' },
      { id: 'call_b', name: 'get_time', input: { tz: 'Europe/Paris' }, inputText: '{"tz":"Europe/Paris"}' },
    ]);
    expect(out.text).toBe('');
    expect(out.finishReason).toBe('tool-calls');
    expect(out.responseMessages).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call_a', toolName: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool-call', toolCallId: 'call_b', toolName: 'get_time', input: { tz: 'Europe/Paris' } },
        ],
      },
    ]);
    const body = server?.requests[0]?.body;
    expect(body.tool_choice).toBe('required');
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
      {
        type: 'function',
        function: {
          name: 'get_time',
          parameters: { type: 'object', properties: { tz: { type: 'string' } } },
        },
      },
    ]);
  });

  it('sends a forced tool choice in the OpenAI shape and returns an answer that ignores it as is', async () => {
    const model = await serverPlaying([
      'no tool for you',
      { toolCalls: [{ id: 'c', name: 'get_time', arguments: {} }] },
    ]);
    const ignored = await generate({
      model,
      messages: [user('x')],
      tools: TOOLS,
      toolChoice: { type: 'tool', toolName: 'get_time' },
    });
    expect(server?.requests[0]?.body.tool_choice).toEqual({
      type: 'function',
      function: { name: 'get_time' },
    });
    expect([ignored.text, ignored.toolCalls, ignored.finishReason, ignored.attempts]).toEqual([
      'no tool for you',
      [],
      'stop',
      1,
    ]);
    // 'none' is sent too, and a call made anyway comes back rather than failing
    const none = await generate({ model, messages: [user('x')], tools: TOOLS, toolChoice: 'none' });
    expect(server?.requests[1]?.body.tool_choice).toBe('none');
    expect(none.toolCalls).toEqual([{ id: 'c', name: 'get_time', input: {}, inputText: '{}' }]);
  });

  it('returns malformed arguments and unknown tools as invalid calls with the raw text, never throws', async () => {
    const model = await serverPlaying([
      {
        text: 'trying',
        toolCalls: [
          { id: 'bad', name: 'get_weather', arguments: '{"city": "Par' },
          { id: 'ghost', name: 'book_flight', arguments: { to: 'NYC' } },
          { id: 'good', name: 'get_time', arguments: { tz: 'UTC' } },
        ],
      },
    ]);
    const out = await generate({ model, messages: [user('x')], tools: TOOLS }, { sleep: async () => {} });
    expect(out.attempts).toBe(1);
    expect(out.text).toBe('trying');
    const [bad, ghost, good] = out.toolCalls;
    expect(bad).toMatchObject({
      id: 'bad',
      name: 'get_weather',
      input: undefined,
      inputText: '{"city": "Par',
    });
    expect(bad?.invalid).toMatch(
      /^Invalid input for tool get_weather: JSON parsing failed: Text: \{"city": "Par\./,
    );
    expect(ghost).toMatchObject({
      id: 'ghost',
      name: 'book_flight',
      input: { to: 'NYC' },
      inputText: '{"to":"NYC"}',
    });
    expect(ghost?.invalid).toBe(
      "Model tried to call unavailable tool 'book_flight'. Available tools: get_weather, get_time.",
    );
    expect(good).toEqual({ id: 'good', name: 'get_time', input: { tz: 'UTC' }, inputText: '{"tz":"UTC"}' });
    // only the assistant turn: tool results (errors included) are the caller's to add
    expect(out.responseMessages.map((m) => m.role)).toEqual(['assistant']);
  });

  it('sends a conversation with assistant tool calls and tool results on the OpenAI wire', async () => {
    const model = await serverPlaying(['It is 12:00 and sunny.']);
    const messages: ModelMessage[] = [
      user('time and weather?'),
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'get_time', input: { tz: 'UTC' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'get_time',
            output: { type: 'text', value: '12:00' },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'get_weather',
            output: { type: 'error-text', value: 'city not found' },
          },
        ],
      },
    ];
    const out = await generate({ model, system: 'S', messages, tools: TOOLS });
    expect(out.text).toBe('It is 12:00 and sunny.');
    const wire = server?.requests[0]?.body.messages;
    expect(wire).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'time and weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_time', arguments: '{"tz":"UTC"}' } },
          { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '12:00' },
      { role: 'tool', tool_call_id: 'c2', content: 'city not found' },
    ]);
  });

  it('leaves undefined settings out of the request and sends the ones given', async () => {
    const model = await serverPlaying(['a', 'b']);
    await generate({ model, messages: [user('x')] });
    const plain = server?.requests[0]?.body;
    for (const key of ['temperature', 'top_p', 'max_tokens', 'stop', 'seed', 'tools', 'tool_choice'])
      expect(key in plain).toBe(false);

    await generate({
      model,
      messages: [user('x')],
      settings: { temperature: 0.5, topP: null, maxOutputTokens: 64, stopSequences: ['END'], seed: 7 },
    });
    const tuned = server?.requests[1]?.body;
    expect([tuned.temperature, tuned.max_tokens, tuned.stop, tuned.seed]).toEqual([0.5, 64, ['END'], 7]);
    expect('top_p' in tuned).toBe(false);
  });

  it('waits Retry-After seconds on 429', async () => {
    const model = await serverPlaying([{ fault: 'http429', headers: { 'retry-after': '2' } }, 'ok']);
    const { waits, sleep } = recordingSleep();
    const out = await generate({ model, messages: [user('x')] }, { sleep });
    expect(out.text).toBe('ok');
    expect(out.faults).toEqual(['http429']);
    expect(waits).toEqual([2000]);
  });

  it('waits until a Retry-After HTTP date, and honours retry-after-ms, capped by maxDelayMs', async () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    const model = await serverPlaying([
      { fault: 'http429', headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:05 GMT' } },
      { fault: 'http429', headers: { 'retry-after-ms': '2500', 'retry-after': '9' } },
      { fault: 'http429', headers: { 'retry-after': '600' } },
      'ok',
    ]);
    const { waits, sleep } = recordingSleep();
    const out = await generate(
      { model, messages: [user('x')], retry: { baseDelayMs: 100, maxDelayMs: 20_000 } },
      { sleep, now: () => now },
    );
    expect(out.attempts).toBe(4);
    expect(waits).toEqual([5000, 2500, 20_000]);
  });

  it('retries a 5xx with exponential backoff, then succeeds', async () => {
    const model = await serverPlaying([{ fault: 'http500' }, { fault: 'http500' }, 'fine']);
    const { waits, sleep } = recordingSleep();
    const out = await generate({ model, messages: [user('x')] }, { sleep });
    expect([out.text, out.attempts, out.faults]).toEqual(['fine', 3, ['http5xx', 'http5xx']]);
    expect(waits).toEqual([1000, 2000]);
    expect(server?.requests).toHaveLength(3);
  });

  it('reports a refused connection as a network fault, then MODEL_CALL_FAILED', async () => {
    const closed = await startScriptedOpenAiServer({ respond: () => 'x' });
    await closed.close();
    const model = createOpenAICompatible({ name: 'scripted', baseURL: closed.url })('m');
    const { waits, sleep } = recordingSleep();
    const err = await generate(
      { model, messages: [user('x')], retry: { maxRetries: 2, baseDelayMs: 10 } },
      { sleep },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiaryError);
    expect((err as ApiaryError).code).toBe('MODEL_CALL_FAILED');
    expect((err as ApiaryError & { faults: string[] }).faults).toEqual(['network', 'network', 'network']);
    expect(APICallError.isInstance((err as Error).cause)).toBe(true);
    expect(waits).toEqual([10, 20]);
  });

  it('rethrows a caller abort mid-request at once, without retrying', async () => {
    const ac = new AbortController();
    server = await startScriptedOpenAiServer({
      respond: () => {
        setTimeout(() => ac.abort(new Error('user stop')), 20);
        return { text: 'too late', latencyMs: 2000 };
      },
    });
    const model = createOpenAICompatible({ name: 'scripted', baseURL: server.url })('m');
    const { waits, sleep } = recordingSleep();
    await expect(generate({ model, messages: [user('x')], signal: ac.signal }, { sleep })).rejects.toThrow(
      'user stop',
    );
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('sums usage over a conversation and prices it', async () => {
    let n = 0;
    server = await startScriptedOpenAiServer({
      respond: () => ({ text: `turn ${++n}`, usage: { prompt_tokens: 100 * n, completion_tokens: 7 } }),
    });
    const model = createOpenAICompatible({ name: 'scripted', baseURL: server.url })('m');
    const first = await generate({ model, messages: [user('a')] });
    const second = await generate({ model, messages: [user('a'), ...first.responseMessages, user('b')] });
    const total = addUsage(first.usage, second.usage);
    expect(total).toEqual({ inputTokens: 300, outputTokens: 14 });
    // 300 × $2.50/M + 14 × $10/M = 0.00075 + 0.00014
    expect(costOf(total, { inputPerMTok: 2.5, outputPerMTok: 10 })).toBeCloseTo(0.00089, 15);
    expect(costOf({ inputTokens: 1500, outputTokens: 300 }, { inputPerMTok: 2.5, outputPerMTok: 10 })).toBe(
      0.00675,
    );
    expect(
      server.requests[1]?.messages.map((m: ScriptedChatRequest['messages'][number]) => m.content),
    ).toEqual(['a', 'turn 1', 'b']);
  });
});

describe('retryAfterMs', () => {
  const e = (headers: Record<string, string>) =>
    new APICallError({
      message: 'm',
      url: 'u',
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: headers,
    });
  const now = Date.parse('2024-01-01T00:00:00Z');
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(retryAfterMs(e({ 'retry-after': '1.5' }), now)).toBe(1500);
    expect(retryAfterMs(e({ 'retry-after-ms': '250' }), now)).toBe(250);
    expect(retryAfterMs(e({ 'retry-after': 'Mon, 01 Jan 2024 00:00:30 GMT' }), now)).toBe(30_000);
  });
  it('gives 0 for a past date and undefined when absent or unreadable', () => {
    expect(retryAfterMs(e({ 'retry-after': 'Sun, 31 Dec 2023 23:59:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(e({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(e({}), now)).toBeUndefined();
    expect(retryAfterMs(new Error('x'), now)).toBeUndefined();
  });
});
