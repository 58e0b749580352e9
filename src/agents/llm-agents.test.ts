import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APPBENCH_SAMPLING } from '../benchmarks/appbench/index.js';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { type Catalog, loadCatalog } from '../catalog/index.js';
import { ApiaryError } from '../shared/index.js';
import {
  type ScriptedChatRequest,
  type ScriptedOpenAiServer,
  type ScriptedReply,
  startScriptedOpenAiServer,
} from '../test/index.js';
import { flatAgent } from './flat-agent.js';
import { hierarchicalAgent, selectAppsFromReply } from './hierarchical-agent.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

let catalog: Catalog;
beforeAll(() => {
  catalog = loadCatalog('appbench');
});

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelFor(respond: (req: ScriptedChatRequest) => ScriptedReply) {
  server = await startScriptedOpenAiServer({ respond });
  return createOpenAICompatible({ name: 'scripted', baseURL: server.url })('scripted-model');
}

const REQUEST = { instruction: 'Book a cab to 1 Main Street for 2 people.', currentDate: '2019-03-01' };
const PLAN =
  "Rents: [destination, ride_type, ride_fare, wait_time, number_of_seats = Rents_getride(#destination='1 Main Street', #number_of_seats='2')]";

describe('flatAgent', () => {
  it('lists all 15 apps with their APIs, sends the instruction, and returns the cleaned reply', async () => {
    const model = await modelFor(() => ({
      text: `Sure! Here is the plan:\n\`\`\`\n1. **${PLAN}**\n\`\`\`\nHope this helps.`,
      usage: { prompt_tokens: 900, completion_tokens: 40 },
    }));
    const result = await flatAgent({ settings: APPBENCH_SAMPLING }).plan(REQUEST, { catalog, model });
    expect(result.reply).toBe(PLAN);
    expect(result.usage).toEqual({ inputTokens: 900, outputTokens: 40 });
    expect(result.modelCalls).toBe(1);
    const req = server!.requests[0]!;
    expect(req.messages).toHaveLength(2);
    expect(req.messages[1]).toEqual({ role: 'user', content: REQUEST.instruction });
    const system = req.messages[0]!.content;
    for (const app of catalog.apps) expect(system).toContain(`${app.name}: {'desc': `);
    expect(system).toContain("'getride': {'desc': ");
    expect(system).toContain("'destination (str)': ");
    expect(system).toContain('Infer dates from the current date "2019-03-01"');
    expect(system).toContain(
      'app1: [returned_argument1, returned_argument2, ... = app1_api1(#argument1=value1, #argument2=value2, ...)]',
    );
    expect(req.body.temperature).toBe(0);
    expect(req.body.top_p).toBe(0);
    expect(req.body.max_tokens).toBe(1024);
  });

  it('sends no sampling settings of its own: they belong to the task', async () => {
    const model = await modelFor(() => PLAN);
    await flatAgent().plan(REQUEST, { catalog, model });
    const body = server!.requests[0]!.body;
    expect(['temperature', 'top_p', 'max_tokens'].filter((k) => k in body)).toEqual([]);
  });

  it('returns an empty reply (not an error) when the model writes no plan line', async () => {
    const model = await modelFor(() => 'I cannot help with that.');
    const result = await flatAgent().plan(REQUEST, { catalog, model });
    expect(result.reply).toBe('');
    expect(result.rawReply).toBe('I cannot help with that.');
  });

  it('inserts k-shot demos as user/assistant pairs before the instruction', async () => {
    const model = await modelFor(() => PLAN);
    const agent = flatAgent({
      demos: async () => [
        { instruction: 'demo 1', reply: "Weather: [city = getweather(#city='Oslo')]" },
        { instruction: 'demo 2', reply: 'reply 2' },
      ],
    });
    await agent.plan(REQUEST, { catalog, model });
    expect(server!.requests[0]!.messages.slice(1)).toEqual([
      { role: 'user', content: 'demo 1' },
      { role: 'assistant', content: "Weather: [city = getweather(#city='Oslo')]" },
      { role: 'user', content: 'demo 2' },
      { role: 'assistant', content: 'reply 2' },
      { role: 'user', content: REQUEST.instruction },
    ]);
  });

  it('retries a failing endpoint and reports attempts and faults', async () => {
    let n = 0;
    const model = await modelFor(() => (++n === 1 ? { fault: 'http429' } : PLAN));
    const result = await flatAgent({ deps: { sleep: async () => {} } }).plan(REQUEST, { catalog, model });
    expect(result.reply).toBe(PLAN);
    expect(result.attempts).toBe(2);
    expect(result.faults).toEqual(['http429']);
  });

  it('fails with USAGE without a model', async () => {
    const err = await flatAgent()
      .plan(REQUEST, { catalog })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiaryError);
    expect((err as ApiaryError).code).toBe('USAGE');
  });
});

describe('hierarchicalAgent', () => {
  it('selects apps first, then plans with only their APIs', async () => {
    const model = await modelFor(({ messages }) =>
      messages[0]!.content.includes('JSON format')
        ? { text: '["Restaurants", "Rents"]', usage: { prompt_tokens: 100, completion_tokens: 6 } }
        : { text: PLAN, usage: { prompt_tokens: 300, completion_tokens: 30 } },
    );
    const result = await hierarchicalAgent().plan(REQUEST, { catalog, model });
    expect(result.selectedApps).toEqual(['Rents', 'Restaurants']);
    expect(result.reply).toBe(PLAN);
    expect(result.usage).toEqual({ inputTokens: 400, outputTokens: 36 });
    expect(result.modelCalls).toBe(2);
    const [step1, step2] = server!.requests;
    expect(step1!.messages[0]!.content).toContain(
      'Your ONLY need to return needed app names and your output MUST follow this JSON format: [app1, app2, ...].',
    );
    expect(step1!.messages[0]!.content).toContain('Weather: ');
    expect(step1!.messages[0]!.content).not.toContain("'desc'");
    const plan = step2!.messages[0]!.content;
    expect(plan).toContain("Rents: {'desc': ");
    expect(plan).toContain("Restaurants: {'desc': ");
    expect(plan).not.toContain("Trains: {'desc': ");
    expect(plan).not.toContain('findtrains');
    expect(plan.indexOf('Rents: {')).toBeLessThan(plan.indexOf('Restaurants: {'));
  });

  it('retries app selection when no app is named; after 5 attempts the answer is no app and no plan', async () => {
    let selections = 0;
    const model = await modelFor(({ messages }) => {
      if (messages[0]!.content.includes('JSON format')) return ++selections < 3 ? '[]' : '[Weather]';
      return PLAN;
    });
    const result = await hierarchicalAgent().plan(REQUEST, { catalog, model });
    expect(result.selectedApps).toEqual(['Weather']);
    expect(result.modelCalls).toBe(4);

    await server?.close();
    const never = await modelFor(() => '[]');
    const none = await hierarchicalAgent().plan(REQUEST, { catalog, model: never });
    // the endpoint answered: the model's answer, scored, never a failed model call
    expect(none).toMatchObject({ reply: '', rawReply: '[]', selectedApps: [], modelCalls: 5, faults: [] });
    expect(server!.requests).toHaveLength(5);
  });
});

describe('selectAppsFromReply', () => {
  const apps = [
    'Hotels',
    'Rents',
    'Buses',
    'Events',
    'Flights',
    'Homes',
    'Media',
    'Movies',
    'Music',
    'Payment',
    'Restaurants',
    'Services',
    'Trains',
    'Travel',
    'Weather',
  ];
  it('keeps app_list order and is case-sensitive', () => {
    expect(selectAppsFromReply('[Weather, Hotels, trains]', apps)).toEqual(['Hotels', 'Weather']);
  });
  it('the official character fallback only behind officialQuirks', () => {
    expect(selectAppsFromReply('[v]', apps)).toEqual([]);
    // characters '[', 'v', ']': apps containing a "v"
    expect(selectAppsFromReply('[v]', apps, true)).toEqual(['Events', 'Movies', 'Services', 'Travel']);
  });
});
