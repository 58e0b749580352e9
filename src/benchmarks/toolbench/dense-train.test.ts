import { describe, expect, it } from 'vitest';
import { Bm25Index, mineHardNegatives, trainDenseEncoder } from '../../retrieval/index.js';
import { writeToolBenchFixtures } from './__fixtures__/data-root.js';
import { toolBenchDensePairs, toolBenchQueryPairs, toolBenchSyntheticRequests } from './dense-pairs.js';
import { toolBenchDenseSet, trainToolBenchDense } from './dense-train.js';
import { loadToolBenchSuite } from './suite.js';

const small = { dim: 8, buckets: 512, seed: 7 };
const tableBytes = (t: Float32Array) => Buffer.from(t.buffer, t.byteOffset, t.byteLength);

describe('trainToolBenchDense', () => {
  // the hand-made fixtures: 4 APIs; G1_instruction has 1 request with 2 relevant APIs, G1_tool 1 with 1
  const suite = loadToolBenchSuite(writeToolBenchFixtures(), ['G1_instruction', 'G1_tool']);

  it('learns from the requests of trainOn only: the held-out file adds no pair', async () => {
    const heldOut = await trainToolBenchDense(suite, { ...small, trainOn: ['G1_instruction'] });
    // 1 request × 2 relevant APIs × oversample 8; SkyCast's two APIs make the 4 synthetic
    // requests (the default per tool), 2 pairs each
    expect(heldOut).toMatchObject({
      trainOn: ['G1_instruction'],
      requests: 1,
      queryPairs: 16,
      syntheticRequests: 4,
      syntheticPairs: 8,
    });
    const both = await toolBenchDenseSet(suite, { ...small, trainOn: ['G1_instruction', 'G1_tool'] });
    // + G1_tool's 1 request × 1 relevant API × 8
    expect(both).toMatchObject({ requests: 2, queryPairs: 24, syntheticPairs: 8 });
    expect(both.catalogPairs).toBe(heldOut.catalogPairs);
    expect(both.pairs).toHaveLength(heldOut.catalogPairs + 8 + 24);
    const none = await toolBenchDenseSet(suite, {
      ...small,
      trainOn: [],
      oversample: 3,
      syntheticRequests: 0,
    });
    expect(none).toMatchObject({ requests: 0, queryPairs: 0, syntheticRequests: 0, syntheticPairs: 0 });
    expect(none.pairs).toHaveLength(none.catalogPairs);
  });

  it('is deterministic for a seed: the same table bytes twice, other bytes for another seed', async () => {
    const a = await trainToolBenchDense(suite, { ...small, trainOn: ['G1_tool'] });
    const b = await trainToolBenchDense(suite, { ...small, trainOn: ['G1_tool'] });
    const c = await trainToolBenchDense(suite, { ...small, seed: 8, trainOn: ['G1_tool'] });
    expect(tableBytes(a.model.table).equals(tableBytes(b.model.table))).toBe(true);
    expect(a.epochLosses).toEqual(b.epochLosses);
    expect(tableBytes(a.model.table).equals(tableBytes(c.model.table))).toBe(false);
  });

  it('trains on the catalog pairs, then the synthetic requests, then the requests of trainOn (defaults, config order)', async () => {
    const queries = suite.sets.get('G1_instruction')?.queries ?? [];
    const bm25 = new Bm25Index(suite.texts);
    const synthetic = toolBenchSyntheticRequests(suite.docs, suite.toolOf, { perTool: 4, seed: 7 });
    const pairs = [
      ...toolBenchDensePairs(suite.docs, suite.texts, suite.toolOf, { seed: 7 }),
      ...toolBenchQueryPairs(suite, synthetic, {
        oversample: 1,
        negatives: await mineHardNegatives(bm25, synthetic, 2),
      }),
      ...toolBenchQueryPairs(suite, queries, {
        oversample: 8,
        negatives: await mineHardNegatives(bm25, queries, 4),
      }),
    ];
    const expected = (epochs: number) =>
      trainDenseEncoder(pairs, {
        epochs,
        seed: 7,
        scale: 12,
        batchSize: 4,
        config: {
          dim: 8,
          buckets: 512,
          toolContext: 0.5,
          wordRowShare: 0.5,
          sentenceWeight: 0.5,
          wordMatchWeight: 0.5,
        },
        vocabularyTexts: suite.texts,
      });
    const now = await trainToolBenchDense(suite, { ...small, batchSize: 4, trainOn: ['G1_instruction'] });
    expect(JSON.stringify(now.model.config)).toBe(JSON.stringify(expected(1).model.config));
    expect(now.model.vocabulary).toEqual(expected(1).model.vocabulary);
    expect(tableBytes(now.model.table).equals(tableBytes(expected(1).model.table))).toBe(true);
    // it did train: the table is not the seeded starting one
    expect(tableBytes(now.model.table).equals(tableBytes(expected(0).model.table))).toBe(false);
  });

  it('reports each batch to onBatch', async () => {
    const seen: number[] = [];
    const r = await trainToolBenchDense(suite, {
      ...small,
      trainOn: ['G1_tool'],
      batchSize: 4,
      onBatch: ({ batch }) => seen.push(batch),
    });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen).toEqual([...seen.keys()]);
    expect(r.epochLosses).toHaveLength(1);
  });
});
