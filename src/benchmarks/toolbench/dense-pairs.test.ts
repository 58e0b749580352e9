import { describe, expect, it } from 'vitest';
import { Bm25Index, mineHardNegatives } from '../../retrieval/index.js';
import { type PyObject, toPyJson } from '../../shared/index.js';
import type { ToolBenchDoc } from './corpus.js';
import { toolBenchCategoryIds, toolBenchQueryPairs, toolBenchSyntheticRequests } from './dense-pairs.js';
import { NO_ENTRY } from './suite.js';

// A tiny authored catalog: two weather APIs and a currency API in two categories.
const doc = (category: string, tool: string, api: string, description: string): ToolBenchDoc => ({
  category,
  tool,
  toolFile: tool.toLowerCase(),
  api,
  description,
  toolDescription: '',
  entry: NO_ENTRY,
  text: '',
});
const docs = [
  doc('Weather', 'Sky', 'forecast', 'daily forecast for a city'),
  doc('Finance', 'Money', 'convert', 'convert an amount between currencies'),
  doc('Weather', 'Sky', 'alerts', 'storm alerts for a city'),
  doc('Weather', 'Rain', 'radar', 'rain radar images for a city'),
];
const texts = ['Sky forecast', 'Money convert', 'Sky alerts', 'Rain radar'];
const queries = [
  { id: 'G1:1', text: 'forecast and alerts for Paris', relevant: [0, 2] },
  { id: 'G1:2', text: 'convert euros', relevant: [1] },
];

describe('dense query pairs (ToolBench requests)', () => {
  it('numbers categories in order of first appearance', () => {
    expect([...toolBenchCategoryIds(docs)]).toEqual([0, 1, 0, 0]);
  });

  it('pairs each request with each relevant API, repeated, keyed by the request, grouped by category', () => {
    const pairs = toolBenchQueryPairs({ docs, texts }, queries, { oversample: 2 });
    expect(pairs).toEqual([
      {
        query: 'forecast and alerts for Paris',
        doc: 'Sky forecast',
        group: 0,
        key: 'forecast and alerts for Paris',
      },
      {
        query: 'forecast and alerts for Paris',
        doc: 'Sky alerts',
        group: 0,
        key: 'forecast and alerts for Paris',
      },
      { query: 'convert euros', doc: 'Money convert', group: 1, key: 'convert euros' },
      {
        query: 'forecast and alerts for Paris',
        doc: 'Sky forecast',
        group: 0,
        key: 'forecast and alerts for Paris',
      },
      {
        query: 'forecast and alerts for Paris',
        doc: 'Sky alerts',
        group: 0,
        key: 'forecast and alerts for Paris',
      },
      { query: 'convert euros', doc: 'Money convert', group: 1, key: 'convert euros' },
    ]);
  });

  it('gives the repeats the mined hard negatives in turn', () => {
    const negatives = new Map([
      ['G1:1', [3, 1]],
      ['G1:2', [0]],
    ]);
    const pairs = toolBenchQueryPairs({ docs, texts }, queries, { oversample: 2, negatives });
    // G1:1 has 2 relevant APIs: repeat r, API j → negative (2r + j) mod 2
    expect(pairs.map((p) => p.negative)).toEqual([
      'Rain radar',
      'Money convert',
      'Sky forecast',
      'Rain radar',
      'Money convert',
      'Sky forecast',
    ]);
  });

  it('mines the best-scored APIs that are not relevant (BM25 on the tiny catalog)', async () => {
    const bm25 = new Bm25Index([
      'daily forecast city',
      'convert currencies',
      'storm alerts city',
      'rain radar city',
    ]);
    // "city alerts": doc 2 matches both words (relevant, skipped); docs 0 and 3 match "city" only,
    // equal scores (same length), so corpus order: 0 then 3; doc 1 matches nothing (score 0)
    const negs = await mineHardNegatives(bm25, [{ id: 'q', text: 'city alerts', relevant: [2] }], 2);
    expect(negs.get('q')).toEqual([0, 3]);
  });
});

describe('synthetic multi-API requests (catalog only)', () => {
  // tool 0 (Sky): forecast, alerts, radar; tool 1 (Money): convert alone (no request); tool 2: two APIs
  const entry = (defaultValue: string) =>
    toPyJson({
      required_parameters: [{ name: 'city', type: 'STRING', description: '', default: defaultValue }],
    }) as PyObject;
  const catalog: ToolBenchDoc[] = [
    {
      ...doc('Weather', 'Sky', 'getForecast', 'Daily forecast for a city. Updated hourly.'),
      entry: entry('Paris'),
    },
    doc('Finance', 'Money', 'convert', 'convert an amount between currencies'),
    { ...doc('Weather', 'Sky', 'alerts', 'storm alerts for a city'), entry: entry('Oslo') },
    doc('Weather', 'Sky', 'radar/images', 'x'),
    doc('Movies', 'Cine', 'showtimes', 'showtimes near you'),
    doc('Movies', 'Cine', 'tickets', 'book tickets'),
  ];
  const toolOf = Uint32Array.from([0, 1, 0, 0, 2, 2]);
  const phrases: Record<number, string[]> = {
    0: ['daily forecast for a city', 'the forecast'],
    2: ['storm alerts for a city', 'the alerts'],
    3: ['the radar images'],
    4: ['showtimes near you', 'the showtimes'],
    5: ['book tickets', 'the tickets'],
  };

  it('names 2–4 APIs of one tool per request, each by its first description sentence or its name', () => {
    const requests = toolBenchSyntheticRequests(catalog, toolOf, { perTool: 3, seed: 1 });
    // tools with 2+ APIs only, perTool times each, numbered in order
    expect(requests).toHaveLength(6);
    expect(requests.map((r) => r.id)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `synthetic:${i}`));
    // two of them exactly (seed 1): names or first description sentences, the first API's default
    expect(requests[0]).toEqual({
      id: 'synthetic:0',
      text: "I'd like to know the radar images and the forecast?",
      relevant: [3, 0],
    });
    expect(requests[4]?.text).toBe(
      'Please provide daily forecast for a city, storm alerts for a city and the radar images for Paris?',
    );
    for (const r of requests) {
      const tools = new Set(r.relevant.map((i) => toolOf[i]));
      expect(tools.size).toBe(1);
      expect(r.relevant.length).toBeGreaterThanOrEqual(2);
      expect(r.relevant.length).toBeLessThanOrEqual(tools.has(0) ? 3 : 2);
      expect(new Set(r.relevant).size).toBe(r.relevant.length);
      // "<opener> a, b and c[ for <default of the first API>]?" with one phrase per named API, in order
      const body = r.text.replace(
        /^(Can you get me|I need|Please provide|I'd like to know|Could you fetch|Show me) /,
        '',
      );
      const value = r.relevant[0] === 0 ? ' for Paris' : r.relevant[0] === 2 ? ' for Oslo' : '';
      expect(body.endsWith(`${value}?`)).toBe(true);
      const list = body.slice(0, body.length - value.length - 1);
      const parts = list.split(/, | and (?=the |daily |storm |showtimes |book )/);
      expect(parts).toHaveLength(r.relevant.length);
      parts.forEach((p, k) => {
        expect(phrases[r.relevant[k] as number]).toContain(p);
      });
    }
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const a = toolBenchSyntheticRequests(catalog, toolOf, { perTool: 2, seed: 5 });
    expect(toolBenchSyntheticRequests(catalog, toolOf, { perTool: 2, seed: 5 })).toEqual(a);
    const others = [6, 7, 8].map((seed) => toolBenchSyntheticRequests(catalog, toolOf, { perTool: 2, seed }));
    expect(others.some((b) => JSON.stringify(b) !== JSON.stringify(a))).toBe(true);
  });
});
