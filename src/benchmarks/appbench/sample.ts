import { join } from 'node:path';
import {
  APPBENCH_CATEGORIES,
  type AppBenchCategory,
  type AppBenchRecord,
  readAppBenchFile,
} from './record.js';

/** One AppBench item: its category, position in the category file and the record. */
export interface AppBenchSample {
  /** Stable id: `<category>-<index>` (0-based index in the category file), e.g. `mm-10`. */
  id: string;
  category: AppBenchCategory;
  index: number;
  record: AppBenchRecord;
}

/** What an agent produced for a sample: the raw reply in AppBench line format (scored as the official code does). */
export interface AppBenchPrediction {
  id: string;
  /** Raw model reply; null when generation failed (scored as an empty prediction, dropped by the official scorer). */
  reply: string | null;
  error?: string;
}

export interface LoadSamplesOptions {
  categories?: readonly AppBenchCategory[];
  /** Per category, the first N records. */
  limit?: number;
  /** File name pattern: `test_{cat}.json` (official) or `dev_{cat}.json` (shared dev subset). */
  prefix?: 'test' | 'dev';
}

/**
 * Loads AppBench samples from a folder holding `test_{ss,sm,ms,mm}.json` (official) or
 * `dev_*.json`. Missing categories are skipped only when they are not asked for explicitly.
 */
export function loadAppBenchSamples(dir: string, opts: LoadSamplesOptions = {}): AppBenchSample[] {
  const categories = opts.categories ?? APPBENCH_CATEGORIES;
  const out: AppBenchSample[] = [];
  for (const category of categories) {
    const file = join(dir, `${opts.prefix ?? 'test'}_${category}.json`);
    const records = readAppBenchFile(file);
    const n = opts.limit === undefined ? records.length : Math.min(opts.limit, records.length);
    for (let index = 0; index < n; index++)
      out.push({ id: `${category}-${index}`, category, index, record: records[index]! });
  }
  return out;
}
