import { z } from 'zod';
import { checkJsonDepth, InputInvalidError, parseWith, readTextFile } from '../../shared/index.js';
import type { AppBenchPrediction } from './sample.js';

/**
 * One line of a predictions file: `{id, reply, error?}`; other fields are allowed, so a
 * harness results file (sample lines with `id`, `output.reply` and `error`; header lines are
 * skipped) can be re-scored as it is.
 */
const AppBenchPredictionLineSchema = z.looseObject({
  type: z.string().optional(),
  id: z.string().min(1),
  reply: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
  output: z.looseObject({ reply: z.string().nullable().optional() }).nullable().optional(),
});

export interface PredictionLine {
  /** 1-based line number in the file. */
  line: number;
  prediction: AppBenchPrediction;
}

export interface PredictionsFile {
  lines: PredictionLine[];
  /** The last line had no newline and was not valid JSON (a killed run): it is ignored. */
  truncatedTail: boolean;
}

/** Parses predictions JSONL; a bad line is an INPUT_INVALID error naming the file and the line. */
export function parseAppBenchPredictions(text: string, file: string): PredictionsFile {
  const out: PredictionLine[] = [];
  const lines = text.split('\n');
  let truncatedTail = false;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (!raw) continue;
    const record = `line ${i + 1}`;
    checkJsonDepth(raw, { file, record });
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      if (i === lines.length - 1) {
        truncatedTail = true;
        break;
      }
      throw new InputInvalidError({ file, record }, `not valid JSON (${(error as Error).message})`, {
        cause: error,
      });
    }
    // Harness results files: only sample lines carry predictions.
    if (json && typeof json === 'object' && 'type' in json && (json as { type: unknown }).type !== 'sample')
      continue;
    const v = parseWith(AppBenchPredictionLineSchema, json, { file, record });
    const reply = v.reply !== undefined ? v.reply : v.output?.reply;
    if (reply === undefined && !v.error)
      throw new InputInvalidError(
        { file, record, field: 'reply' },
        'needs "reply" (a string, or null with "error")',
      );
    const prediction: AppBenchPrediction = { id: v.id, reply: reply ?? null };
    if (v.error) prediction.error = v.error;
    out.push({ line: i + 1, prediction });
  }
  return { lines: out, truncatedTail };
}

export function readAppBenchPredictions(path: string): PredictionsFile {
  return parseAppBenchPredictions(readTextFile(path), path);
}
