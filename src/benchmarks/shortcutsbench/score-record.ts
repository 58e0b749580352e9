import { jsonActionFields } from '../../agents/index.js';
import { actionClass, attachmentValue, LEGACY_EXTENSION_INPUT, SYSTEM_INPUT_TYPES } from './actions.js';
import { isJsonObject, type Json, type JsonObject } from './json-value.js';
import { judgeReferenceCorrected, judgeReferenceOfficial, type ReferenceOutcome } from './judge-reference.js';
import { actionParts, type Level, levelOf, shortcutLength } from './length.js';
import { judgeEqualCorrected, judgeEqualOfficial } from './python-values.js';
import type { ResultRecord } from './result-records.js';

export type ScoreMode = 'official' | 'corrected';

export interface Tally {
  num: number;
  den: number;
}
export interface ReferenceTally extends Tally {
  noPrediction: number;
  formatError: number;
  valueError: number;
}
/** One wrong API answer, for the candidate-list-size breakdown (docs/shortcutsbench.md §9.1). */
export interface WrongAnswer {
  /** The predicted id is not among `api_names` (official: a JSON error counts too). */
  hallucinated: boolean;
  /** `index(pred in api_names) / |api_names|` when the id is listed. */
  positionRatio: number | null;
  /** The reply was not JSON (corrected mode keeps these apart from hallucinations). */
  unparsed: boolean;
}
/** What one result record contributes in one mode. */
export interface ModeTallies {
  api: Tally;
  primitive: Tally;
  previousOutput: ReferenceTally;
  systemInput: Tally;
  systemInputByType: Record<string, Tally>;
  wrong: WrongAnswer[];
}
/** The score of one result record: both modes, plus what the breakdowns need. */
export interface ShortcutScore {
  url: string;
  /** LEN of the record's `aseqs` (docs/shortcutsbench.md §6.2: possibly truncated, as upstream). */
  length: number;
  level: Level;
  category: string | null;
  apiListSize: number;
  official: ModeTallies;
  corrected: ModeTallies;
}

/** Per-URL `significant_paras` of the check-intersection file (docs/shortcutsbench.md §4.5). */
export type SignificantParams = ReadonlyMap<string, Json>;

const ESSENTIAL = 'Essential parameter';

function emptyTallies(): ModeTallies {
  return {
    api: { num: 0, den: 0 },
    primitive: { num: 0, den: 0 },
    previousOutput: { num: 0, den: 0, noPrediction: 0, formatError: 0, valueError: 0 },
    systemInput: { num: 0, den: 0 },
    systemInputByType: {},
    wrong: [],
  };
}

/**
 * `sig[name][name] == "Essential parameter"` for the action at position `p` (docs/shortcutsbench.md §9.2).
 */
function isEssential(sigOfUrl: Json | undefined, p: number, name: string): boolean {
  if (!isJsonObject(sigOfUrl)) return false;
  const sig = sigOfUrl[String(p)];
  if (!isJsonObject(sig) || !Object.hasOwn(sig, name)) return false;
  const entry = sig[name];
  return isJsonObject(entry) && entry[name] === ESSENTIAL;
}

function scoreAction(
  mode: ScoreMode,
  t: ModeTallies,
  gold: { id: string; params: JsonObject },
  pred: { id: Json; params: JsonObject | null; unparsed: boolean },
  apiNames: readonly string[],
  essential: (name: string) => boolean,
): void {
  t.api.den++;
  if (pred.id !== gold.id) {
    const listed = typeof pred.id === 'string' ? apiNames.indexOf(pred.id) : -1;
    t.wrong.push({
      hallucinated: listed < 0 && !(mode === 'corrected' && pred.unparsed),
      positionRatio: listed < 0 ? null : listed / apiNames.length,
      unparsed: pred.unparsed,
    });
    return;
  }
  t.api.num++;
  const judgeEqual = mode === 'official' ? judgeEqualOfficial : judgeEqualCorrected;
  const judgeRef = mode === 'official' ? judgeReferenceOfficial : judgeReferenceCorrected;
  const predicted = (name: string): Json | undefined =>
    pred.params !== null && Object.hasOwn(pred.params, name) ? pred.params[name] : undefined;
  for (const [name, goldValue] of Object.entries(gold.params)) {
    const q = predicted(name);
    if (essential(name)) {
      t.primitive.den++;
      if (q !== undefined && judgeEqual(goldValue, q)) t.primitive.num++;
    }
    const type = attachmentValue(goldValue)?.Type;
    if (type === 'ActionOutput') {
      const r = t.previousOutput;
      r.den++;
      const outcome: ReferenceOutcome | 'no_prediction' =
        q === undefined ? 'no_prediction' : judgeRef(goldValue, q);
      if (outcome === 'correct') r.num++;
      else if (outcome === 'no_prediction') r.noPrediction++;
      else if (outcome === 'format_error') r.formatError++;
      else r.valueError++;
    }
    const systemType =
      typeof type === 'string' && (SYSTEM_INPUT_TYPES as readonly string[]).includes(type)
        ? type
        : mode === 'corrected' && type === LEGACY_EXTENSION_INPUT
          ? 'ExtensionInput'
          : undefined;
    if (systemType !== undefined) {
      t.systemInputByType[systemType] ??= { num: 0, den: 0 };
      const byType = t.systemInputByType[systemType];
      t.systemInput.den++;
      byType.den++;
      if (q !== undefined && judgeRef(goldValue, q) === 'correct') {
        t.systemInput.num++;
        byType.num++;
      }
    }
  }
}

/**
 * Scores one result record (docs/shortcutsbench.md §9): aligns `aseqs` with `bseqs` by position, skips FILTER
 * and IGNORE gold actions, and tallies every metric in both modes.
 */
export function scoreResultRecord(
  record: ResultRecord,
  significant: SignificantParams,
  categoryOf: (url: string) => string | undefined,
): ShortcutScore {
  const { length } = shortcutLength(record.aseqs);
  const official = emptyTallies();
  const corrected = emptyTallies();
  const sigOfUrl = significant.get(record.URL);
  const n = Math.min(record.aseqs.length, record.bseqs.length);
  for (let p = 0; p < n; p++) {
    const { id, params } = actionParts(record.aseqs[p]);
    if (id === undefined || actionClass(id) !== 'evaluated') continue;
    const b = record.bseqs[p]!;
    const unparsed = b.state === 'json_error';
    const fields = unparsed ? { id: null, params: null } : jsonActionFields(b.aseq);
    const rawId = !unparsed && isJsonObject(b.aseq) ? (b.aseq.WFWorkflowActionIdentifier ?? null) : null;
    const pred = { id: rawId, params: fields.params as JsonObject | null, unparsed };
    const essential = (name: string) => isEssential(sigOfUrl, p, name);
    for (const [mode, t] of [
      ['official', official],
      ['corrected', corrected],
    ] as const)
      scoreAction(mode, t, { id, params }, pred, record.api_names, essential);
  }
  return {
    url: record.URL,
    length,
    level: levelOf(length),
    category: categoryOf(record.URL) ?? null,
    apiListSize: record.api_names.length,
    official,
    corrected,
  };
}
