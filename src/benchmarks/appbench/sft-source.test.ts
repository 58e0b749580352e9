import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flatAgent } from '../../agents/index.js';
import { loadCatalog } from '../../catalog/index.js';
import { bagOfWordsEmbedder } from '../../retrieval/__fixtures__/demo-selector-bow-embedder.js';
import { asAgentDemos, createDemoSelector } from '../../retrieval/index.js';
import { scriptedLanguageModel } from '../../test/index.js';
import { appBenchDemoKnowledgeBase, loadAppBenchGoldTasks, locateAppBench } from './sft-source.js';

// the SFT fixtures (a mini catalog and AppBench folder) are shared with src/sft's tests
const FIXTURES = resolve(import.meta.dirname, '../../sft/__fixtures__');
const catalog = loadCatalog(resolve(FIXTURES, 'mini-catalog.json'));
const tasks = () => loadAppBenchGoldTasks(resolve(FIXTURES, 'mini-appbench'), catalog);

const I = {
  'ss-0': 'What will the weather be in Oslo on March 3rd?',
  'ss-1': 'Find Thai restaurant options in Bergen.',
  'ss-2': 'Is it going to rain in Bergen tomorrow? Check the weather.',
  'ss-3': 'Weather for Tromso please.',
  'sm-0': 'Find a train from Oslo to Bergen on March 5th and book 2 seats.',
  'sm-1': 'Look for a sushi restaurant in Oslo and book a table at 19:00.',
};
const R = {
  'ss-0': "Weather: [temperature, city = Weather_getweather(#city='Oslo', #date='2019-03-03')]",
  'ss-3': "Weather: [temperature, city = Weather_getweather(#town='Tromso')]",
  'sm-0':
    "Trains: [from, to, train_id, price = Trains_findtrains(#date='2019-03-05', #from='Oslo', #to='Bergen')]\nTrains: [ticket_id = Trains_buytrainticket(#seats='2', #train_id=train_id)]",
};

describe('locateAppBench / loadAppBenchGoldTasks', () => {
  it('finds dev files in the folder or its appbench/ subfolder', () => {
    expect(locateAppBench(resolve(FIXTURES, 'mini-appbench'))).toEqual({
      dir: resolve(FIXTURES, 'mini-appbench'),
      prefix: 'dev',
    });
    const root = mkdtempSync(join(tmpdir(), 'apiary-sft-'));
    expect(() => locateAppBench(root)).toThrow(/AppBench data folder/);
    expect(tasks().map((t) => [t.id, t.category, t.instruction])).toEqual(
      Object.entries(I).map(([id, text]) => [id, id.slice(0, 2), text]),
    );
  });

  it('names the file and record of a bad record', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-sft-'));
    writeFileSync(join(dir, 'dev_ss.json'), JSON.stringify([{ input: 'x', output: { used_app: [] } }]));
    expect(() => loadAppBenchGoldTasks(dir, catalog)).toThrow(
      /dev_ss\.json: record 1: field "output\.used_api"/,
    );
  });
});

describe('appBenchDemoKnowledgeBase', () => {
  it('builds one task demo per record and one API demo per catalog API', () => {
    const kb = appBenchDemoKnowledgeBase(tasks(), catalog);
    expect(kb.taskDemos.map((d) => d.id)).toEqual(['ss-0', 'ss-1', 'ss-2', 'ss-3', 'sm-0', 'sm-1']);
    expect(kb.taskDemos[4]).toEqual({
      id: 'sm-0',
      instruction: I['sm-0'],
      reply: R['sm-0'],
      apps: ['Trains'],
      apis: ['Trains.findtrains', 'Trains.buytrainticket'],
    });
    expect(kb.apiDemos).toEqual([
      {
        api: 'Weather.getweather',
        text: 'Weather getweather Forecast for a city and date',
        instruction: 'Show an example call of Weather.getweather: Forecast for a city and date',
        examples: [
          { reply: R['ss-0'], source: 'gold', from: I['ss-0'] },
          {
            reply: "Weather: [temperature, city = Weather_getweather(#city='Bergen', #date='2019-03-02')]",
            source: 'gold',
            from: I['ss-2'],
          },
          { reply: R['ss-3'], source: 'gold', from: I['ss-3'] },
          { reply: "Weather: [temperature, city = Weather_getweather(#city='<city>')]", source: 'synthetic' },
        ],
      },
      {
        api: 'Trains.findtrains',
        text: 'Trains findtrains Find a train between two cities',
        instruction: 'Show an example call of Trains.findtrains: Find a train between two cities',
        examples: [
          {
            reply:
              "Trains: [from, to, train_id, price = Trains_findtrains(#date='2019-03-05', #from='Oslo', #to='Bergen')]",
            source: 'gold',
            from: I['sm-0'],
          },
          {
            reply:
              "Trains: [from, to, train_id, price = Trains_findtrains(#from='<from>', #to='<to>', #date='<date>')]",
            source: 'synthetic',
          },
        ],
      },
      {
        api: 'Trains.buytrainticket',
        text: 'Trains buytrainticket Book seats on a train',
        instruction: 'Show an example call of Trains.buytrainticket: Book seats on a train',
        examples: [
          {
            reply: "Trains: [ticket_id = Trains_buytrainticket(#seats='2', #train_id=train_id)]",
            source: 'gold',
            from: I['sm-0'],
          },
          {
            reply: "Trains: [ticket_id = Trains_buytrainticket(#train_id='<train_id>', #seats='<seats>')]",
            source: 'synthetic',
          },
        ],
      },
      {
        api: 'Food.findrestaurants',
        text: 'Food findrestaurants Find a restaurant in a city',
        instruction: 'Show an example call of Food.findrestaurants: Find a restaurant in a city',
        examples: [
          {
            reply: "Food: [restaurant_name, city = Food_findrestaurants(#city='Bergen', #cuisine='Thai')]",
            source: 'gold',
            from: I['ss-1'],
          },
          {
            reply: "Food: [restaurant_name, city = Food_findrestaurants(#city='Oslo', #cuisine='Sushi')]",
            source: 'gold',
            from: I['sm-1'],
          },
          {
            reply: "Food: [restaurant_name, city = Food_findrestaurants(#city='<city>')]",
            source: 'synthetic',
          },
        ],
      },
      {
        api: 'Food.bookrestaurant',
        text: 'Food bookrestaurant Book a table at a restaurant',
        instruction: 'Show an example call of Food.bookrestaurant: Book a table at a restaurant',
        examples: [
          {
            reply:
              "Food: [booking_id = Food_bookrestaurant(#restaurant_name=restaurant_name, #time='19:00')]",
            source: 'gold',
            from: I['sm-1'],
          },
          {
            reply:
              "Food: [booking_id = Food_bookrestaurant(#restaurant_name='<restaurant_name>', #time='<time>')]",
            source: 'synthetic',
          },
        ],
      },
    ]);
  });

  it('leaves excluded instructions out of both levels and caps gold examples', () => {
    const kb = appBenchDemoKnowledgeBase(tasks(), catalog, { exclude: [I['ss-0']], maxGoldExamples: 1 });
    expect(kb.taskDemos.map((d) => d.id)).toEqual(['ss-1', 'ss-2', 'ss-3', 'sm-0', 'sm-1']);
    expect(kb.apiDemos[0]!.examples.map((e) => e.from ?? e.source)).toEqual([I['ss-2'], 'synthetic']);
  });
});

describe('demo selection over the AppBench knowledge base', () => {
  const selector = () => {
    const kb = appBenchDemoKnowledgeBase(tasks(), catalog);
    return createDemoSelector({ embedder: bagOfWordsEmbedder(), ...kb, threshold: 0.8, k: 2 });
  };

  it('chooses similar solved tasks (weather + oslo: ss-0 = 1, ss-3 = 1/√2 ≥ Δ 0.7)', async () => {
    const kb = appBenchDemoKnowledgeBase(tasks(), catalog);
    const demos = asAgentDemos(
      createDemoSelector({ embedder: bagOfWordsEmbedder(), ...kb, threshold: 0.7, k: 3 }),
    );
    expect(await demos('Check the weather in Oslo')).toEqual([
      { instruction: I['ss-0'], reply: R['ss-0'] },
      { instruction: I['ss-3'], reply: R['ss-3'] },
    ]);
  });

  it('solving sm-0: its own task demo is excluded, no other reaches Δ, its own gold steps are skipped', async () => {
    // query words train, oslo, bergen, book: best other task sm-1 = 2/(2√3) ≈ 0.577 < 0.8;
    // APIs buytrainticket 2/(2√2), findtrains 1/2 — both only have gold steps from sm-0.
    const s = await selector().select(I['sm-0']);
    expect(s.level).toBe('api');
    expect(s.bestTaskScore).toBeCloseTo(1 / Math.sqrt(3), 12);
    expect(s.ids).toEqual(['Trains.buytrainticket', 'Trains.findtrains']);
    expect(s.demos).toEqual([
      {
        instruction: 'Show an example call of Trains.buytrainticket: Book seats on a train',
        reply: "Trains: [ticket_id = Trains_buytrainticket(#train_id='<train_id>', #seats='<seats>')]",
      },
      {
        instruction: 'Show an example call of Trains.findtrains: Find a train between two cities',
        reply:
          "Trains: [from, to, train_id, price = Trains_findtrains(#from='<from>', #to='<to>', #date='<date>')]",
      },
    ]);
  });

  it("plugs into the flat agent's demos option as user/assistant pairs", async () => {
    const kb = appBenchDemoKnowledgeBase(tasks(), catalog);
    const demos = asAgentDemos(
      createDemoSelector({ embedder: bagOfWordsEmbedder(), ...kb, threshold: 0.7, k: 3 }),
    );
    const model = scriptedLanguageModel(() => R['ss-0']);
    const agent = flatAgent({ demos });
    const result = await agent.plan(
      { instruction: 'Check the weather in Oslo', currentDate: '2019-03-01' },
      { catalog, model },
    );
    expect(result.reply).toBe(R['ss-0']);
    expect(model.scriptedRequests[0]!.messages.slice(1)).toEqual([
      { role: 'user', content: I['ss-0'] },
      { role: 'assistant', content: R['ss-0'] },
      { role: 'user', content: I['ss-3'] },
      { role: 'assistant', content: R['ss-3'] },
      { role: 'user', content: 'Check the weather in Oslo' },
    ]);
  });

  it('solving another train request uses sm-0 as gold API examples', async () => {
    const s = await selector().select('Book a train');
    expect(s.level).toBe('api');
    expect(s.demos.map((d) => d.reply)).toEqual([
      "Trains: [ticket_id = Trains_buytrainticket(#seats='2', #train_id=train_id)]",
      "Trains: [from, to, train_id, price = Trains_findtrains(#date='2019-03-05', #from='Oslo', #to='Bergen')]",
    ]);
  });
});
