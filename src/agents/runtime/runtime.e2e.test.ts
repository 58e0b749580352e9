import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countSideEffects, createSgdApps } from '../../benchmarks/appbench/apps/sgd-apps.js';
import { openBundledSgdDatabase, type SqliteDatabase } from '../../benchmarks/appbench/apps/sgd-database.js';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { indexCatalog, loadCatalog } from '../../catalog/index.js';
import { type ApprovalHandler, appRegistry, autoApprove, denyAll } from '../../exec/index.js';
import {
  type ScriptedChatRequest,
  type ScriptedOpenAiServer,
  type ScriptedReply,
  startScriptedOpenAiServer,
} from '../../test/index.js';
import { nativeToolsProtocol } from '../protocols/native-tools.js';
import { reactProtocol } from '../protocols/react.js';
import { jsonlAgentTrace, memoryAgentTrace } from './agent-trace.js';
import { catalogToolset } from './catalog-toolset.js';
import { modelTurns } from './model-turns.js';
import { runAgent } from './run-agent.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

/**
 * The loop end to end: a scripted model behind a real OpenAI-compatible HTTP server, the AI SDK
 * provider, `dispatchCall` and the simulated SGD apps on the bundled database.
 */
const catalog = loadCatalog('appbench');
const index = indexCatalog(catalog);
let server: ScriptedOpenAiServer | undefined;
let db: SqliteDatabase;

beforeEach(() => {
  db = openBundledSgdDatabase().db;
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Serves `script(turn, request)` and returns the agent's turn taker for it. */
async function model(script: (turn: number, req: ScriptedChatRequest) => ScriptedReply, latencyMs = 0) {
  let turn = 0;
  server = await startScriptedOpenAiServer({ respond: (req) => script(turn++, req), latencyMs });
  return modelTurns(createOpenAICompatible({ name: 'scripted', baseURL: server.url })('m'), {
    retry: { maxRetries: 0 },
  });
}

function toolset(approve: ApprovalHandler) {
  return catalogToolset(catalog.apis, {
    catalog: index,
    apps: appRegistry(createSgdApps({ db, catalog })),
    approve,
  });
}

const find = {
  name: 'Restaurants_findrestaurants',
  arguments: { category: 'American', location: 'San Francisco' },
};
const reserve = {
  name: 'Restaurants_reserverestaurant',
  arguments: {
    restaurant_name: 'Acquerello',
    location: 'San Francisco',
    time: '19:00',
    number_of_seats: '2',
  },
};

describe('agent runtime over HTTP with native tool calls', () => {
  it('multi-step: searches, books with an output of the search, answers; one side effect', async () => {
    const turn = await model((i, req) => {
      if (i === 0) return { toolCalls: [{ id: 'c1', ...find }] };
      if (i === 1) {
        // the search result came back as a tool message with the rows
        const tool = req.messages.find((m) => m.role === 'tool');
        expect(tool?.tool_call_id).toBe('c1');
        expect(tool?.content).toContain('"restaurant_name":"Acquerello"');
        return { toolCalls: [{ id: 'c2', ...reserve }] };
      }
      return 'Booked Acquerello for 2 at 19:00.';
    });
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: 'Book an American place in SF',
      toolset: toolset(autoApprove),
    });
    expect(r.stopReason).toBe('final');
    expect(r.answer).toBe('Booked Acquerello for 2 at 19:00.');
    expect(r.calls.map((c) => [c.step, c.api, c.outcome.ok, c.outcome.transactional])).toEqual([
      [1, 'findrestaurants', true, false],
      [2, 'reserverestaurant', true, true],
    ]);
    expect(countSideEffects(db)).toBe(1);
    expect(
      server!.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name),
    ).toContain('Restaurants_findrestaurants');
  });

  it('parallel: two independent calls of one turn both run and both results go back', async () => {
    const turn = await model((i) =>
      i === 0
        ? {
            toolCalls: [
              {
                id: 'w',
                name: 'Weather_getweather',
                arguments: { city: 'San Francisco', date: '2019-03-01' },
              },
              { id: 'r', ...find },
            ],
          }
        : 'Done.',
    );
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: 'Weather and food in SF',
      toolset: toolset(denyAll),
    });
    expect(r.calls.map((c) => [c.step, c.api, c.outcome.ok])).toEqual([
      [1, 'getweather', true],
      [1, 'findrestaurants', true],
    ]);
    const tools = server!.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    expect(tools).toEqual(['w', 'r']);
  });

  it('an invalid call (unknown argument) goes back as a tool error; the model repairs it', async () => {
    const turn = await model((i, req) => {
      if (i === 0)
        return {
          toolCalls: [
            {
              id: 'bad',
              name: 'Restaurants_findrestaurants',
              arguments: { food_style: 'American', location: 'San Francisco' },
            },
          ],
        };
      if (i === 1) {
        const err = req.messages.find((m) => m.role === 'tool')?.content ?? '';
        expect(err).toContain('INPUT_INVALID');
        expect(err).toContain('food_style');
        return { toolCalls: [{ id: 'good', ...find }] };
      }
      return 'Found Acquerello.';
    });
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: 'American food in SF',
      toolset: toolset(denyAll),
    });
    expect(r).toMatchObject({ stopReason: 'final', callErrors: 1, repairs: 1 });
    expect(r.calls[0]!.outcome).toMatchObject({
      ok: false,
      error: { code: 'INPUT_INVALID' },
      dispatched: false,
    });
  });

  it('approval denied: the booking never reaches the app (zero side effects) and the model is told', async () => {
    const turn = await model((i, req) => {
      if (i === 0) return { toolCalls: [{ id: 'b', ...reserve }] };
      const err = req.messages.find((m) => m.role === 'tool')?.content ?? '';
      expect(err).toContain('APPROVAL_DENIED');
      return 'I could not book: the booking was not approved.';
    });
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: 'Book Acquerello',
      toolset: toolset(denyAll),
    });
    expect(r.stopReason).toBe('final');
    expect(r.calls[0]!.outcome).toMatchObject({
      ok: false,
      error: { code: 'APPROVAL_DENIED' },
      dispatched: false,
    });
    expect(countSideEffects(db)).toBe(0);
  });

  it('step budget: a model that never stops ends with a clear reason', async () => {
    const turn = await model((i) => ({
      toolCalls: [
        { id: `c${i}`, name: 'Weather_getweather', arguments: { city: `City ${i}`, date: '2019-03-01' } },
      ],
    }));
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: '?',
      toolset: toolset(denyAll),
      budget: { maxSteps: 4 },
    });
    expect(r).toMatchObject({
      stopReason: 'step-budget',
      steps: 4,
      detail: 'no final answer within 4 turns',
    });
    expect(server!.requests).toHaveLength(4);
  });

  it('cancellation mid-run: the JSONL trace is complete (every turn and call closed, one stop) and parses', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'apiary-trace-')), 'trace.jsonl');
    const ac = new AbortController();
    const turn = await model((i) => {
      if (i === 1) setTimeout(() => ac.abort(new Error('stop')), 30);
      return {
        toolCalls: [
          { id: `c${i}`, name: 'Weather_getweather', arguments: { city: `C${i}`, date: '2019-03-01' } },
        ],
      };
    }, 5);
    const slowTools = toolset(denyAll);
    const r = await runAgent({
      turn: async (req, signal) => {
        const reply = await turn(req, signal);
        return reply;
      },
      protocol: nativeToolsProtocol(),
      instruction: '?',
      toolset: {
        tools: slowTools.tools,
        run: async (c, signal) =>
          c.args.city === 'C1'
            ? new Promise((res) => signal?.addEventListener('abort', () => res(slowTools.run(c, signal))))
            : slowTools.run(c, signal),
      },
      signal: ac.signal,
      trace: jsonlAgentTrace(file, { run: 'r1' }),
    });
    expect(r.stopReason).toBe('cancelled');
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['turn', 'call', 'turn', 'call', 'stop']);
    expect(lines.every((l) => l.run === 'r1')).toBe(true);
    expect(lines[3]).toMatchObject({ type: 'call', ok: false, error: { code: 'CANCELLED' } });
    expect(lines[4]).toMatchObject({ type: 'stop', reason: 'cancelled' });
  });
});

describe('agent runtime over HTTP with a text protocol (ReAct)', () => {
  it('acts through Action/Action Input, recovers from a format error, and finishes', async () => {
    const trace = memoryAgentTrace();
    const turn = await model((i, req) => {
      if (i === 0) return 'I should look at the weather.';
      if (i === 1) {
        expect(req.messages.at(-1)).toMatchObject({
          role: 'system',
          content: 'Response:Please follow the format\n',
        });
        return 'Thought: weather\nAction: Weather_getweather\nAction Input: {"city": "San Francisco", "date": "2019-03-01"}';
      }
      expect(req.messages.at(-1)?.role).toBe('system');
      expect(req.messages.at(-1)?.content.startsWith('Response:')).toBe(true);
      return 'Thought: I know\nFinal Answer: It is sunny.';
    });
    const r = await runAgent({
      turn,
      protocol: reactProtocol(),
      instruction: 'Weather in SF today?',
      toolset: toolset(denyAll),
      trace,
    });
    expect(r).toMatchObject({ stopReason: 'final', answer: ' It is sunny.', decodeFailures: 1, repairs: 1 });
    expect(r.calls.map((c) => [c.api, c.outcome.ok])).toEqual([['getweather', true]]);
    expect(
      server!.requests[0]!.messages[0]!.content.startsWith(
        'You are a assistant who can utilize external tools.',
      ),
    ).toBe(true);
    // the format error fed back (requested) and the parseable reply after it (succeeded) are repair events
    expect(trace.events.map((e) => e.type)).toEqual([
      'turn',
      'repair',
      'turn',
      'repair',
      'call',
      'turn',
      'stop',
    ]);
  });
});

describe('approvals of parallel calls', () => {
  it('are asked one after the other (a person answers one question at a time), in proposal order', async () => {
    const turn = await model((i) =>
      i === 0
        ? {
            toolCalls: [
              { id: 'r', ...reserve },
              {
                id: 'p',
                name: 'Payment_makepayment',
                arguments: { amount: '20', payment_method: 'debit card', receiver: 'Ann' },
              },
            ],
          }
        : 'Both done.',
    );
    let open = 0;
    let maxOpen = 0;
    const asked: string[] = [];
    const slowApprover: ApprovalHandler = async (request) => {
      open++;
      maxOpen = Math.max(maxOpen, open);
      asked.push(request.api);
      await new Promise((r) => setTimeout(r, 20));
      open--;
      return { approved: true };
    };
    const r = await runAgent({
      turn,
      protocol: nativeToolsProtocol(),
      instruction: 'Book and pay',
      toolset: toolset(slowApprover),
    });
    expect(r.calls.map((c) => c.outcome.ok)).toEqual([true, true]);
    expect(asked).toEqual(['reserverestaurant', 'makepayment']);
    expect(maxOpen).toBe(1);
    expect(countSideEffects(db)).toBe(2);
  });
});
