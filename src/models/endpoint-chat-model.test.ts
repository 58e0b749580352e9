import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, describe, expect, it } from 'vitest';
import { createEndpointChatModel, leanAnswer } from './endpoint-chat-model.js';
import { createEndpointFetch, createEndpointPool } from './endpoint-fetch.js';
import { constraintProviderOptions } from './grammar/constraint.js';
import type { LanguageModelV3 } from './sampling.js';

type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];

interface Canned {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server answering every request with `answer()` (no Date header), recording the raw bodies. */
async function cannedServer(answer: () => Canned) {
  const bodies: string[] = [];
  const heads: string[] = [];
  const server = createServer((req, res) => {
    const h = req.headers;
    heads.push(
      [req.method, req.url, h['content-type'], h.authorization, h['user-agent'], h['content-length']].join(
        ' | ',
      ),
    );
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      const a = answer();
      res.sendDate = false;
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  closers.push(() => server.closeAllConnections());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, heads };
}

/** The lean model, counting the calls of its fetch (only the provider's own path uses it). */
function leanModel(baseURL: string, apiKey?: string) {
  const counted = { calls: 0 };
  const inner = createEndpointFetch();
  const fetchCounting: typeof fetch = (input, init) => {
    counted.calls++;
    return inner(input, init);
  };
  const model = createEndpointChatModel({
    name: 'apiary',
    baseURL,
    modelId: 'm',
    ...(apiKey ? { apiKey } : {}),
    pool: createEndpointPool(),
    fetch: fetchCounting,
  });
  return { model, counted };
}

const providerModel = (baseURL: string, apiKey?: string) =>
  createOpenAICompatible({ name: 'apiary', baseURL, includeUsage: true, ...(apiKey ? { apiKey } : {}) })('m');

const LONG = `${'Plan the calls. "Quote" \\ back\n\ttab é ü 😀 \u2028 '.repeat(60)}end`;
const call = (over: Partial<CallOptions> = {}): CallOptions => ({
  prompt: [
    { role: 'system', content: LONG },
    { role: 'user', content: [{ type: 'text', text: 'Book a table for "two"' }] },
  ],
  headers: { 'user-agent': 'ai/test' },
  ...over,
});

/** What a doGenerate gave, comparable across two servers (no ports, no timing). */
async function outcome(model: LanguageModelV3, options: CallOptions) {
  try {
    return { ok: await model.doGenerate(options) };
  } catch (e) {
    const err = e as Error & Record<string, unknown>;
    return {
      error: {
        name: err.name,
        message: String(err.message).replace(/127\.0\.0\.1:\d+/g, 'HOST'),
        statusCode: err.statusCode,
        responseBody: err.responseBody,
        responseHeaders: err.responseHeaders,
        isRetryable: err.isRetryable,
        cause: String((err.cause as Error | undefined)?.message ?? '').replace(/127\.0\.0\.1:\d+/g, 'HOST'),
      },
    };
  }
}

const ok = (message: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    created: 1700000000,
    model: 'm-1',
    choices: [{ index: 0, message, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    ...extra,
  });

/** Answers the lean path reads itself. */
const LEAN: Canned[] = [
  { body: ok({ role: 'assistant', content: 'Hello' }) },
  { body: ok({ role: 'assistant', content: '' }) },
  { body: ok({ role: 'assistant', content: null, refusal: null }), headers: { 'x-request-id': 'r1' } },
  {
    body: JSON.stringify({
      choices: [{ message: { content: 'no ids' }, finish_reason: 'length', logprobs: null }],
      usage: {
        prompt_tokens: 5,
        completion_tokens: 4,
        prompt_tokens_details: { cached_tokens: 2 },
        completion_tokens_details: { reasoning_tokens: 1, accepted_prediction_tokens: 3 },
        extra: 'kept',
      },
      system_fingerprint: 'fp',
    }),
  },
  {
    body: ok({ content: 'weird finish' }, { choices: [{ message: { content: 'x' }, finish_reason: 'eos' }] }),
  },
  { body: ok({ role: 'assistant', content: 'no usage' }, { usage: null }) },
];

/** Answers the provider reads (given to it as its fetch's response). */
const PROVIDER_READS: Canned[] = [
  { body: ok({ role: 'assistant', content: 'a', reasoning_content: 'thinking' }) },
  {
    body: ok({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }],
    }),
  },
  { body: ok({ role: 'assistant', content: [{ type: 'text', text: 'parts' }] }) },
  {
    body: ok(
      {},
      {
        choices: [
          { message: { content: 'one' }, finish_reason: 'stop' },
          { message: { content: 'two' }, finish_reason: 'stop' },
        ],
      },
    ),
  },
  { body: ok({}, { choices: [] }) },
  { body: ok({ content: 'x' }, { created: 'yesterday' }) },
  { body: ok({ content: 'x' }, { usage: { prompt_tokens: '5' } }) },
  { body: ok({ role: 'user', content: 'x' }) },
  { body: '{"choices": [' },
  { body: '{"__proto__": {"x": 1}, "choices": []}' },
  { body: `\ufeff${ok({ content: 'bom' })}` },
  { status: 500, body: JSON.stringify({ error: { message: 'boom', type: 'server_error' } }) },
  { status: 429, headers: { 'retry-after': '3' }, body: JSON.stringify({ error: { message: 'slow down' } }) },
  { status: 400, body: 'not json at all' },
];

describe('createEndpointChatModel', () => {
  it('sends the bytes, headers and URL the provider sends, for every sampling setting and text prompt', async () => {
    const lean = await cannedServer(() => LEAN[0]!);
    const prov = await cannedServer(() => LEAN[0]!);
    const { model } = leanModel(lean.url, 'sk-test-key-123456');
    const provider = providerModel(prov.url, 'sk-test-key-123456');
    const calls: CallOptions[] = [
      call(),
      call({ temperature: 0, topP: 0, maxOutputTokens: 1024 }),
      call({ temperature: 0.7, stopSequences: ['END', '\n'], seed: 7, maxOutputTokens: 1 }),
      call({
        prompt: [
          { role: 'system', content: 'short' },
          {
            role: 'user',
            content: [
              { type: 'text', text: LONG },
              { type: 'text', text: 'second part' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'first ' },
              { type: 'text', text: 'reply' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'and?' }], providerOptions: { other: { a: 1 } } },
        ],
      }),
      call({ prompt: [{ role: 'user', content: [] }] }),
    ];
    for (const options of [call(), ...calls]) {
      await model.doGenerate(options);
      await provider.doGenerate(options);
    }
    expect(lean.bodies).toEqual(prov.bodies);
    expect(lean.heads).toEqual(prov.heads);
    expect(lean.bodies).toHaveLength(6);
    expect(lean.heads[1]).toMatch(
      /^POST \| \/v1\/chat\/completions \| application\/json \| Bearer sk-test-key-123456 \| ai\/test ai-sdk\/provider-utils\/[\d.]+ runtime\/node\.js\/v[\d.]+ \| \d+$/,
    );
    expect(JSON.parse(lean.bodies[2]!)).toMatchObject({ temperature: 0, top_p: 0, max_tokens: 1024 });
  });

  it('gives exactly what the provider gives for a plain text answer, reading it itself after the first call', async () => {
    let i = 0;
    let j = 0;
    const lean = await cannedServer(() => LEAN[i++ % LEAN.length]!);
    const prov = await cannedServer(() => LEAN[j++ % LEAN.length]!);
    const { model, counted } = leanModel(lean.url);
    const provider = providerModel(prov.url);
    // the first call goes through the provider, which shows the URL and headers it posts with
    expect(await outcome(model, call())).toEqual(await outcome(provider, call()));
    expect(counted.calls).toBe(1);
    for (let k = 1; k < LEAN.length + 1; k++) {
      expect(await outcome(model, call())).toEqual(await outcome(provider, call()));
    }
    expect(counted.calls).toBe(1);
    expect([lean.bodies.length, prov.bodies.length]).toEqual([LEAN.length + 1, LEAN.length + 1]);
  });

  it('a grammar constraint (for local models; never on the wire) keeps a turn on the lean path, same bytes', async () => {
    const lean = await cannedServer(() => LEAN[0]!);
    const prov = await cannedServer(() => LEAN[0]!);
    const { model, counted } = leanModel(lean.url);
    const constrained = call({
      providerOptions: constraintProviderOptions({ name: 'yes-no', grammar: 'root ::= "yes" | "no"' }),
    });
    for (let k = 0; k < 3; k++)
      expect(await outcome(model, constrained)).toEqual(await outcome(providerModel(prov.url), constrained));
    expect(counted.calls).toBe(1); // only the first call, which shows the provider's URL and headers
    expect(lean.bodies).toEqual(prov.bodies);
  });

  it('leaves any other answer to the provider, on the bytes received: same result or error, one request each', async () => {
    let i = 0;
    let j = 0;
    const lean = await cannedServer(() =>
      i++ === 0 ? LEAN[0]! : PROVIDER_READS[(i - 2) % PROVIDER_READS.length]!,
    );
    const prov = await cannedServer(() => PROVIDER_READS[j++ % PROVIDER_READS.length]!);
    const { model, counted } = leanModel(lean.url);
    await model.doGenerate(call());
    const got = [];
    const expected = [];
    for (const _ of PROVIDER_READS) {
      got.push(await outcome(model, call()));
      expected.push(await outcome(providerModel(prov.url), call()));
    }
    expect(got).toEqual(expected);
    expect(counted.calls).toBe(1);
    expect([lean.bodies.length, prov.bodies.length]).toEqual([
      PROVIDER_READS.length + 1,
      PROVIDER_READS.length,
    ]);
    expect(expected.map((e) => (e.error ? e.error.statusCode : 'ok'))).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      undefined,
      200,
      200,
      200,
      200,
      200,
      'ok',
      500,
      429,
      400,
    ]);
  });

  it('reads each of those answers itself only when it is a plain text choice', () => {
    const read = (c: Canned) =>
      leanAnswer(
        {
          status: c.status ?? 200,
          statusText: '',
          rawHeaders: [],
          body: Buffer.from(c.body),
          redirect: false,
        },
        () => '{}',
        'apiary',
      );
    expect(LEAN.map((c) => read(c) !== null)).toEqual(LEAN.map(() => true));
    expect(PROVIDER_READS.map(read)).toEqual(PROVIDER_READS.map(() => null));
  });

  it('sends tool turns to the provider, and fails a refused connection and an abort as it does', async () => {
    const lean = await cannedServer(() => LEAN[0]!);
    const { model, counted } = leanModel(lean.url);
    await model.doGenerate(call());
    const tools: CallOptions['tools'] = [
      { type: 'function', name: 'f', inputSchema: { type: 'object', properties: {} } },
    ];
    const prov = await cannedServer(() => LEAN[0]!);
    expect(await outcome(model, call({ tools }))).toEqual(
      await outcome(providerModel(prov.url), call({ tools })),
    );
    expect(counted.calls).toBe(2);
    expect(JSON.parse(lean.bodies[1]!).tools).toHaveLength(1);

    const ac = new AbortController();
    ac.abort(new DOMException('model call timed out after 5 ms', 'TimeoutError'));
    const aborted = await outcome(model, call({ abortSignal: ac.signal }));
    expect(aborted).toEqual(await outcome(providerModel(prov.url), call({ abortSignal: ac.signal })));
    expect((aborted as { error: { name: string } }).error.name).toBe('TimeoutError');

    for (const close of closers.splice(0)) await close();
    const refused = await outcome(model, call());
    expect(refused).toEqual(await outcome(providerModel(prov.url), call()));
    expect((refused as { error: { message: string } }).error.message).toBe(
      'Cannot connect to API: connect ECONNREFUSED HOST',
    );
  });
});
