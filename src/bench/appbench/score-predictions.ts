import { z } from 'zod';
import { InputInvalidError, parseWith, readTextFile } from '../../shared/index.js';
import type { AppBenchPrediction } from './sample.js';

/**
 * One line of a predictions file: `{id, reply, error?}`; other fields are allowed, so a
 * harness results file (same `id`/`reply`, or `output.reply`) can be re-scored as it is.
 */
export const AppBenchPredictionLineSchema = z.looseObject({
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

/** Parses predictions JSONL; a bad line is an INPUT_INVALID error naming the file and the line. */
export function parseAppBenchPredictions(text: string, file: string): PredictionLine[] {
  const out: PredictionLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (!raw) continue;
    const record = `line ${i + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      throw new InputInvalidError({ file, record }, `not valid JSON (${(error as Error).message})`, {
        cause: error,
      });
    }
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
  return out;
}

export function readAppBenchPredictions(path: string): PredictionLine[] {
  return parseAppBenchPredictions(readTextFile(path), path);
}
