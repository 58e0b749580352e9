import { describe, expect, it } from 'vitest';
import { appBenchCountRows } from './score-appbench.js';
import { CORRECTED_COUNT_KEYS, type CorrectedCounts } from './score-corrected.js';
import { OFFICIAL_COUNT_KEYS, type OfficialCounts } from './score-official.js';

/** A record whose i-th key holds i + 1: its row must read 1, 2, 3, … */
const numbered = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((k, i) => [k, i + 1])) as Record<K, number>;

describe('AppBench count rows', () => {
  it('read the official counts in the order of OFFICIAL_COUNT_KEYS', () => {
    const row = appBenchCountRows.officialRow(
      numbered(OFFICIAL_COUNT_KEYS) as OfficialCounts,
      new Float64Array(OFFICIAL_COUNT_KEYS.length),
    );
    expect([...row]).toEqual(OFFICIAL_COUNT_KEYS.map((_, i) => i + 1));
  });

  it('read the corrected counts in the order of CORRECTED_COUNT_KEYS', () => {
    const row = appBenchCountRows.correctedRow(
      numbered(CORRECTED_COUNT_KEYS) as CorrectedCounts,
      new Float64Array(CORRECTED_COUNT_KEYS.length),
    );
    expect([...row]).toEqual(CORRECTED_COUNT_KEYS.map((_, i) => i + 1));
  });
});
