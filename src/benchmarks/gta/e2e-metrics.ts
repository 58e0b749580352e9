import { type PyJson, pyGet, pyJsonDumps, toPyJson } from '../../shared/index.js';
import { cosine, type GtaEmbedder, isCorrect, referenceKind, simScore, whitelistOf } from './answer-match.js';
import { gtaStepType } from './step-metrics.js';
import { type GtaCategory, type GtaCategoryF1, gtaToolF1 } from './tool-f1.js';

/**
 * GTA's end-to-end metrics (docs/gta.md, "Official scoring: end-to-end
 * metrics"): AnsAcc on the last predicted step, AnsAcc
 * w/ ImgGen (image-generation records scored by the similarity of their image tools' arguments),
 * tool-selection F1 per category and the tool_call / tool_call_error counts. Each record is scored
 * on its own ({@link scoreGtaE2eRecord}) so a run's JSONL holds per-sample numbers and the summary
 * ({@link summarizeGtaE2e}) is a sum over them.
 */

/** Tools whose arguments stand in for an image-generation answer (the code's set, Plot included). */
const GTA_IMG_TOOLS: ReadonlySet<string> = new Set([
  'DrawBox',
  'AddText',
  'Plot',
  'TextToImage',
  'ImageStylization',
]);

export interface GtaE2eItem {
  predictions: readonly PyJson[];
  /** Reference dialog after the user query. */
  golds: readonly PyJson[];
  /** The parsed `gt_answer`. */
  reference: PyJson;
}

/** One record's end-to-end score: JSON, and what the run report sums. */
export interface GtaE2eRecordScore {
  reference: 'objective' | 'subjective' | 'none';
  /** Names of every predicted step with tool_calls, in order (failed calls and duplicates included). */
  predictedTools: string[];
  /** Names of the gold tool calls, in order. */
  goldTools: string[];
  /** Objective records: whether the last step is a matching answer; else null. */
  answerCorrect: boolean | null;
  /** Truthy references: the AnsAcc contribution (0/1, or the similarity); null = left unscored (no embedder). */
  answerScore: number | null;
  /** Image-generation records: the ImgGen contribution; null = left unscored (no embedder). */
  imgGenScore: number | null;
  toolCall: number;
  toolCallError: number;
}

const functionOf = (m: PyJson) => {
  const calls = pyGet(m, 'tool_calls');
  return Array.isArray(calls) ? pyGet(calls[0], 'function') : undefined;
};
const nameOf = (m: PyJson) => {
  const name = pyGet(functionOf(m), 'name');
  return typeof name === 'string' ? name : '';
};
const hasCalls = (m: PyJson) => pyGet(m, 'tool_calls') !== undefined;

/** `bert_score(a, b)` as the clipped cosine of two sentence embeddings (the simscore model). */
async function argumentSimilarity(a: string, b: string, embedder: GtaEmbedder): Promise<number> {
  const [x, y] = await embedder.embed([a, b]);
  return Math.max(0, cosine(x!, y!));
}

/** Scores one record; without an embedder, subjective answers and needed ImgGen similarities stay null. */
export async function scoreGtaE2eRecord(
  item: GtaE2eItem,
  embedder?: GtaEmbedder,
): Promise<GtaE2eRecordScore> {
  const kind = referenceKind(item.reference);
  const reference = kind === 'objective' || kind === 'subjective' ? kind : 'none';
  const predictedTools = item.predictions.filter(hasCalls).map(nameOf);
  const goldTools = item.golds.filter(hasCalls).map(nameOf);
  const toolCallError = item.predictions.filter((s) => hasCalls(s) && pyGet(s, 'error') !== undefined).length;
  const score: GtaE2eRecordScore = {
    reference,
    predictedTools,
    goldTools,
    answerCorrect: null,
    answerScore: null,
    imgGenScore: null,
    toolCall: predictedTools.length,
    toolCallError,
  };
  if (reference !== 'none') {
    const last = item.predictions.at(-1);
    const content = last === undefined ? undefined : pyGet(last, 'content');
    const answered =
      last !== undefined && gtaStepType(last) === 'answer' && typeof content === 'string' && content !== '';
    if (reference === 'objective') {
      score.answerCorrect = answered && isCorrect(content as string, whitelistOf(item.reference));
      score.answerScore = score.answerCorrect ? 1 : 0;
    } else if (!answered) score.answerScore = 0;
    else if (embedder)
      score.answerScore = await simScore(content as string, item.reference as string[], embedder);
    return score;
  }
  // Image generation: the last successful call of each image tool against every gold image call
  const last = new Map<string, PyJson>();
  for (const s of item.predictions)
    if (hasCalls(s) && pyGet(s, 'error') === undefined && GTA_IMG_TOOLS.has(nameOf(s)))
      last.set(nameOf(s), pyGet(functionOf(s), 'arguments') ?? null);
  const goldCalls = item.golds.filter((s) => hasCalls(s) && GTA_IMG_TOOLS.has(nameOf(s)));
  // a gold image tool never called successfully makes the product 0, whatever the similarities
  if (goldCalls.some((c) => !last.has(nameOf(c)))) {
    score.imgGenScore = 0;
    return score;
  }
  if (goldCalls.length && !embedder) return score;
  let g = 1;
  for (const gold of goldCalls) {
    const goldArgs = pyJsonDumps(pyGet(functionOf(gold), 'arguments') ?? null);
    g *= await argumentSimilarity(goldArgs, pyJsonDumps(last.get(nameOf(gold))!), embedder!);
  }
  score.imgGenScore = g;
  return score;
}

export interface GtaE2eScores {
  /** 100 × mean answer score over records with a truthy reference (0 when there are none). */
  ansAcc: number;
  /** 100 × (answer scores + ImgGen scores) over all records. */
  ansAccImg: number;
  categoryF1: Record<GtaCategory, GtaCategoryF1>;
  toolCall: number;
  toolCallError: number;
  counts: { records: number; answerRecords: number; answerSum: number; imgGenSum: number };
  /** Records whose score needed the embeddings endpoint and had none (counted as 0). */
  unscoredSubjective: number;
  unscoredImgGen: number;
}

const callSteps = (names: readonly string[]) =>
  names.map((name) => toPyJson({ tool_calls: [{ function: { name } }] }));

/** Sums per-record scores into the run's metrics (Python's `n / d * 100`). */
export function summarizeGtaE2e(scores: readonly GtaE2eRecordScore[]): GtaE2eScores {
  const answerRecords = scores.filter((s) => s.reference !== 'none');
  const answerSum = answerRecords.reduce((t, s) => t + (s.answerScore ?? 0), 0);
  const imgGenSum = scores.reduce((t, s) => t + (s.reference === 'none' ? (s.imgGenScore ?? 0) : 0), 0);
  const pct = (n: number, d: number) => (d === 0 ? 0 : (n / d) * 100);
  return {
    ansAcc: pct(answerSum, answerRecords.length),
    ansAccImg: pct(answerSum + imgGenSum, scores.length),
    categoryF1: gtaToolF1(
      scores.map((s) => ({ predictions: callSteps(s.predictedTools), golds: callSteps(s.goldTools) })),
    ),
    toolCall: scores.reduce((t, s) => t + s.toolCall, 0),
    toolCallError: scores.reduce((t, s) => t + s.toolCallError, 0),
    counts: { records: scores.length, answerRecords: answerRecords.length, answerSum, imgGenSum },
    unscoredSubjective: answerRecords.filter((s) => s.answerScore === null).length,
    unscoredImgGen: scores.filter((s) => s.reference === 'none' && s.imgGenScore === null).length,
  };
}

/** Every record scored, then summed. */
export async function scoreGtaE2e(
  items: readonly GtaE2eItem[],
  embedder?: GtaEmbedder,
): Promise<GtaE2eScores> {
  const scores: GtaE2eRecordScore[] = [];
  for (const item of items) scores.push(await scoreGtaE2eRecord(item, embedder));
  return summarizeGtaE2e(scores);
}
