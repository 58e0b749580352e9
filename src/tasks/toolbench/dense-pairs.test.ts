import { describe, expect, it } from 'vitest';
import { Bm25Index, mineHardNegatives } from '../../retrieval/index.js';
import type { ToolBenchDoc } from './corpus.js';
import { toolBenchCategoryIds, toolBenchQueryPairs } from './dense-pairs.js';
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
