import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany, generateText, jsonSchema, type ModelMessage, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedLanguageModel } from './scripted-model.js';
import {
  hashedBagOfWords,
  type ScriptedChatRequest,
  type ScriptedOpenAiServer,
  startScriptedOpenAiServer,
} from './scripted-openai-server.js';

const weatherTools = {
  get_weather: tool({
    description: 'Weather in a city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
  }),
  get_time: tool({
    inputSchema: jsonSchema<{ tz: string }>({ type: 'object', properties: { tz: { type: 'string' } } }),
  }),
};

/** POSTs a chat request straight to the server and returns status, headers and parsed body. */
async function postChat(url: string, body: unknown) {
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: raw response JSON
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('startScriptedOpenAiServer', () => {
  it('answers chat completions over real HTTP with usage, and records requests', async () => {
    server = await startScriptedOpenAiServer({
      respond: ({ messages }) => ({
        text: `echo: ${messages.at(-1)?.content}`,
        usage: { prompt_tokens: 11, completion_tokens: 3 },
      }),
    });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.url, apiKey: 'k' });
    const result = await generateText({
      model: provider('m1'),
      system: 'sys',
      prompt: 'hello',
      maxRetries: 0,
    });
    expect(result.text).toBe('echo: hello');
    expect(result.usage.inputTokens).toBe(11);
    expect(result.usage.outputTokens).toBe(3);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.model).toBe('m1');
    expect(server.requests[0]?.messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hello' },
    ]);
  });

  it('with recordRequests: false answers as before and keeps no request', async () => {
    const seen: string[] = [];
    server = await startScriptedOpenAiServer({
      recordRequests: false,
      respond: ({ messages }) => {
        seen.push(messages.at(-1)!.content);
        return 'ok';
      },
    });
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.url });
    for (const prompt of ['one', 'two'])
      expect((await generateText({ model: provider('m'), prompt, maxRetries: 0 })).text).toBe('ok');
    expect(seen).toEqual(['one', 'two']);
    expect(server.requests).toEqual([]);
  });

  it('estimates usage as word counts when the script gives none', async () => {
    server = await startScriptedOpenAiServer({ respond: () => 'a b c' });
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.url });
    const result = await generateText({ model: provider('m'), prompt: 'one two', maxRetries: 0 });
    expect(result.usage.inputTokens).toBe(2);
    expect(result.usage.outputTokens).toBe(3);
  });

  it.each(['http429', 'http500', 'invalid-json', 'empty-choices'] as const)(
    'fault %s makes the call fail',
    async (fault) => {
      server = await startScriptedOpenAiServer({ respond: () => ({ fault }) });
      const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.url });
      await expect(generateText({ model: provider('m'), prompt: 'x', maxRetries: 0 })).rejects.toThrow();
    },
  );

  it('fault timeout never answers', async () => {
    server = await startScriptedOpenAiServer({ respond: () => ({ fault: 'timeout' }) });
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.url });
    await expect(
      generateText({
        model: provider('m'),
        prompt: 'x',
        maxRetries: 0,
        abortSignal: AbortSignal.timeout(200),
      }),
    ).rejects.toThrow();
  });

  it('answers with tool calls that generateText returns, and shows tools and tool_choice to the script', async () => {
    const seen: ScriptedChatRequest[] = [];
    server = await startScriptedOpenAiServer({
      respond: (req) => {
        seen.push(req);
        return {
          text: 'checking',
          toolCalls: [
            { id: 'c1', name: 'get_weather', arguments: { city: 'Paris' } },
            { name: 'get_time', arguments: '{"tz": "UTC"}' },
          ],
        };
      },
    });
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.url });
    const result = await generateText({
      model: provider('m'),
      prompt: 'weather and time?',
      tools: weatherTools,
      toolChoice: 'required',
      maxRetries: 0,
    });
    expect(result.text).toBe('checking');
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ['c1', 'get_weather', { city: 'Paris' }],
      ['call_1_1', 'get_time', { tz: 'UTC' }],
    ]);
    // completion tokens: "checking" + "get_weather" + '{"city":"Paris"}' + "get_time" + '{"tz": "UTC"}' (2 words)
    expect(result.usage.outputTokens).toBe(6);
    expect(seen[0]?.tool_choice).toBe('required');
    expect(seen[0]?.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather in a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
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

  it('sends a string argument verbatim (malformed JSON), null content without text, default ids', async () => {
    server = await startScriptedOpenAiServer({
      respond: () => ({ toolCalls: [{ name: 'get_weather', arguments: '{"city": ' }] }),
    });
    const { status, json } = await postChat(server.url, {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(status).toBe(200);
    expect(json.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1_0', type: 'function', function: { name: 'get_weather', arguments: '{"city": ' } },
          ],
        },
        finish_reason: 'tool_calls',
      },
    ]);
    // "get_weather" + '{"city":' = 2 words; prompt "hi" = 1 word
    expect(json.usage).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
  });

  it('shows scripts the full conversation: assistant tool_calls and tool results with tool_call_id', async () => {
    server = await startScriptedOpenAiServer({ respond: () => 'It is sunny.' });
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.url });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'let me look' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'get_weather',
            output: { type: 'json', value: { sky: 'clear' } },
          },
        ],
      },
    ];
    const result = await generateText({ model: provider('m'), messages, tools: weatherTools, maxRetries: 0 });
    expect(result.text).toBe('It is sunny.');
    expect(server.requests[0]?.messages).toEqual([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: 'let me look',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: 'tool', content: '{"sky":"clear"}', tool_call_id: 'c1' },
    ]);
  });

  it('delays one reply by its latencyMs and sends fault headers', async () => {
    let n = 0;
    server = await startScriptedOpenAiServer({
      respond: () =>
        ++n === 1 ? { fault: 'http429', headers: { 'retry-after': '2' } } : { text: 'late', latencyMs: 120 },
    });
    const limited = await postChat(server.url, { model: 'm', messages: [] });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    const start = performance.now();
    const late = await postChat(server.url, { model: 'm', messages: [] });
    expect(performance.now() - start).toBeGreaterThanOrEqual(110);
    expect(late.json.choices[0].message).toEqual({ role: 'assistant', content: 'late' });
  });

  it('serves deterministic normalised embeddings', async () => {
    server = await startScriptedOpenAiServer({ respond: () => '', embeddingDimension: 16 });
    const provider = createOpenAICompatible({ name: 'scripted', baseURL: server.url });
    const { embeddings } = await embedMany({
      model: provider.embeddingModel('e'),
      values: ['book a hotel', 'book a hotel', ''],
      maxRetries: 0,
    });
    expect(embeddings[0]).toHaveLength(16);
    expect(embeddings[0]).toEqual(embeddings[1]);
    expect(embeddings[0]).toEqual(hashedBagOfWords('Book a HOTEL', 16));
    expect(embeddings[2]).toEqual(new Array(16).fill(0));
    const norm = Math.sqrt((embeddings[0] ?? []).reduce((s, v) => s + v * v, 0));
    expect(norm).toBeCloseTo(1, 10);
  });
});

describe('scriptedLanguageModel', () => {
  it('answers in process and records the flattened prompt', async () => {
    const model = scriptedLanguageModel(({ messages }) => `got ${messages.length}`);
    const result = await generateText({ model, system: 's', prompt: 'u', maxRetries: 0 });
    expect(result.text).toBe('got 2');
    expect(model.scriptedRequests[0]?.messages).toEqual([
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
    ]);
  });

  it('returns tool calls in process and shows tools in the OpenAI shape', async () => {
    const model = scriptedLanguageModel(() => ({
      toolCalls: [{ id: 'c9', name: 'get_weather', arguments: { city: 'Oslo' } }],
    }));
    const result = await generateText({
      model,
      prompt: 'u',
      tools: weatherTools,
      toolChoice: { type: 'tool', toolName: 'get_weather' },
      maxRetries: 0,
    });
    expect(result.text).toBe('');
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ['c9', 'get_weather', { city: 'Oslo' }],
    ]);
    expect(model.scriptedRequests[0]?.tool_choice).toEqual({
      type: 'function',
      function: { name: 'get_weather' },
    });
    expect(
      model.scriptedRequests[0]?.tools?.map((t: { function: { name: string } }) => t.function.name),
    ).toEqual(['get_weather', 'get_time']);
  });

  it('flattens tool turns of the prompt like the HTTP wire', async () => {
    const model = scriptedLanguageModel(() => 'ok');
    await generateText({
      model,
      maxRetries: 0,
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'get_time', input: { tz: 'UTC' } }],
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
          ],
        },
      ],
    });
    expect(model.scriptedRequests[0]?.messages).toEqual([
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_time', arguments: '{"tz":"UTC"}' } },
        ],
      },
      { role: 'tool', content: '12:00', tool_call_id: 'c1' },
    ]);
  });
});
