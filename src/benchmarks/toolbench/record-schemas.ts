import { z } from 'zod';
import type { ToolBenchQueryScore, ToolBenchRetrievalOutput } from './retrieval-task.js';

/** What a ToolBench retrieval record's `output` holds: the top of the ranking and the relevant scores. */
export const ToolBenchRetrievalOutputSchema: z.ZodType<ToolBenchRetrievalOutput> = z.object({
  top: z.array(z.number().int().min(0)),
  scores: z.array(z.number()),
  tieCounts: z.array(z.number().int().min(0)),
  relevantScores: z.array(z.number()),
  apis: z.array(z.string()),
});

/** What its `score` holds: NDCG@1/3/5 and Recall@5/10 of the query, fractions in [0, 1]. */
export const ToolBenchQueryScoreSchema: z.ZodType<ToolBenchQueryScore> = z.object({
  id: z.string(),
  group: z.string(),
  ndcg1: z.number(),
  ndcg3: z.number(),
  ndcg5: z.number(),
  recall5: z.number(),
  recall10: z.number(),
});
