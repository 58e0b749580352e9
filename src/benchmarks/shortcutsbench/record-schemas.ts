import { z } from 'zod';
import type { ShortcutScore } from './score-record.js';
import type { ShortcutRun } from './teacher-forced.js';

/** What a ShortcutsBench record's `output` holds (`ShortcutRun`): the official result line and our trace. */
export const ShortcutRunSchema: z.ZodType<ShortcutRun> = z.object({
  resultLine: z.string(),
  modelCalls: z.number().int().min(0),
  usage: z.object({ inputTokens: z.number().min(0), outputTokens: z.number().min(0) }),
  endedEarly: z.string().nullable(),
  trace: z.array(
    z.object({
      position: z.number().int().min(0),
      state: z.enum(['generated_by_agent', 'json_error']),
      reply: z.string(),
    }),
  ),
});

const Tally = z.object({ num: z.number(), den: z.number() });
const ModeTallies = z.object({
  api: Tally,
  primitive: Tally,
  previousOutput: Tally.extend({ noPrediction: z.number(), formatError: z.number(), valueError: z.number() }),
  systemInput: Tally,
  systemInputByType: z.record(z.string(), Tally),
  wrong: z.array(
    z.object({ hallucinated: z.boolean(), positionRatio: z.number().nullable(), unparsed: z.boolean() }),
  ),
});

/** What a ShortcutsBench record's `score` holds (`ShortcutScore`): both modes' tallies. */
export const ShortcutScoreSchema: z.ZodType<ShortcutScore> = z.object({
  url: z.string(),
  length: z.number().int().min(0),
  level: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
  category: z.string().nullable(),
  apiListSize: z.number().int().min(0),
  official: ModeTallies,
  corrected: ModeTallies,
});
