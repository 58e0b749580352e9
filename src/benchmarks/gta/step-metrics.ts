import { type PyJson, pyGet, sumCounts } from '../../shared/index.js';
import { type GtaEmbedder, isCorrect, referenceKind, simScore, whitelistOf } from './answer-match.js';
import { pyEquals } from './py-value.js';

/**
 * GTA's step-by-step metrics exactly as the official evaluator computes them (docs/gta.md,
 * "Official scoring: step-by-step metrics", with its quirks): InstAcc over gold tool steps plus records with a truthy reference,
 * ToolAcc/ArgAcc over gold tool steps, SummAcc over records with a truthy reference.
 */

export type GtaStepType = 'tool' | 'answer' | 'tool_return';

/** `get_response_type`: a `tool_calls` key makes a tool step, else an assistant message is an answer. */
export function gtaStepType(m: PyJson): GtaStepType {
  if (
    typeof m === 'object' &&
    m !== null &&
    !Array.isArray(m) &&
    m.kind === 'object' &&
    m.entries.has('tool_calls')
  )
    return 'tool';
  return pyGet(m, 'role') === 'assistant' ? 'answer' : 'tool_return';
}

/** The first call's `function` object (only the first is ever read, gold or predicted). */
function functionOf(m: PyJson): PyJson | undefined {
  const calls = pyGet(m, 'tool_calls');
  return Array.isArray(calls) ? pyGet(calls[0], 'function') : undefined;
}

export interface GtaStepItem {
  /** Predicted steps, in gold order. */
  predictions: readonly PyJson[];
  /** Gold assistant messages. */
  golds: readonly PyJson[];
  /** The parsed `gt_answer`. */
  reference: PyJson;
}

export interface GtaStepCounts {
  inst: number;
  tool: number;
  arg: number;
  summ: number;
  totalTool: number;
  totalAnswer: number;
  toolCall: number;
  toolCallError: number;
}

export interface GtaStepScores {
  /** Percentages; 0 when their denominator is 0 (the official code divides by zero there). */
  instAcc: number;
  toolAcc: number;
  argAcc: number;
  summAcc: number;
  toolCall: number;
  toolCallError: number;
  counts: GtaStepCounts;
  /** Subjective answer steps left at 0 because no embedder was given. */
  unscoredSubjective: number;
}

const pct = (n: number, d: number) => (d === 0 ? 0 : (n / d) * 100); // Python's `n / d * 100`

/** Scores every record; pairs are zipped as Python's `zip` does (the shorter list wins). */
export async function scoreGtaSteps(
  items: readonly GtaStepItem[],
  embedder?: GtaEmbedder,
): Promise<GtaStepScores> {
  const c = zeroGtaStepCounts();
  let unscoredSubjective = 0;
  for (const item of items) {
    const kind = referenceKind(item.reference);
    if (kind !== 'none') c.totalAnswer++;
    const n = Math.min(item.predictions.length, item.golds.length);
    for (let k = 0; k < n; k++) {
      const pred = item.predictions[k]!;
      const gold = item.golds[k]!;
      const pt = gtaStepType(pred);
      const gt = gtaStepType(gold);
      const hasError = pyGet(pred, 'error') !== undefined;
      if (pt === gt && !hasError) c.inst++;
      if (gt === 'tool') c.totalTool++;
      if (pt === 'tool') {
        c.toolCall++;
        if (hasError) c.toolCallError++;
      }
      if (pt === 'tool' && gt === 'tool') {
        const pf = functionOf(pred);
        const gf = functionOf(gold);
        if (pyGet(pf, 'name') === pyGet(gf, 'name')) {
          c.tool++;
          if (pyEquals(pyGet(pf, 'arguments') ?? null, pyGet(gf, 'arguments') ?? null)) c.arg++;
        }
      } else if (pt === 'answer' && gt === 'answer') {
        const content = pyGet(pred, 'content');
        const text = typeof content === 'string' ? content : '';
        if (kind === 'objective') c.summ += isCorrect(text, whitelistOf(item.reference)) ? 1 : 0;
        else if (kind === 'subjective') {
          // without embeddings the step scores 0 and is counted, so reports can say SummAcc is a lower bound
          if (embedder) c.summ += await simScore(text, item.reference as string[], embedder);
          else unscoredSubjective++;
        }
      }
    }
  }
  return {
    ...gtaStepPercentages(c),
    toolCall: c.toolCall,
    toolCallError: c.toolCallError,
    counts: c,
    unscoredSubjective,
  };
}

const zeroGtaStepCounts = (): GtaStepCounts => ({
  inst: 0,
  tool: 0,
  arg: 0,
  summ: 0,
  totalTool: 0,
  totalAnswer: 0,
  toolCall: 0,
  toolCallError: 0,
});
const GTA_STEP_COUNT_KEYS = Object.keys(zeroGtaStepCounts()) as Array<keyof GtaStepCounts>;

/** Counts of several records summed: the pooled counts equal scoring all records at once. */
export function sumGtaStepCounts(counts: readonly GtaStepCounts[]): GtaStepCounts {
  return sumCounts(counts, GTA_STEP_COUNT_KEYS);
}

/** InstAcc, ToolAcc, ArgAcc and SummAcc (×100) from step counts, with the official denominators. */
export function gtaStepPercentages(
  c: GtaStepCounts,
): Pick<GtaStepScores, 'instAcc' | 'toolAcc' | 'argAcc' | 'summAcc'> {
  return {
    instAcc: pct(c.inst, c.totalTool + c.totalAnswer),
    toolAcc: pct(c.tool, c.totalTool),
    argAcc: pct(c.arg, c.totalTool),
    summAcc: pct(c.summ, c.totalAnswer),
  };
}
