import { z } from 'zod';
import type { GtaOutput, GtaScore } from './register.js';

/** What a GTA record's `output` holds (`GtaOutput`): the predicted steps as Python JSON text. */
export const GtaOutputSchema: z.ZodType<GtaOutput> = z.object({
  mode: z.enum(['step', 'e2e']),
  predictionJson: z.string(),
  answer: z.string().nullable().optional(),
  stopReason: z.string().optional(),
  turns: z.number().int().min(0).optional(),
  artefacts: z.string().optional(),
});

const count = z.number().min(0);

/**
 * What a GTA record's `score` holds (`GtaScore`): the step counts (step mode) or the end-to-end
 * record score. Fields that scores written by earlier versions lack are optional (as the report's
 * GtaSampleScoreSchema reads them).
 */
export const GtaScoreSchema = z.object({
  step: z
    .object({
      inst: count,
      tool: count,
      arg: count,
      summ: count,
      totalTool: count,
      totalAnswer: count,
      toolCall: count,
      toolCallError: count,
    })
    .nullable(),
  e2e: z
    .object({
      reference: z.enum(['objective', 'subjective', 'none']).optional(),
      predictedTools: z.array(z.string()),
      goldTools: z.array(z.string()),
      answerCorrect: z.boolean().nullable(),
      answerScore: z.number().nullable().optional(),
      imgGenScore: z.number().nullable().optional(),
      toolCall: count.optional(),
      toolCallError: count.optional(),
    })
    .nullable(),
  unscoredSubjective: count.optional(),
}) as unknown as z.ZodType<GtaScore>;
