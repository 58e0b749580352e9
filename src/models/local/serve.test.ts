import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../test/index.js';
import { generate } from '../generate.js';
import { resolveModelSetup } from '../resolve-model.js';
import { createLocalModel } from './local-model.js';
import { type ModelServer, QUEUE_DEPTH_HEADER, startModelServer } from './serve.js';

const dir = mkdtempSync(join(tmpdir(), 'apiary-model-serve-'));
const tiny = join(dir, 'tiny.gguf');
let server: ModelServer;
const lines: string[] = [];

beforeAll(async () => {
  writeTinyGguf(tiny, { seed: 1 });
  server = await startModelServer(createLocalModel({ path: tiny, threads: 1 }), {
    log: (l) => lines.push(l),
  });
}, 60_000);
afterAll(() => server?.close());

/** Apiary's own `--base-url` route: the AI SDK's OpenAI-compatible provider. */
const client = () =>
  resolveModelSetup(
    { baseURL: server.url, model: server.model },
    { env: {}, cwd: dir, exists: () => false },
  )!;

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

describe('apiary model serve: a GGUF file as an OpenAI-compatible endpoint', { timeout: 60_000 }, () => {
  it('lists its model under the file name', async () => {
    expect(server.model).toBe('tiny.gguf');
    expect(await (await fetch(`${server.url}/models`)).json()).toEqual({
      object: 'list',
      data: [{ id: 'tiny.gguf', object: 'model', created: 0, owned_by: 'apiary' }],
    });
  });

  it('the AI SDK client gets a grammar-made tool call, with usage', async () => {
    const out = await generate({
      model: client().model,
      messages: [{ role: 'user', content: 'Book a table in Rome' }],
      tools: {
        book: {
          description: 'book a table',
          inputSchema: {
            type: 'object',
            properties: { city: { type: 'string', enum: ['Paris', 'Rome'] } },
            required: ['city'],
          },
        },
      },
      toolChoice: 'required',
      settings: { temperature: 0, maxOutputTokens: 60 },
      retry: { maxRetries: 0 },
    });
    expect(out.toolCalls.map((c) => c.name)).toEqual(['book']);
    expect(['Paris', 'Rome']).toContain((out.toolCalls[0]!.input as { city: string }).city);
    expect(out.finishReason).toBe('tool-calls');
    expect(out.usage.outputTokens).toBeGreaterThan(0);
  });

  it('response_format json_schema is decoded under the schema', async () => {
    const res = await post(
      JSON.stringify({
        model: 'tiny.gguf',
        messages: [{ role: 'user', content: 'pick' }],
        max_tokens: 40,
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'pick',
            schema: { type: 'object', properties: { n: { enum: [1, 2] } }, required: ['n'] },
          },
        },
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      choices: Array<{ message: { content: string }; finish_reason: string }>;
    };
    expect([1, 2]).toContain(JSON.parse(body.choices[0]!.message.content).n);
    expect(body.choices[0]!.finish_reason).toBe('stop');
  });

  it('streams through the AI SDK client', async () => {
    const result = streamText({
      model: client().model,
      prompt: 'hello',
      maxOutputTokens: 5,
      maxRetries: 0,
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text.length).toBeGreaterThan(0);
    expect((await result.usage).outputTokens).toBe(5);
  });

  it('queues requests one at a time and says how many were ahead', async () => {
    const ask = () =>
      post(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 })).then((r) =>
        Number(r.headers.get(QUEUE_DEPTH_HEADER)),
      );
    const depths = await Promise.all([ask(), ask(), ask()]);
    expect(depths.sort()).toEqual([0, 1, 2]);
    expect(await (await fetch(`${server.url}/queue`)).json()).toMatchObject({ depth: 0 });
    expect(lines.at(-1)).toMatch(/^chat completion \d+: \d ahead in the queue, \d+ in \/ 20 out, \d+ ms$/);
  });

  it("refuses a client's GBNF grammar that llama.cpp would expand past its budget (memory in native code)", async () => {
    // each x{1999} is 1,999 grammar elements in llama.cpp: 7,000 of them in 56 KB would be 14 million
    const wide = `root ::= ${'x{1999} '.repeat(7000)}\nx ::= "a"`;
    const tooWide = await post(
      JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], grammar: wide }),
    );
    expect(tooWide.status).toBe(400);
    expect(await tooWide.json()).toMatchObject({
      error: {
        message: 'grammar: repetitions expand to 13993000 grammar elements, over the limit of 100000',
      },
    });
    const long = await post(
      JSON.stringify({
        messages: [{ role: 'user', content: 'hi' }],
        grammar: `root ::= "${'a'.repeat(70_000)}"`,
      }),
    );
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({
      error: { message: 'grammar: Too big: expected string to have <=65536 characters' },
    });
    const fine = await post(
      JSON.stringify({
        messages: [{ role: 'user', content: 'hi' }],
        grammar: 'root ::= "y"{2} "es"',
        max_tokens: 8,
      }),
    );
    expect(fine.status).toBe(200);
    expect(
      ((await fine.json()) as { choices: [{ message: { content: string } }] }).choices[0].message.content,
    ).toBe('yyes');
  });

  it('bad JSON, a bad request and an oversized body are OpenAI-style errors', async () => {
    const bad = await post('{"messages": [');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { type: 'invalid_request_error', param: null, code: null },
    });
    const noMessages = await post(JSON.stringify({ model: 'x' }));
    expect(noMessages.status).toBe(400);
    expect(await noMessages.json()).toEqual({
      error: {
        message: 'messages: Invalid input: expected array, received undefined',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    const big = await post(
      JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(9 * 1024 * 1024) }] }),
    );
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { message: 'request body larger than 8388608 bytes' } });
  });
});
