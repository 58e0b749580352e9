import { z } from 'zod';
import type { SampleEntry } from './run-index.js';
import { SAMPLE_ERROR_KINDS } from './sample-facts.js';

/** The sample list's query: the filters of the viewer's list, as URL query parameters. */
export const SampleQuerySchema = z.object({
  /** `passed` / `failed`: by the task's pass/fail (records without one are left out). */
  outcome: z.enum(['all', 'passed', 'failed']).default('all'),
  /** `none`: records with no trouble; `some`: with any; a kind: with that one. */
  error: z.enum(['any', 'none', 'some', ...SAMPLE_ERROR_KINDS]).default('any'),
  /** The metric `min`/`max` bound (inclusive); the run's first metric when absent. */
  metric: z.string().min(1).optional(),
  min: z.coerce.number().optional(),
  max: z.coerce.number().optional(),
  category: z.string().min(1).optional(),
  /** Part of the sample id (case-insensitive). */
  q: z.string().optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
export type SampleQuery = z.infer<typeof SampleQuerySchema>;

export interface SamplePage {
  /** Records matching the filters (all pages). */
  total: number;
  offset: number;
  limit: number;
  items: SampleEntry[];
}

function sampleMatches(e: SampleEntry, q: SampleQuery, metric: string | undefined): boolean {
  if (q.outcome === 'passed' && e.passed !== true) return false;
  if (q.outcome === 'failed' && e.passed !== false) return false;
  if (q.error === 'none' && e.errorKinds.length) return false;
  if (q.error === 'some' && !e.errorKinds.length) return false;
  if (q.error !== 'any' && q.error !== 'none' && q.error !== 'some' && !e.errorKinds.includes(q.error))
    return false;
  if (q.min !== undefined || q.max !== undefined) {
    const v = metric === undefined ? undefined : e.metrics[metric];
    if (v === undefined) return false;
    if (q.min !== undefined && v < q.min) return false;
    if (q.max !== undefined && v > q.max) return false;
  }
  if (q.category !== undefined && e.category !== q.category) return false;
  if (q.q && !e.id.toLowerCase().includes(q.q.toLowerCase())) return false;
  return true;
}

/** One page of the records matching the query, in file order. */
export function filterSamples(
  samples: readonly SampleEntry[],
  q: SampleQuery,
  metricNames: readonly string[],
): SamplePage {
  const metric = q.metric ?? metricNames[0];
  const items: SampleEntry[] = [];
  let total = 0;
  for (const e of samples) {
    if (!sampleMatches(e, q, metric)) continue;
    if (total >= q.offset && items.length < q.limit) items.push(e);
    total++;
  }
  return { total, offset: q.offset, limit: q.limit, items };
}
