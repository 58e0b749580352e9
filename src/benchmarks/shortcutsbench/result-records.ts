import { InputInvalidError } from '../../shared/index.js';
import { isJsonObject, type Json, type JsonObject, parseJson } from './json-value.js';

/** One per-shortcut result record of the official runner (docs/shortcutsbench.md §8.1), numbers lossless. */
export interface ResultRecord {
  URL: string;
  api_names: string[];
  /** Gold actions, possibly truncated when generation aborted. */
  aseqs: Json[];
  bseqs: BSeq[];
  /** The record as read (every field, for a faithful rewrite). */
  raw: JsonObject;
}

export type BSeqState = 'copy_from_true' | 'generated_by_agent' | 'json_error';
export interface BSeq {
  state: BSeqState;
  aseq: Json;
}

const STATES: readonly string[] = ['copy_from_true', 'generated_by_agent', 'json_error'];

/** Checks one parsed record; errors name the file, the record and the field. */
function toResultRecord(v: Json, file: string, record: string): ResultRecord {
  const bad = (field: string | undefined, problem: string) =>
    new InputInvalidError({ file, record, ...(field ? { field } : {}) }, problem);
  if (!isJsonObject(v)) throw bad(undefined, 'expected a result record object');
  if (typeof v.URL !== 'string') throw bad('URL', 'expected the shortcut URL (a string)');
  const names = v.api_names;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string'))
    throw bad('api_names', 'expected the candidate API ids (an array of strings)');
  if (!Array.isArray(v.aseqs)) throw bad('aseqs', 'expected the gold actions (an array)');
  if (!Array.isArray(v.bseqs)) throw bad('bseqs', 'expected one entry per gold action (an array)');
  const bseqs = v.bseqs.map((b, i): BSeq => {
    if (!isJsonObject(b) || typeof b.state !== 'string' || !STATES.includes(b.state))
      throw bad(`bseqs[${i}].state`, `expected one of ${STATES.join(', ')}`);
    return { state: b.state as BSeqState, aseq: b.aseq ?? null };
  });
  return { URL: v.URL, api_names: names as string[], aseqs: v.aseqs, bseqs, raw: v };
}

/** Result records from JSONL (one record per line) or a JSON array. */
export function parseResultRecords(text: string, file: string): ResultRecord[] {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let all: Json;
    try {
      all = parseJson(text);
    } catch (e) {
      throw new InputInvalidError({ file }, `not valid JSON (${(e as Error).message})`);
    }
    return (all as Json[]).map((r, i) => toResultRecord(r, file, `record ${i}`));
  }
  const out: ResultRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let v: Json;
    try {
      v = parseJson(line);
    } catch (e) {
      throw new InputInvalidError(
        { file, record: `line ${i + 1}` },
        `not valid JSON (${(e as Error).message})`,
      );
    }
    out.push(toResultRecord(v, file, `line ${i + 1}`));
  });
  return out;
}
