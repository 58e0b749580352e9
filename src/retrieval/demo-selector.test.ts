import { describe, expect, it } from 'vitest';
import { bagOfWordsEmbedder } from './__fixtures__/demo-selector-bow-embedder.js';
import {
  type ApiDemo,
  asAgentDemos,
  createDemoSelector,
  normalizeInstruction,
  retrieverApiRetriever,
  type TaskDemo,
} from './demo-selector.js';
import type { Retriever } from './types.js';

// Vocabulary of the embedder: [weather, train, restaurant, oslo, bergen, book].
// The comment after each demo is its vector's non-zero words.
const task = (id: string, instruction: string): TaskDemo => ({
  id,
  instruction,
  reply: `reply of ${id}`,
  apps: [],
  apis: [],
});
const TASKS: TaskDemo[] = [
  task('t-oslo', 'What will the weather be in Oslo on March 3rd?'), // weather, oslo
  task('t-thai', 'Find Thai restaurant options in Bergen.'), // restaurant, bergen
  task('t-rain', 'Is it going to rain in Bergen tomorrow? Check the weather.'), // weather, bergen
  task('t-tromso', 'Weather for Tromso please.'), // weather
  task('t-train', 'Find a train from Oslo to Bergen on March 5th and book 2 seats.'), // train, oslo, bergen, book
  task('t-sushi', 'Look for a sushi restaurant in Oslo and book a table at 19:00.'), // restaurant, oslo, book
];

const TRAIN_INSTRUCTION = TASKS[4]!.instruction;
const APIS: ApiDemo[] = [
  {
    api: 'Weather.getweather',
    text: 'Weather getweather Forecast for a city and date', // weather
    instruction: 'Show an example call of Weather.getweather',
    examples: [{ reply: "Weather: [temperature = getweather(#city='<city>')]", source: 'synthetic' }],
  },
  {
    api: 'Trains.findtrains',
    text: 'Trains findtrains Find a train between two cities', // train
    instruction: 'Show an example call of Trains.findtrains',
    examples: [
      { reply: "Trains: [train_id = findtrains(#from='Oslo')]", source: 'gold', from: TRAIN_INSTRUCTION },
      { reply: "Trains: [train_id = findtrains(#from='Bodo')]", source: 'gold', from: 'Trains from Bodo.' },
      { reply: "Trains: [train_id = findtrains(#from='<from>')]", source: 'synthetic' },
    ],
  },
  {
    api: 'Trains.buytrainticket',
    text: 'Trains buytrainticket Book seats on a train', // train, book
    instruction: 'Show an example call of Trains.buytrainticket',
    examples: [
      { reply: "Trains: [ticket_id = buytrainticket(#seats='2')]", source: 'gold', from: TRAIN_INSTRUCTION },
      { reply: "Trains: [ticket_id = buytrainticket(#seats='<seats>')]", source: 'synthetic' },
    ],
  },
  {
    api: 'Food.findrestaurants',
    text: 'Food findrestaurants Find a restaurant in a city', // restaurant
    instruction: 'Show an example call of Food.findrestaurants',
    examples: [{ reply: "Food: [restaurant_name = findrestaurants(#city='<city>')]", source: 'synthetic' }],
  },
  {
    api: 'Food.bookrestaurant',
    text: 'Food bookrestaurant Book a table at a restaurant', // book, restaurant
    instruction: 'Show an example call of Food.bookrestaurant',
    examples: [{ reply: "Food: [booking_id = bookrestaurant(#time='<time>')]", source: 'synthetic' }],
  },
];

const SQRT1_2 = Math.SQRT1_2;

describe('createDemoSelector', () => {
  it('returns the k task demos at or above the threshold, best first', async () => {
    const selector = createDemoSelector({
      embedder: bagOfWordsEmbedder(),
      taskDemos: TASKS,
      apiDemos: APIS,
      threshold: 0.4,
      k: 2,
    });
    // query = weather + oslo (|q| = √2): t-oslo 2/2 = 1, t-tromso 1/√2, t-rain 1/2, t-sushi 1/√6 ≈ 0.408, t-train 1/(2√2)
    const s = await selector.select('Check the weather in Oslo');
    expect(s.level).toBe('task');
    expect(s.ids).toEqual(['t-oslo', 't-tromso']);
    expect(s.scores[0]).toBeCloseTo(1, 12);
    expect(s.scores[1]).toBeCloseTo(SQRT1_2, 12);
    expect(s.bestTaskScore).toBeCloseTo(1, 12);
    expect(s.demos).toEqual([
      { instruction: TASKS[0]!.instruction, reply: 'reply of t-oslo' },
      { instruction: TASKS[3]!.instruction, reply: 'reply of t-tromso' },
    ]);
  });

  it('never returns the instruction being solved (compared trimmed, spaces collapsed, lower-case)', async () => {
    const selector = createDemoSelector({
      embedder: bagOfWordsEmbedder(),
      taskDemos: TASKS,
      apiDemos: APIS,
      threshold: 0.4,
      k: 2,
    });
    const s = await selector.select('  what will the WEATHER be in   Oslo on March 3rd? ');
    expect(s.ids).toEqual(['t-tromso', 't-rain']);
    expect(s.scores[0]).toBeCloseTo(SQRT1_2, 12);
    expect(s.scores[1]).toBeCloseTo(0.5, 12);
    expect(normalizeInstruction('  A  b\nC ')).toBe('a b c');
  });

  it('breaks ties by knowledge-base order and admits a score equal to Δ', async () => {
    const embedder = bagOfWordsEmbedder();
    // query = bergen: t-thai 1/√2, t-rain 1/√2, t-train 1/2 (= Δ), others 0
    const three = createDemoSelector({ embedder, taskDemos: TASKS, apiDemos: APIS, threshold: 0.5, k: 3 });
    const s3 = await three.select('bergen');
    expect(s3.ids).toEqual(['t-thai', 't-rain', 't-train']);
    expect(s3.scores).toEqual([expect.closeTo(SQRT1_2, 12), expect.closeTo(SQRT1_2, 12), 0.5]);
    const reversed = createDemoSelector({
      embedder,
      taskDemos: [...TASKS].reverse(),
      apiDemos: APIS,
      threshold: 0.5,
      k: 2,
    });
    expect((await reversed.select('bergen')).ids).toEqual(['t-rain', 't-thai']);
  });

  it('falls back to API-level demos of the most similar APIs when no task demo reaches Δ', async () => {
    const selector = createDemoSelector({
      embedder: bagOfWordsEmbedder(),
      taskDemos: TASKS,
      apiDemos: APIS,
      threshold: 0.8,
      k: 2,
    });
    // query = train + book: best task t-train 2/(√2·2) = 1/√2 < 0.8.
    // APIs: buytrainticket 2/2 = 1, findtrains 1/√2, bookrestaurant 1/2, others 0.
    const s = await selector.select('Book a train');
    expect(s.level).toBe('api');
    expect(s.bestTaskScore).toBeCloseTo(SQRT1_2, 12);
    expect(s.ids).toEqual(['Trains.buytrainticket', 'Trains.findtrains']);
    expect(s.scores).toEqual([1, expect.closeTo(SQRT1_2, 12)]);
    expect(s.demos).toEqual([
      {
        instruction: 'Show an example call of Trains.buytrainticket',
        reply: "Trains: [ticket_id = buytrainticket(#seats='2')]",
      },
      {
        instruction: 'Show an example call of Trains.findtrains',
        reply: "Trains: [train_id = findtrains(#from='Oslo')]",
      },
    ]);
  });

  it('skips API examples taken from the instruction being solved', async () => {
    const selector = createDemoSelector({
      embedder: bagOfWordsEmbedder(),
      taskDemos: TASKS,
      apiDemos: APIS,
      threshold: 0.8,
      k: 2,
    });
    // query = train, oslo, bergen, book (|q| = 2); t-train itself is excluded, t-sushi 2/(2√3) ≈ 0.577 < 0.8.
    // APIs: buytrainticket 2/(2√2), findtrains 1/2, bookrestaurant 1/(2√2).
    const s = await selector.select(TRAIN_INSTRUCTION);
    expect(s.level).toBe('api');
    expect(s.bestTaskScore).toBeCloseTo(1 / Math.sqrt(3), 12);
    expect(s.ids).toEqual(['Trains.buytrainticket', 'Trains.findtrains']);
    expect(s.scores).toEqual([expect.closeTo(SQRT1_2, 12), 0.5]);
    expect(s.demos.map((d) => d.reply)).toEqual([
      "Trains: [ticket_id = buytrainticket(#seats='<seats>')]",
      "Trains: [train_id = findtrains(#from='Bodo')]",
    ]);
  });

  it('uses the given retrieveApis on the fallback path (unknown and repeated APIs skipped)', async () => {
    const asked: Array<[string, number]> = [];
    const selector = createDemoSelector({
      embedder: bagOfWordsEmbedder(),
      taskDemos: TASKS,
      apiDemos: APIS,
      threshold: 2,
      k: 1,
      apiK: 4,
      retrieveApis: async (instruction, k) => {
        asked.push([instruction, k]);
        return [
          { api: 'Unknown.api', score: 9 },
          { api: 'Food.bookrestaurant', score: 0.3 },
          { api: 'Food.bookrestaurant', score: 0.2 },
          { api: 'Weather.getweather', score: 0.1 },
        ];
      },
    });
    const s = await selector.select('anything');
    expect(asked).toEqual([['anything', 4]]);
    expect(s).toMatchObject({
      level: 'api',
      ids: ['Food.bookrestaurant', 'Weather.getweather'],
      scores: [0.3, 0.1],
      bestTaskScore: 0,
    });
  });

  it('adapts a corpus retriever and the agents’ demos option', async () => {
    const retriever: Retriever = {
      name: 'fake',
      search: async () => [
        { doc: 2, score: 5 },
        { doc: 0, score: 1 },
      ],
      scoreAll: async () => new Float32Array(0),
    };
    const ids = APIS.map((a) => a.api);
    expect(await retrieverApiRetriever(retriever, ids)('x', 2)).toEqual([
      { api: 'Trains.buytrainticket', score: 5 },
      { api: 'Weather.getweather', score: 1 },
    ]);
    const embedder = bagOfWordsEmbedder();
    const demos = asAgentDemos(
      createDemoSelector({ embedder, taskDemos: TASKS, apiDemos: APIS, threshold: 0.4, k: 1 }),
    );
    expect(await demos('Check the weather in Oslo')).toEqual([
      { instruction: TASKS[0]!.instruction, reply: 'reply of t-oslo' },
    ]);
    await demos('bergen');
    // the knowledge base is embedded once: query, task demos, query
    expect(embedder.calls.map((c) => c.length)).toEqual([1, TASKS.length, 1]);
  });

  it('goes to API level with an empty task knowledge base', async () => {
    const selector = createDemoSelector({
      embedder: bagOfWordsEmbedder(),
      taskDemos: [],
      apiDemos: APIS,
      threshold: 0,
      k: 1,
    });
    const s = await selector.select('weather');
    expect(s).toMatchObject({ level: 'api', ids: ['Weather.getweather'], scores: [1], bestTaskScore: -1 });
  });
});
