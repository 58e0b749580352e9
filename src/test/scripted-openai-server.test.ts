import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany, generateText } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedLanguageModel } from './scripted-model.js';
import {
  hashedBagOfWords,
  type ScriptedOpenAiServer,
  startScriptedOpenAiServer,
} from './scripted-openai-server.js';

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
});
