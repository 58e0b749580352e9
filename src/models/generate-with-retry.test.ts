import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiaryError } from '../shared/index.js';
import { type ScriptedOpenAiServer, type ScriptedReply, startScriptedOpenAiServer } from '../test/index.js';
import { classifyModelError, generateWithRetry } from './generate-with-retry.js';

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

describe('generateWithRetry', () => {
  it('sends system + user with the AppBench sampling settings and returns text and usage', async () => {
    server = await startScriptedOpenAiServer({
      respond: () => ({
        text: 'Hotels: [x = Hotels_searchhouse()]',
        usage: { prompt_tokens: 7, completion_tokens: 5 },
      }),
    });
    const model = createOpenAICompatible({ name: 'scripted', baseURL: server.url })('m');
    const out = await generateWithRetry({ model, system: 'S', user: 'U' });
    expect(out).toEqual({
      text: 'Hotels: [x = Hotels_searchhouse()]',
      usage: { inputTokens: 7, outputTokens: 5 },
      attempts: 1,
      faults: [],
    });
    const body = server.requests[0]?.body;
    expect(body.temperature).toBe(0);
    expect(body.top_p).toBe(0);
    expect(body.max_tokens).toBe(1024);
    expect(server.requests[0]?.messages).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'U' },
    ]);
  });

  it('omits top_p when settings.topP is null and inserts history turns', async () => {
    const model = await serverPlaying(['ok']);
    await generateWithRetry({
      model,
      system: 'S',
      user: 'U2',
      history: [
        { role: 'user', content: 'U1' },
        { role: 'assistant', content: 'A1' },
      ],
      settings: { topP: null },
    });
    expect('top_p' in (server?.requests[0]?.body ?? {})).toBe(false);
    expect(server?.requests[0]?.messages.map((m) => m.content)).toEqual(['S', 'U1', 'A1', 'U2']);
  });

  it.each([
    ['http429', 'http429'],
    ['http500', 'http5xx'],
    ['invalid-json', 'invalid-json'],
    ['empty-choices', 'empty-choices'],
    ['timeout', 'timeout'],
  ] as const)('retries fault %s, records it as %s, then succeeds', async (fault, recorded) => {
    const model = await serverPlaying([{ fault }, { fault }, 'done']);
    const { waits, sleep } = recordingSleep();
    const out = await generateWithRetry(
      { model, system: 'S', user: 'U', timeoutMs: 300, baseDelayMs: 100, maxRetries: 3 },
      { sleep },
    );
    expect(out.text).toBe('done');
    expect(out.attempts).toBe(3);
    expect(out.faults).toEqual([recorded, recorded]);
    expect(waits).toEqual([100, 200]);
    expect(server?.requests).toHaveLength(3);
  });

  it('throws MODEL_CALL_FAILED with the cause after the last retry', async () => {
    const model = await serverPlaying([{ fault: 'http500' }]);
    const { waits, sleep } = recordingSleep();
    const err = await generateWithRetry(
      { model, system: 'S', user: 'U', maxRetries: 2, baseDelayMs: 10, maxDelayMs: 15 },
      { sleep },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiaryError);
    expect((err as ApiaryError).code).toBe('MODEL_CALL_FAILED');
    expect((err as ApiaryError & { faults: string[] }).faults).toEqual(['http5xx', 'http5xx', 'http5xx']);
    expect(APICallError.isInstance((err as Error).cause)).toBe(true);
    expect(waits).toEqual([10, 15]);
    expect(server?.requests).toHaveLength(3);
  });

  it('retries a refused connection as a network fault', async () => {
    const closed = await startScriptedOpenAiServer({ respond: () => 'x' });
    const url = closed.url;
    await closed.close();
    const model = createOpenAICompatible({ name: 'scripted', baseURL: url })('m');
    const err = await generateWithRetry(
      { model, system: 'S', user: 'U', maxRetries: 1 },
      { sleep: async () => {} },
    ).catch((e: unknown) => e);
    expect((err as ApiaryError).code).toBe('MODEL_CALL_FAILED');
    expect((err as ApiaryError & { faults: string[] }).faults).toEqual(['network', 'network']);
  });

  it('does not retry a client error (400)', async () => {
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        calls++;
        throw new APICallError({ message: 'bad request', url: 'x', requestBodyValues: {}, statusCode: 400 });
      },
    });
    const err = await generateWithRetry({ model, system: 'S', user: 'U' }, { sleep: async () => {} }).catch(
      (e: unknown) => e,
    );
    expect((err as ApiaryError).code).toBe('MODEL_CALL_FAILED');
    expect((err as ApiaryError & { faults: string[] }).faults).toEqual(['fatal']);
    expect(calls).toBe(1);
  });

  it('rethrows a caller abort without retrying', async () => {
    const ac = new AbortController();
    // the caller aborts once the request has reached the (hanging) server
    server = await startScriptedOpenAiServer({
      respond: () => {
        setTimeout(() => ac.abort(new Error('stop')), 10);
        return { fault: 'timeout' };
      },
    });
    const model = createOpenAICompatible({ name: 'scripted', baseURL: server.url })('m');
    await expect(
      generateWithRetry(
        { model, system: 'S', user: 'U', signal: ac.signal, timeoutMs: 10_000 },
        { sleep: async () => {} },
      ),
    ).rejects.toThrow('stop');
    expect(server?.requests).toHaveLength(1);
  });
});

describe('classifyModelError', () => {
  it('maps status codes', () => {
    const e = (statusCode?: number) =>
      new APICallError({ message: 'm', url: 'u', requestBodyValues: {}, statusCode });
    expect(classifyModelError(e(429), false)).toBe('http429');
    expect(classifyModelError(e(503), false)).toBe('http5xx');
    expect(classifyModelError(e(401), false)).toBe('fatal');
    expect(classifyModelError(e(undefined), false)).toBe('network');
    expect(classifyModelError(new Error('x'), true)).toBe('timeout');
  });
});
