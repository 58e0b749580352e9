import { ZERO_USAGE } from '../../models/index.js';
import { Bm25Index } from '../../retrieval/index.js';
import { actionClass } from './actions.js';
import { dumpsPythonJson, type Json, type JsonObject, LosslessNumber } from './json-value.js';
import { NO_DESCRIPTION } from './prompts.js';
import type { ShortcutStep, ShortcutStepper, ShortcutsApis } from './teacher-forced.js';

/**
 * The no-model baseline: BM25 over the candidate descriptions against the query picks the API
 * (the best-ranked one the gold history has not used yet, so a multi-step shortcut moves on);
 * parameters follow simple rules (see `baselineParameters`). It answers through the same loop,
 * prompts aside, so its result records are the official ones.
 */

const NOT_PARAMETERS = new Set([
  'ShowWhenRun',
  'OpenWhenRun',
  'AppIntentDescriptor',
  'UUID',
  'CustomOutputName',
]);
const attachment = (value: JsonObject): JsonObject => ({
  Value: value,
  WFSerializationType: 'WFTextTokenAttachment',
});
const ASK = attachment({ Type: 'Ask' });

/** The most recent gold action in the history with an output (UUID and name), as a reference. */
function previousOutput(history: readonly JsonObject[]): JsonObject | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const p = history[i]!.WFWorkflowActionParameters as JsonObject;
    if (typeof p.UUID === 'string' && typeof p.OutputName === 'string')
      return attachment({ OutputUUID: p.UUID, Type: 'ActionOutput', OutputName: p.OutputName });
  }
  return undefined;
}

/** A declared default (`Enum = "GET"`, `Bool = True`, `Float = 0.5`) as the JSON value it stands for. */
function defaultValue(text: string): Json | undefined {
  const t = text.trim();
  if (t === 'True') return true;
  if (t === 'False') return false;
  if (/^-?\d+(\.\d+)?$/.test(t)) return new LosslessNumber(t);
  const quoted = /^"(.*)"$/.exec(t);
  return quoted ? quoted[1]! : undefined;
}

/**
 * Parameter rules: a declared default is used as is; an object-typed parameter (`…(Object)`)
 * without one takes the previous action's output; a `String` without a default is asked of the
 * user (`Ask`), since the query rarely spells it; anything else is left out.
 */
export function baselineParameters(
  types: Readonly<Record<string, string>>,
  history: readonly JsonObject[],
): JsonObject {
  const out: JsonObject = {};
  const previous = previousOutput(history);
  for (const [name, typeText] of Object.entries(types)) {
    if (name.startsWith('ThisIsReturnValue:') || NOT_PARAMETERS.has(name)) continue;
    const eq = typeText.indexOf('=');
    const type = (eq < 0 ? typeText : typeText.slice(0, eq)).trim();
    const fallback = eq < 0 ? undefined : defaultValue(typeText.slice(eq + 1));
    if (fallback !== undefined) out[name] = fallback;
    else if (type.endsWith('(Object)')) out[name] = previous ?? ASK;
    else if (type === 'String') out[name] = ASK;
  }
  return out;
}

/** The API the baseline picks for one step (ties keep the candidates' sorted order). */
function baselineApi(step: ShortcutStep, apis: ShortcutsApis): string {
  const ids = step.candidates.promptOrder;
  const index = new Bm25Index(ids.map((id) => apis.info.get(id) ?? NO_DESCRIPTION));
  const scores = index.scoreAllSync(step.query);
  const ranked = ids
    .map((id, i) => ({ id, score: scores[i]!, i }))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  const used = new Set(
    step.history
      .map((h) => h.WFWorkflowActionIdentifier)
      .filter((id): id is string => typeof id === 'string' && actionClass(id) === 'evaluated'),
  );
  return (ranked.find((r) => !used.has(r.id)) ?? ranked[0]!).id;
}

export function baselineStepper(apis: ShortcutsApis): ShortcutStepper {
  return async (step) => {
    const id = baselineApi(step, apis);
    const action: JsonObject = {
      Thought: 'BM25 over the candidate descriptions; rule-based parameters',
      WFWorkflowActionIdentifier: id,
      WFWorkflowActionParameters: baselineParameters(apis.paraTypes[id] ?? {}, step.history),
    };
    return { text: dumpsPythonJson(action), usage: ZERO_USAGE };
  };
}
