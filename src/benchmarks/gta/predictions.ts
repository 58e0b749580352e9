import { existsSync } from 'node:fs';
import {
  InputInvalidError,
  isPyObject,
  NotFoundError,
  type PyJson,
  type PyObject,
  parsePyJson,
  pyGet,
  pyJsonDumps,
  readTextFile,
  toPyJson,
} from '../../shared/index.js';
import type { GtaPromptMessage } from './step-prompt.js';

/**
 * Step-mode prediction files in OpenCompass's layout (AgentInferencerOutputHandler's multi-round
 * results, as `predictions/<model>/gta_bench.json`): an object keyed by sample index, each value
 * `{"gold": [...], "prediction": [...], "origin_prompt": [...]}` with one entry per gold assistant
 * message. The evaluator reads `prediction` and `gold`; we write the prompts as sent.
 */

export interface GtaStepPredictionRecord {
  key: string;
  predictions: PyJson[];
  golds: PyJson[];
  prompts?: GtaPromptMessage[][];
}

/** Writes the file text (Python `json.dumps` formatting, keys in record order). */
export function formatGtaStepPredictions(records: readonly GtaStepPredictionRecord[]): string {
  const out: PyObject = { kind: 'object', entries: new Map() };
  for (const r of records)
    out.entries.set(
      r.key,
      toPyJsonRecord([
        ['gold', r.golds],
        ['prediction', r.predictions],
        ['origin_prompt', (r.prompts ?? []).map((p) => toPyJson(p))],
      ]),
    );
  return `${pyJsonDumps(out)}\n`;
}

/**
 * End-to-end prediction files: per sample `{"gold": [messages], "prediction": [steps]}`, one list
 * per user turn (GTA has one), as the evaluator reads `preds[0]` and `gts[0]`.
 */
export function formatGtaE2ePredictions(
  records: ReadonlyArray<{ key: string; predictions: PyJson[]; golds: PyJson[] }>,
): string {
  const out: PyObject = { kind: 'object', entries: new Map() };
  for (const r of records)
    out.entries.set(
      r.key,
      toPyJsonRecord([
        ['gold', [r.golds]],
        ['prediction', [r.predictions]],
      ]),
    );
  return `${pyJsonDumps(out)}\n`;
}

function toPyJsonRecord(entries: ReadonlyArray<readonly [string, PyJson]>): PyObject {
  return { kind: 'object', entries: new Map(entries) };
}

/** Reads a step-mode prediction file; errors name the file, the sample and the field. */
export function readGtaStepPredictions(file: string): GtaStepPredictionRecord[] {
  if (!existsSync(file)) throw new NotFoundError('file', file);
  const parsed = parsePyJson(readTextFile(file), file);
  if (!isPyObject(parsed)) throw new InputInvalidError({ file }, 'expected an object keyed by sample index');
  return [...parsed.entries].map(([key, value]) => {
    const predictions = pyGet(value, 'prediction');
    const golds = pyGet(value, 'gold');
    if (!Array.isArray(predictions))
      throw new InputInvalidError(
        { file, record: key, field: 'prediction' },
        'expected a list of predicted steps',
      );
    if (!Array.isArray(golds))
      throw new InputInvalidError({ file, record: key, field: 'gold' }, 'expected a list of gold messages');
    return { key, predictions, golds };
  });
}
