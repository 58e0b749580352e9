import { describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../exec/index.js';
import type { LanguageModelV3 } from '../../models/index.js';
import { nativeToolsProtocol } from '../protocols/native-tools.js';
import { reactProtocol } from '../protocols/react.js';
import { memoryAgentTrace } from './agent-trace.js';
import { modelTurns } from './model-turns.js';
import { runAgent } from './run-agent.js';
import type { AgentProtocol, AgentTool, Toolset } from './types.js';

/*
 * modelTurns calls the provider model directly (models/provider-turn.ts) with a prompt it converts
 * once per message. The same runs through `generateText` (`directTurns: false`) must give the
 * provider the very same calls, turn by turn, and the caller the same result and trace.
 */
type CallOptions = Parameters<LanguageModelV3['doGenerate']>[0];
type Answer = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;
type Content = Answer['content'];

const usage = (input: number, output: number): Answer['usage'] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
const answer = (content: Content, finish: 'stop' | 'tool-calls' = 'tool-calls'): Answer => ({
  content,
  finishReason: { unified: finish, raw: finish },
  usage: usage(20, 4),
  warnings: [],
});
const callPart = (id: string, name: string, input: string, extra = {}): Content[number] => ({
  type: 'tool-call',
  toolCallId: id,
  toolName: name,
  input,
  ...extra,
});

function spyModel(script: Answer[]) {
  const calls: CallOptions[] = [];
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'spy',
    modelId: 'm',
    supportedUrls: {},
    async doGenerate(options) {
      calls.push(options);
      return script[Math.min(calls.length - 1, script.length - 1)]!;
    },
    async doStream() {
      throw new Error('no streaming');
    },
  };
  return { model, calls };
}

const tool = (name: string): AgentTool => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
  app: 'App',
  api: name,
  parameters: [{ name: 'x', required: true, type: 'string' }],
});
const toolset: Toolset = {
  tools: [tool('get'), tool('put')],
  async run({ tool, args }): Promise<CallOutcome> {
    if (args.x === 'bad')
      return {
        ok: false,
        error: { code: 'INPUT_INVALID', message: 'x may not be bad' },
        transactional: false,
        durationMs: 0,
        dispatched: false,
      };
    return {
      ok: true,
      content: [{ type: 'json', value: { tool: tool.name, ...args } }],
      raw: { tool: tool.name, ...args },
      transactional: false,
      durationMs: 0,
    };
  },
};

/** A run of `protocol` over `script`, both ways: direct turns and through generateText. */
async function bothWays(protocol: () => AgentProtocol, script: Answer[]) {
  const run = async (directTurns: boolean) => {
    const spy = spyModel(script);
    const trace = memoryAgentTrace();
    const result = await runAgent({
      turn: modelTurns(spy.model, {
        settings: { temperature: 0, maxOutputTokens: 256, seed: 3 },
        deps: { directTurns, now: () => 0 },
      }),
      protocol: protocol(),
      instruction: 'move x',
      toolset,
      history: [
        { role: 'user', content: 'demo question' },
        { role: 'assistant', content: 'demo answer', providerOptions: { spy: { cache: true } } },
      ],
      budget: { maxSteps: script.length, maxDecodeFailures: 5, maxRepairsPerTool: 5 },
      trace,
      now: () => 0,
    });
    const calls = spy.calls.map(({ abortSignal, ...rest }) => {
      expect(abortSignal).toBeInstanceOf(AbortSignal);
      return rest;
    });
    return { calls, result, events: trace.events };
  };
  return { direct: await run(true), sdk: await run(false) };
}

/** Same calls, down to key order (the response cache hashes their JSON). */
function expectSameRuns(direct: Awaited<ReturnType<typeof bothWays>>['direct'], sdk: typeof direct) {
  expect(direct.calls).toStrictEqual(sdk.calls);
  expect(direct.calls.map((c) => JSON.stringify(c))).toEqual(sdk.calls.map((c) => JSON.stringify(c)));
  expect(direct.result).toStrictEqual(sdk.result);
  expect(direct.events).toStrictEqual(sdk.events);
}

describe('modelTurns: direct provider calls', () => {
  it('give the provider the calls generateText gives it, turn by turn, over a run with tool calls and results', async () => {
    const script = [
      // two calls at once, one of them failing (an error-text result)
      answer([callPart('c1', 'get', '{"x":"a"}'), callPart('c2', 'put', '{"x":"bad"}')]),
      // text with a call, provider metadata on both parts
      answer([
        { type: 'text', text: 'let me fix that', providerMetadata: { spy: { id: 't1' } } },
        callPart('c3', 'put', '{"x":"b"}', { providerMetadata: { spy: { id: 'p1' } } }),
      ]),
      // arguments that are not JSON and an unknown tool: read by generateText (invalid calls)
      answer([callPart('c4', 'get', '{"x":'), callPart('c5', 'nope', '{}')]),
      // the empty text part and an ask-user call
      answer([{ type: 'text', text: '' }, callPart('c6', 'ask_user', '{"question":"which x?"}')]),
    ];
    const { direct, sdk } = await bothWays(nativeToolsProtocol, script);
    expect(direct.calls).toHaveLength(4);
    expectSameRuns(direct, sdk);
    expect(direct.result).toMatchObject({ stopReason: 'ask-user', question: 'which x?', callErrors: 3 });
    // what the last call carried, spelled out once
    const last = direct.calls.at(-1)!;
    expect(last).toMatchObject({
      temperature: 0,
      maxOutputTokens: 256,
      seed: 3,
      toolChoice: { type: 'auto' },
      headers: { 'user-agent': expect.stringMatching(/^ai\//) },
    });
    expect(last.tools?.map((t) => t.name)).toEqual(['get', 'put', 'ask_user']);
    expect(last.prompt.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    expect(last.prompt[5]).toMatchObject({
      content: [
        { toolCallId: 'c1', output: { type: 'text', value: '{"tool":"get","x":"a"}' } },
        {
          toolCallId: 'c2',
          output: { type: 'error-text', value: 'error [INPUT_INVALID]: x may not be bad' },
        },
      ],
    });
  });

  it('give the same calls for a text protocol (system turns in the conversation, decode failures)', async () => {
    const text = (t: string) => answer([{ type: 'text', text: t }], 'stop');
    const script = [
      text('Thought: look\nAction: get\nAction Input: {"x": "a"}\n'),
      text('no format at all'),
      text('Thought: done\nFinal Answer: a'),
    ];
    const { direct, sdk } = await bothWays(reactProtocol, script);
    expect(direct.calls).toHaveLength(3);
    expectSameRuns(direct, sdk);
    expect(direct.result.answer).toBe(' a');
  });

  it('convert each message once: a later turn re-sends the very objects of the earlier one', async () => {
    const script = [
      answer([callPart('c1', 'get', '{"x":"a"}')]),
      answer([callPart('c2', 'get', '{"x":"b"}')]),
      answer([{ type: 'text', text: 'done' }], 'stop'),
    ];
    const { direct, sdk } = await bothWays(nativeToolsProtocol, script);
    // through generateText every turn converts the whole conversation again
    expect(sdk.calls[2]!.prompt[1]).not.toBe(sdk.calls[0]!.prompt[1]);
    const [first, , third] = direct.calls.map((c) => c.prompt);
    expect(third!.length).toBe(first!.length + 4);
    // the conversation's messages (the system text is the protocol's, rebuilt each turn)
    for (let i = 1; i < first!.length; i++) expect(third![i]).toBe(first![i]);
  });
});
