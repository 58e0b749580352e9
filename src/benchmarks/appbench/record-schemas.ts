import { z } from 'zod';
import { AppBenchSampleScoreSchema } from './score-appbench.js';
import type { AppBenchOutput } from './task.js';

/**
 * What an AppBench record's `output` holds (`AppBenchOutput`): the results reader checks records
 * against it. The agent summary and the output trace are the solver's own and checked loosely.
 */
export const AppBenchOutputSchema: z.ZodType<AppBenchOutput> = z.object({
  reply: z.string(),
  rawReply: z.string().optional(),
  attempts: z.number().int().min(0).optional(),
  faults: z.array(z.string()).optional(),
  selectedApps: z.array(z.string()).optional(),
  agent: z.looseObject({ stopReason: z.string(), calls: z.array(z.unknown()) }).optional(),
  trace: z.array(z.looseObject({ type: z.string() })).optional(),
}) as z.ZodType<AppBenchOutput>;

export { AppBenchSampleScoreSchema as AppBenchScoreSchema };
