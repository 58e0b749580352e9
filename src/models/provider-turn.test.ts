import { APICallError, type ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { type GenerateRequest, generate } from './generate.js';
import { isDirectTurn } from './provider-turn.js';
import type { LanguageModelV3 } from './sampling.js';

/*
 * A turn calls the provider model directly (provider-turn.ts) instead of going through
 * generateText. Every case runs both ways (`directTurns: false` = through generateText) and
 * must give the provider the same call and the caller the same response or error.
 */
type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type Answer = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

const usage = (input: number | undefined, output: number | undefined): Answer['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const answer = (content: Answer['content'], extra: Partial<Answer> = {}): Answer => ({
  content,
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: usage(12, 3),
  warnings: [],
  ...extra,
});

/** A provider model that records each call's options and answers from `script` in turn. */
function spyModel(script: Array<Answer | Error | ((o: CallOptions) => Promise<Answer>)>) {
  const calls: CallOptions[] = [];
  let i = 0;
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'spy',
    modelId: 'm',
    supportedUrls: {},
    async doGenerate(options) {
      calls.push(options);
      const step = script[Math.min(i++, script.length - 1)]!;
      if (step instanceof Error) throw step;
      return typeof step === 'function' ? step(options) : step;
    },
    async doStream() {
      throw new Error('no streaming');
    },
  };
  return { model, calls };
}

/** The same request both ways, on fresh spies with the same script. */
async function bothWays(req: Omit<GenerateRequest, 'model'>, script: Parameters<typeof spyModel>[0]) {
  const run = async (directTurns: boolean) => {
    const spy = spyModel(script);
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    const result = await generate({ ...req, model: spy.model }, { sleep, now: () => 0, directTurns }).then(
      (r) => ({ ok: r }),
      (e: unknown) => ({ error: e }),
    );
    return { result, calls: spy.calls, waits };
  };
  return { direct: await run(true), sdk: await run(false) };
}

const withoutSignal = (calls: CallOptions[]) =>
  calls.map(({ abortSignal, ...rest }) => {
    expect(abortSignal).toBeInstanceOf(AbortSignal);
    return rest;
  });

const user = (content: string): ModelMessage => ({ role: 'user', content });

afterEach(() => {
  delete (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS;
});

describe('direct turns without tools (the provider model called directly)', () => {
  it('give the provider the very call generateText gives it', async () => {
    const requests: Array<Omit<GenerateRequest, 'model'>> = [
      { system: 'S', messages: [user('hi')], settings: { temperature: 0, topP: 0, maxOutputTokens: 1024 } },
      {
        messages: [
          { role: 'system', content: 'rules' },
          user('a'),
          { role: 'assistant', content: 'b' },
          user(''),
        ],
        settings: { stopSequences: ['\nObservation:'], seed: 7, topP: null },
      },
      { messages: [user('no settings at all')] },
    ];
    for (const req of requests) {
      const { direct, sdk } = await bothWays(req, [answer([{ type: 'text', text: 'ok' }])]);
      expect(direct.calls).toHaveLength(1);
      expect(withoutSignal(direct.calls)).toStrictEqual(withoutSignal(sdk.calls));
      expect(direct.result).toStrictEqual(sdk.result);
    }
    // what that call is, spelled out once
    const { direct } = await bothWays({ system: 'S', messages: [user('hi')], settings: { temperature: 0 } }, [
      answer([{ type: 'text', text: 'ok' }]),
    ]);
    expect(withoutSignal(direct.calls)[0]).toMatchObject({
      temperature: 0,
      prompt: [
        { role: 'system', content: 'S' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
      headers: { 'user-agent': expect.stringMatching(/^ai\/\d+\.\d+\.\d+/) },
    });
  });

  it('read text answers as generateText does: parts joined, empty parts out of the turn, usage, finish, cache hit', async () => {
    const answers: Answer[] = [
      answer([{ type: 'text', text: 'Hello there' }]),
      answer(
        [
          { type: 'text', text: 'one ', providerMetadata: { p: { k: 1 } } },
          { type: 'text', text: '' },
          { type: 'text', text: 'two' },
        ],
        { providerMetadata: { apiary: { cacheHit: true } } },
      ),
      answer([], {
        finishReason: { unified: 'length', raw: 'max_tokens' },
        usage: usage(undefined, undefined),
      }),
    ];
    const outs = [];
    for (const a of answers) {
      const { direct, sdk } = await bothWays({ messages: [user('q')] }, [a]);
      expect(direct.result).toStrictEqual(sdk.result);
      outs.push((direct.result as { ok: unknown }).ok);
    }
    expect(outs[1]).toMatchObject({
      text: 'one two',
      cacheHit: true,
      usage: { inputTokens: 12, outputTokens: 3 },
      responseMessages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'one ', providerOptions: { p: { k: 1 } } },
            { type: 'text', text: 'two' },
          ],
        },
      ],
    });
    expect(outs[2]).toMatchObject({
      text: '',
      finishReason: 'length',
      usage: { inputTokens: 0, outputTokens: 0 },
      responseMessages: [],
    });
  });

  it('hand any other answer (reasoning, warnings) to generateText without asking the provider again', async () => {
    const logged: unknown[] = [];
    (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = (o: { warnings: unknown[] }) =>
      logged.push(...o.warnings);
    const reasoning = answer([
      { type: 'reasoning', text: 'thinking' },
      { type: 'text', text: 'answer' },
    ]);
    const warned = answer([{ type: 'text', text: 'x' }], {
      warnings: [{ type: 'unsupported', feature: 'seed' }],
    });
    for (const a of [reasoning, warned]) {
      const { direct, sdk } = await bothWays({ messages: [user('q')], settings: { seed: 1 } }, [a]);
      expect(direct.calls).toHaveLength(1);
      expect(direct.result).toStrictEqual(sdk.result);
    }
    expect((await bothWays({ messages: [user('q')] }, [reasoning])).direct.result).toMatchObject({
      ok: {
        text: 'answer',
        responseMessages: [{ role: 'assistant', content: [{ type: 'reasoning' }, { type: 'text' }] }],
      },
    });
    // the warning was logged by generateText on both ways
    expect(logged).toEqual([
      { type: 'unsupported', feature: 'seed' },
      { type: 'unsupported', feature: 'seed' },
    ]);
  });

  it('fail, retry and report faults exactly as through generateText', async () => {
    const http = (status: number) =>
      new APICallError({
        message: `HTTP ${status}`,
        url: 'http://x',
        requestBodyValues: {},
        statusCode: status,
        isRetryable: status >= 500,
      });
    const scripts: Array<Parameters<typeof spyModel>[0]> = [
      [http(503), answer([{ type: 'text', text: 'after retry' }])],
      [http(400)],
      [new TypeError('fetch failed')],
    ];
    for (const script of scripts) {
      const { direct, sdk } = await bothWays(
        { messages: [user('q')], retry: { maxRetries: 2, baseDelayMs: 10 } },
        script,
      );
      expect(direct.calls.length).toBe(sdk.calls.length);
      if ('ok' in direct.result) expect(direct.result).toStrictEqual(sdk.result);
      else {
        const [d, s] = [direct.result.error, (sdk.result as { error: unknown }).error] as Array<
          Error & { code: string; faults: string[]; cause: unknown }
        >;
        expect(d!.message).toBe(s!.message);
        expect(d!.code).toBe(s!.code);
        expect(d!.faults).toEqual(s!.faults);
        expect(d!.cause).toBe(script.at(-1));
      }
      expect(direct.waits).toEqual(sdk.waits);
    }
    // invalid settings: the SDK's own validation error, both ways
    const bad = await bothWays({ messages: [user('q')], settings: { maxOutputTokens: 1.5 } }, [
      answer([{ type: 'text', text: 'never' }]),
    ]);
    expect(bad.direct.calls).toHaveLength(0);
    expect((bad.direct.result as { error: Error }).error.message).toBe(
      (bad.sdk.result as { error: Error }).error.message,
    );
    expect((bad.direct.result as { error: Error }).error.message).toContain(
      'maxOutputTokens must be an integer',
    );
  });

  it('a caller abort mid-call rejects with the caller reason, both ways', async () => {
    const results = [];
    for (const directTurns of [true, false]) {
      const ac = new AbortController();
      const spy = spyModel([
        (o) =>
          new Promise<Answer>((_, reject) => {
            o.abortSignal?.addEventListener('abort', () => reject(o.abortSignal?.reason), { once: true });
            setTimeout(() => ac.abort(new Error('stop now')), 5);
          }),
      ]);
      results.push(
        await generate({ model: spy.model, messages: [user('q')], signal: ac.signal }, { directTurns }).catch(
          (e: Error) => e.message,
        ),
      );
    }
    expect(results).toEqual(['stop now', 'stop now']);
  });

  it('are only turns generateText would take the same way', () => {
    const { model } = spyModel([]);
    const base = { model, messages: [user('q')] };
    expect(isDirectTurn(base)).toBe(true);
    expect(isDirectTurn({ ...base, tools: { t: { inputSchema: { type: 'object' } } } })).toBe(true);
    expect(isDirectTurn({ ...base, model: 'openai/gpt-4o' })).toBe(false);
    expect(isDirectTurn({ ...base, model: { ...model, specificationVersion: 'v2' } })).toBe(false);
    expect(isDirectTurn({ ...base, model: { ...model, provider: 'gateway' } })).toBe(false);
    for (const settings of [{ maxOutputTokens: 1.5 }, { maxOutputTokens: 0 }, { seed: 0.5 }])
      expect(isDirectTurn({ ...base, settings })).toBe(false);
    (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] }).AI_SDK_TELEMETRY_INTEGRATIONS = [{}];
    try {
      expect(isDirectTurn(base)).toBe(false);
    } finally {
      delete (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown[] }).AI_SDK_TELEMETRY_INTEGRATIONS;
    }
  });
});

describe('direct turns with tools and conversations', () => {
  const tools = {
    get: { description: 'read', inputSchema: { type: 'object', properties: { x: { type: 'string' } } } },
    put: { inputSchema: { type: 'object' } },
  };
  const conversation: ModelMessage[] = [
    { role: 'system', content: 'rules', providerOptions: { p: { a: 1 } } },
    user('q'),
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hmm' },
        { type: 'text', text: '' },
        { type: 'text', text: 'calling' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'get', input: { x: 'a' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'put', input: {} },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'get', output: { type: 'json', value: { v: 1 } } },
        {
          type: 'tool-result',
          toolCallId: 'c2',
          toolName: 'put',
          output: { type: 'error-text', value: 'no' },
        },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'go on' },
        { type: 'text', text: '' },
      ],
    },
  ];

  it('give the provider the very call generateText gives it, for each tool choice', async () => {
    const choices: Array<GenerateRequest['toolChoice']> = [
      undefined,
      'auto',
      'none',
      'required',
      { type: 'tool', toolName: 'put' },
    ];
    for (const toolChoice of choices) {
      const req = { system: 'S', messages: conversation, tools, toolChoice, settings: { temperature: 0.2 } };
      const { direct, sdk } = await bothWays(req, [answer([{ type: 'text', text: 'ok' }])]);
      expect(direct.calls).toHaveLength(1);
      expect(withoutSignal(direct.calls)).toStrictEqual(withoutSignal(sdk.calls));
      expect(JSON.stringify(withoutSignal(direct.calls))).toBe(JSON.stringify(withoutSignal(sdk.calls)));
      expect(direct.result).toStrictEqual(sdk.result);
    }
  });

  it('read tool calls as generateText does; invalid, unknown and provider-executed calls are its to read', async () => {
    const call = (id: string, name: string, input: string, extra = {}) =>
      ({ type: 'tool-call', toolCallId: id, toolName: name, input, ...extra }) as Answer['content'][number];
    const answers: Answer[] = [
      answer([call('a', 'get', '{"x":"1"}'), call('b', 'put', '{}')], {
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      }),
      answer([
        { type: 'text', text: 'first ' },
        call('a', 'get', '{"x":"1"}', { providerMetadata: { p: {} } }),
      ]),
      answer([call('a', 'get', '{"x":')]),
      answer([call('a', 'nope', '{}')]),
      answer([call('a', 'put', '  ')]),
      answer([call('a', 'put', '{"__proto__":{"x":1}}')]),
      answer([call('a', 'put', '{}', { providerExecuted: true })]),
    ];
    for (const a of answers) {
      const { direct, sdk } = await bothWays({ messages: [user('q')], tools }, [a]);
      expect(direct.calls).toHaveLength(1);
      expect(direct.result).toStrictEqual(sdk.result);
    }
  });

  it('leave to generateText what it converts or refuses itself, with its own errors', async () => {
    const cases: ModelMessage[][] = [
      // an image part (media type detection)
      [{ role: 'user', content: [{ type: 'image', image: new Uint8Array([137, 80, 78, 71]) }] }],
      // tool results in two messages in a row (merged by the SDK)
      [
        conversation[1]!,
        conversation[2]!,
        { role: 'tool', content: [conversation[3]!.content[0] as never] },
        { role: 'tool', content: [conversation[3]!.content[1] as never] },
      ],
      // a call without its result (MissingToolResultsError)
      [conversation[1]!, conversation[2]!, user('next')],
      // not a ModelMessage (InvalidPromptError)
      [{ role: 'user', content: 5 } as unknown as ModelMessage],
      [{ role: 'developer', content: 'x' } as unknown as ModelMessage],
      [{ role: 'assistant', content: [{ type: 'text', text: 'x' }], extra: 1 } as unknown as ModelMessage],
      [],
    ];
    for (const messages of cases) {
      const { direct, sdk } = await bothWays({ messages, tools }, [answer([{ type: 'text', text: 'ok' }])]);
      expect(withoutSignal(direct.calls)).toStrictEqual(withoutSignal(sdk.calls));
      if ('ok' in direct.result) expect(direct.result).toStrictEqual(sdk.result);
      else
        expect((direct.result.error as Error).message).toBe(
          ((sdk.result as { error: unknown }).error as Error).message,
        );
    }
  });
});
