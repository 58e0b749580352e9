import { z } from 'zod';

/**
 * A plan is a DAG of API calls. Each argument is one of the four kinds of value the
 * benchmarks score: a literal, an output of an earlier step, a question to the user, or a
 * system input.
 */

export const SYSTEM_INPUTS = ['clipboard', 'current_date', 'shared_input', 'device_details'] as const;
const SystemInputSchema = z.enum(SYSTEM_INPUTS);
export type SystemInput = z.infer<typeof SystemInputSchema>;

const LiteralValueSchema = z.object({
  kind: z.literal('literal'),
  value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
});
const RefValueSchema = z.object({
  kind: z.literal('ref'),
  /** Id of the producing step; `null` when the text named an output no earlier step returns. */
  step: z.string().nullable(),
  output: z.string().min(1),
});
const AskValueSchema = z.object({ kind: z.literal('ask'), prompt: z.string().optional() });
const SystemValueSchema = z.object({ kind: z.literal('system'), source: SystemInputSchema });

const ArgValueSchema = z.discriminatedUnion('kind', [
  LiteralValueSchema,
  RefValueSchema,
  AskValueSchema,
  SystemValueSchema,
]);
export type ArgValue = z.infer<typeof ArgValueSchema>;
export type LiteralValue = z.infer<typeof LiteralValueSchema>;

export const StepSchema = z.object({
  id: z.string().min(1),
  app: z.string().min(1),
  api: z.string().min(1),
  /** Argument name → value, in the order written. */
  args: z.record(z.string(), ArgValueSchema),
  /** Names under which later steps may reference this step's results. */
  outputs: z.array(z.string()),
});
export type Step = z.infer<typeof StepSchema>;

export const PlanSchema = z.object({
  steps: z.array(StepSchema),
});
export type Plan = z.infer<typeof PlanSchema>;

export const literal = (value: LiteralValue['value']): ArgValue => ({ kind: 'literal', value });
export const ref = (step: string | null, output: string): ArgValue => ({ kind: 'ref', step, output });
export const ask = (prompt?: string): ArgValue => (prompt ? { kind: 'ask', prompt } : { kind: 'ask' });
export const system = (source: SystemInput): ArgValue => ({ kind: 'system', source });

/** Steps this step depends on (through references), deduplicated, in argument order. */
export function dependenciesOf(step: Step): string[] {
  const deps: string[] = [];
  for (const v of Object.values(step.args))
    if (v.kind === 'ref' && v.step && !deps.includes(v.step)) deps.push(v.step);
  return deps;
}
