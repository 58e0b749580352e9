import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planPrompt } from '../agents/index.js';
import { appBenchSftStyle, loadAppBenchGoldTasks } from '../benchmarks/appbench/sft-source.js';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { loadCatalog } from '../catalog/index.js';
import { buildSftSamples } from './build-sft.js';
import { formatSftJsonl, formatSftLine, type SftChat } from './sft-format.js';
import { renderSftSystemPrompt, SFT_PLANNER_RULES } from './system-prompt.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const FIXTURES = resolve(import.meta.dirname, '__fixtures__');
const catalog = loadCatalog(resolve(FIXTURES, 'mini-catalog.json'));
const tasks = () => loadAppBenchGoldTasks(resolve(FIXTURES, 'mini-appbench'), catalog);

// Listing blocks of the mini catalog, written by hand in renderCatalogText's format.
const FOOD = 'Food: Restaurant search and booking';
const TRAINS = 'Trains: Train journeys between cities';
const WEATHER = 'Weather: Forecasts for any city';
const getweather =
  '  getweather(city: str, date?: date) -> temperature, city\n      Forecast for a city and date';
const findtrains =
  '  findtrains(from: str, to: str, date: date) -> from, to, train_id, price\n      Find a train between two cities';
const buytrainticket =
  '  buytrainticket!(train_id: str, seats: int) -> ticket_id\n      Book seats on a train';
const findrestaurants =
  '  findrestaurants(city: str, cuisine?: str) -> restaurant_name, city\n      Find a restaurant in a city';
const bookrestaurant =
  '  bookrestaurant!(restaurant_name: str, time: time) -> booking_id\n      Book a table at a restaurant';
const system = (...blocks: string[][]) =>
  `Plan the calls.\n\nApps and APIs:\n\n${blocks.map((b) => b.join('\n')).join('\n\n')}`;

const PLAN = {
  'ss-0': "Weather: [temperature, city = getweather(#city='Oslo', #date='2019-03-03')]",
  'ss-1': "Food: [restaurant_name, city = findrestaurants(#city='Bergen', #cuisine='Thai')]",
  'ss-2': "Weather: [temperature, city = getweather(#city='Bergen', #date='2019-03-02')]",
  'sm-0':
    "Trains: [from, to, train_id, price = findtrains(#date='2019-03-05', #from='Oslo', #to='Bergen')]\nTrains: [ticket_id = buytrainticket(#seats='2', #train_id=train_id)]",
  'sm-1':
    "Food: [restaurant_name, city = findrestaurants(#city='Oslo', #cuisine='Sushi')]\nFood: [booking_id = bookrestaurant(#restaurant_name=restaurant_name, #time='19:00')]",
};

/**
 * Seed 7 (draws checked against an independent mulberry32 in Python): singles shuffle to
 * ss-1, ss-2, ss-0, multis stay sm-0, sm-1; upsampling repeats sm-0. Per sample, the
 * distractor then the shuffled API list.
 */
const EXPECTED: Array<{ id: string } & SftChat> = [
  {
    id: 'ss-1',
    system: system([FOOD, findrestaurants], [TRAINS, buytrainticket]),
    user: 'Find Thai restaurant options in Bergen.',
    assistant: PLAN['ss-1'],
  },
  {
    id: 'sm-0',
    system: system([FOOD, findrestaurants], [TRAINS, findtrains, buytrainticket]),
    user: 'Find a train from Oslo to Bergen on March 5th and book 2 seats.',
    assistant: PLAN['sm-0'],
  },
  {
    id: 'ss-2',
    system: system([WEATHER, getweather], [FOOD, findrestaurants]),
    user: 'Is it going to rain in Bergen tomorrow? Check the weather.',
    assistant: PLAN['ss-2'],
  },
  {
    id: 'sm-1',
    system: system([WEATHER, getweather], [FOOD, bookrestaurant, findrestaurants]),
    user: 'Look for a sushi restaurant in Oslo and book a table at 19:00.',
    assistant: PLAN['sm-1'],
  },
  {
    id: 'ss-0',
    system: system([FOOD, findrestaurants], [WEATHER, getweather]),
    user: 'What will the weather be in Oslo on March 3rd?',
    assistant: PLAN['ss-0'],
  },
  {
    id: 'sm-0#1',
    system: system([FOOD, findrestaurants], [TRAINS, buytrainticket, findtrains]),
    user: 'Find a train from Oslo to Bergen on March 5th and book 2 seats.',
    assistant: PLAN['sm-0'],
  },
];

describe('buildSftSamples', () => {
  it('builds the exact balanced, augmented samples for a seed', async () => {
    const { samples, stats } = await buildSftSamples(tasks(), catalog, {
      seed: 7,
      distractors: 1,
      style: 'compact',
      rules: 'Plan the calls.',
    });
    expect(samples.map(({ id, system, user, assistant }) => ({ id, system, user, assistant }))).toEqual(
      EXPECTED,
    );
    expect(samples.map((s) => s.distractors)).toEqual([
      ['Trains.buytrainticket'],
      ['Food.findrestaurants'],
      ['Food.findrestaurants'],
      ['Weather.getweather'],
      ['Food.findrestaurants'],
      ['Food.findrestaurants'],
    ]);
    expect(stats).toEqual({
      tasks: 6,
      skipped: [{ id: 'ss-3', reason: 's1.city: missing-argument: required argument "city" is missing' }],
      samples: 6,
      single: 3,
      multi: 3,
      repeats: 1,
      perApp: { Food: 2, Trains: 2, Weather: 2 },
      perCategory: { sm: 3, ss: 3 },
      balance: 'upsample',
      style: 'compact',
      balanced: true,
    });
  });

  it('writes exact OpenAI and ShareGPT JSONL lines', async () => {
    const { samples } = await buildSftSamples(tasks(), catalog, {
      seed: 7,
      distractors: 1,
      style: 'compact',
      rules: 'Plan the calls.',
    });
    const sys =
      'Plan the calls.\\n\\nApps and APIs:\\n\\nFood: Restaurant search and booking\\n  findrestaurants(city: str, cuisine?: str) -> restaurant_name, city\\n      Find a restaurant in a city\\n\\nTrains: Train journeys between cities\\n  buytrainticket!(train_id: str, seats: int) -> ticket_id\\n      Book seats on a train';
    const reply = "Food: [restaurant_name, city = findrestaurants(#city='Bergen', #cuisine='Thai')]";
    expect(formatSftLine(samples[0]!, 'openai')).toBe(
      `{"messages":[{"role":"system","content":"${sys}"},{"role":"user","content":"Find Thai restaurant options in Bergen."},{"role":"assistant","content":"${reply}"}]}`,
    );
    expect(formatSftLine(samples[0]!, 'sharegpt')).toBe(
      `{"conversations":[{"from":"system","value":"${sys}"},{"from":"human","value":"Find Thai restaurant options in Bergen."},{"from":"gpt","value":"${reply}"}]}`,
    );
    const openai = formatSftJsonl(samples, 'openai').split('\n');
    expect(openai).toHaveLength(7);
    expect(openai[6]).toBe('');
    expect(openai.slice(0, 6)).toEqual(
      EXPECTED.map((e) =>
        JSON.stringify({
          messages: [
            { role: 'system', content: e.system },
            { role: 'user', content: e.user },
            { role: 'assistant', content: e.assistant },
          ],
        }),
      ),
    );
    const sharegpt = formatSftJsonl(samples, 'sharegpt').split('\n').slice(0, 6);
    expect(sharegpt).toEqual(
      EXPECTED.map((e) =>
        JSON.stringify({
          conversations: [
            { from: 'system', value: e.system },
            { from: 'human', value: e.user },
            { from: 'gpt', value: e.assistant },
          ],
        }),
      ),
    );
  });

  it("uses the agents' AppBench prompt and App_api call names by default", async () => {
    const { samples, stats } = await buildSftSamples(tasks(), catalog, {
      seed: 7,
      distractors: 0,
      limit: 2,
      style: appBenchSftStyle,
    });
    expect(stats.style).toBe('appbench');
    // ss-1 lists only Food.findrestaurants; the official listing is the Python repr of the app's dict
    const food =
      "Food: {'desc': 'Restaurant search and booking', 'base_required_arguments': {}, 'APIs': {'findrestaurants': {'desc': 'Find a restaurant in a city', 'is_transactional': False, 'additional_required_arguments': {'city (str)': ''}, 'optional_arguments': {'cuisine (str)': ''}, 'result_arguments': {'restaurant_name (str)': '', 'city (str)': ''}}}} \n\n ";
    expect(samples[0]!.system).toBe(planPrompt(food, '2019-03-01'));
    expect(samples[0]!.system).toContain(
      `Here is the information about the accessible Apps and their APIs: ${food}\n`,
    );
    expect(samples[0]!.assistant).toBe(
      "Food: [restaurant_name, city = Food_findrestaurants(#city='Bergen', #cuisine='Thai')]",
    );
    expect(samples[1]!.assistant).toBe(
      "Trains: [from, to, train_id, price = Trains_findtrains(#date='2019-03-05', #from='Oslo', #to='Bergen')]\nTrains: [ticket_id = Trains_buytrainticket(#seats='2', #train_id=train_id)]",
    );
  });

  it('is deterministic for a seed and changes with it', async () => {
    const a = await buildSftSamples(tasks(), catalog, { seed: 123, distractors: 2, style: appBenchSftStyle });
    const b = await buildSftSamples(tasks(), catalog, { seed: 123, distractors: 2, style: appBenchSftStyle });
    const c = await buildSftSamples(tasks(), catalog, { seed: 124, distractors: 2, style: appBenchSftStyle });
    expect(formatSftJsonl(a.samples, 'openai')).toBe(formatSftJsonl(b.samples, 'openai'));
    expect(formatSftJsonl(a.samples, 'openai')).not.toBe(formatSftJsonl(c.samples, 'openai'));
  });

  it('balances by downsampling, or not at all, and honours limit', async () => {
    const down = await buildSftSamples(tasks(), catalog, {
      seed: 7,
      distractors: 0,
      balance: 'downsample',
      style: appBenchSftStyle,
    });
    // two of the three shuffled singles (ss-1, ss-2), then alternating with sm-0, sm-1
    expect(down.samples.map((s) => s.id)).toEqual(['ss-1', 'sm-0', 'ss-2', 'sm-1']);
    expect(down.stats).toMatchObject({ samples: 4, single: 2, multi: 2, repeats: 0 });
    const none = await buildSftSamples(tasks(), catalog, {
      seed: 7,
      distractors: 0,
      balance: 'none',
      style: appBenchSftStyle,
    });
    expect(none.samples.map((s) => s.id)).toEqual(['ss-1', 'sm-0', 'ss-2', 'sm-1', 'ss-0']);
    const limited = await buildSftSamples(tasks(), catalog, {
      seed: 7,
      distractors: 1,
      limit: 3,
      style: appBenchSftStyle,
    });
    expect(limited.samples.map((s) => s.id)).toEqual(['ss-1', 'sm-0', 'ss-2']);
    const onlySingles = await buildSftSamples(
      tasks().filter((t) => t.category === 'ss'),
      catalog,
      { seed: 7, distractors: 0, style: appBenchSftStyle },
    );
    expect(onlySingles.stats).toMatchObject({ samples: 3, balanced: false, repeats: 0 });
  });

  it('lists every catalog API when distractors exceed the pool, in catalog order without shuffling', async () => {
    const { samples } = await buildSftSamples(tasks(), catalog, {
      seed: 1,
      distractors: 99,
      shuffleApis: false,
      balance: 'none',
      limit: 1,
      style: appBenchSftStyle,
    });
    expect(samples[0]!.listedApis).toEqual(catalog.apis.map((a) => a.id));
    expect(samples[0]!.distractors).toHaveLength(4);
  });

  it('rejects bad options', async () => {
    await expect(buildSftSamples(tasks(), catalog, { distractors: -1 })).rejects.toThrow(/distractors/);
    await expect(buildSftSamples(tasks(), catalog, { limit: 1.5 })).rejects.toThrow(/limit/);
    // @ts-expect-error: an unknown style from untyped input
    await expect(buildSftSamples(tasks(), catalog, { style: 'xml' })).rejects.toThrow(/prompt style "xml"/);
  });
});

describe('renderSftSystemPrompt', () => {
  it('puts the rules and the date above the listing', () => {
    expect(renderSftSystemPrompt(catalog, ['Weather.getweather'], { currentDate: '2019-03-01' })).toBe(
      `${SFT_PLANNER_RULES}\nCurrent date: 2019-03-01.\n\nApps and APIs:\n\n${WEATHER}\n${getweather}`,
    );
    expect(() => renderSftSystemPrompt(catalog, ['Weather.nope'])).toThrow(/unknown API "Weather.nope"/);
  });
});
