import { ApiaryError } from '../../shared/index.js';
import { CONDITIONAL_ID, MENU_ID } from './actions.js';
import { cloneJson, isJsonObject, type Json, type JsonObject, LosslessNumber } from './json-value.js';
import { actionParts } from './length.js';
import { pyEquals, pyStr } from './python-values.js';

/**
 * How a gold action is shown in the history (docs/shortcutsbench.md §8.3, §8.4). Every function here works on
 * a deep copy: the gold shortcut is never mutated.
 */

const APP_NOISE = ['ShowWhenRun', 'OpenWhenRun', 'AppIntentDescriptor'];
const DROPPED_AGGRANDIZEMENTS = new Set([
  'WFCoercionVariableAggrandizement',
  'WFDateFormatVariableAggrandizement',
  'WFUnitVariableAggrandizement',
]);
const OBJECT_REPLACEMENT = '\uFFFC';
// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal upstream placeholder
const PLACEHOLDER = '${Value1}';
const RETURN_VALUE_PREFIX = 'ThisIsReturnValue:';

/** API id → default output name, from the `ThisIsReturnValue:<Name>` keys of all_api2paraname2paratype. */
export function defaultOutputNames(paraTypes: Record<string, Record<string, unknown>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [api, params] of Object.entries(paraTypes))
    for (const key of Object.keys(params))
      if (key.startsWith(RETURN_VALUE_PREFIX)) {
        out.set(api, key.slice(RETURN_VALUE_PREFIX.length));
        break;
      }
  return out;
}

/**
 * `identifier2return_value` of docs/shortcutsbench.md §8.3 for one shortcut: UUID → CustomOutputName or the
 * API's default output name; set/append-variable without UUID: variable name → the UUID its input refers to.
 * Only actions whose API is a key of all_api2paraname2paratype (`knownApis`) contribute.
 */
export function returnValueNames(
  actions: readonly Json[],
  knownApis: ReadonlySet<string>,
  defaults: ReadonlyMap<string, string>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of actions) {
    const { id, params } = actionParts(a);
    if (id === undefined || !knownApis.has(id)) continue;
    const uuid = params.UUID;
    if (typeof uuid === 'string') {
      const custom = params.CustomOutputName;
      const name = typeof custom === 'string' ? custom : defaults.get(id);
      if (name !== undefined) out.set(uuid, name);
    } else if (id === 'is.workflow.actions.setvariable' || id === 'is.workflow.actions.appendvariable') {
      const variable = params.WFVariableName;
      if (typeof variable !== 'string') continue;
      const input = params.WFInput;
      const ref = isJsonObject(input) && isJsonObject(input.Value) ? input.Value.OutputUUID : undefined;
      out.set(variable, typeof ref === 'string' ? ref : variable);
    }
  }
  return out;
}

/** Steps 2–4 of docs/shortcutsbench.md §8.3 at every depth (the value is already a private copy). */
function cleanInPlace(v: Json): void {
  if (Array.isArray(v)) {
    for (const x of v) cleanInPlace(x);
    return;
  }
  if (!isJsonObject(v)) return;
  delete v.WFSerializationType;
  for (const x of Object.values(v)) cleanInPlace(x);
  const aggs = v.Aggrandizements;
  if (Array.isArray(aggs)) {
    const kept = aggs.filter(
      (g) => !(isJsonObject(g) && typeof g.Type === 'string' && DROPPED_AGGRANDIZEMENTS.has(g.Type)),
    );
    if (kept.length) v.Aggrandizements = kept;
    else delete v.Aggrandizements;
  }
  if (typeof v.string === 'string' && isJsonObject(v.attachmentsByRange)) {
    // upstream bug kept for prompt fidelity: the placeholder counter never advances
    v.string = v.string.replaceAll(OBJECT_REPLACEMENT, PLACEHOLDER);
    const ranges = Object.entries(v.attachmentsByRange);
    const start = (key: string) => {
      const m = /-?\d+/.exec(key);
      return m ? Number(m[0]) : Number.POSITIVE_INFINITY;
    };
    const sorted = ranges
      .map((r, i) => ({ r, i }))
      .sort((a, b) => start(a.r[0]) - start(b.r[0]) || a.i - b.i);
    const renamed: JsonObject = {};
    sorted.forEach(({ r }, k) => {
      renamed[`Value${k + 1}`] = r[1];
    });
    v.attachmentsByRange = renamed;
  }
}

/**
 * docs/shortcutsbench.md §8.3: the history form of a gold action, as a new object (the gold is untouched).
 */
export function normaliseAction(action: Json, returnNames: ReadonlyMap<string, string>): JsonObject {
  const { id, params } = actionParts(action);
  const p = cloneJson(params);
  for (const k of APP_NOISE) delete p[k];
  cleanInPlace(p);
  const uuid = p.UUID;
  if (uuid !== undefined && !Object.hasOwn(p, 'CustomOutputName')) {
    const name = typeof uuid === 'string' ? returnNames.get(uuid) : undefined;
    if (name !== undefined) p.CustomOutputName = name;
  }
  if (Object.hasOwn(p, 'CustomOutputName')) {
    const name = p.CustomOutputName!;
    delete p.CustomOutputName;
    p.OutputName = name;
  }
  return { WFWorkflowActionIdentifier: id ?? null, WFWorkflowActionParameters: p };
}

const IF_MODES = ['If Begin', 'Else', 'End If'];
const MENU_MODES = ['Case Begin', 'Case', 'End Case'];
const q = (s: string) => `"${s}"`;
/**
 * `WFCondition` codes (stringified) → phrases, each wrapped in double quotes (docs/shortcutsbench.md §8.4).
 */
const CONDITION_PHRASES: Readonly<Record<string, string>> = {
  '0': q('less/earlier than'),
  '1': q('less than or equal'),
  '2': q('greater/later than'),
  '3': q('greater than or equal'),
  '4': q('is'),
  '5': q('is not'),
  '8': q('begin with'),
  '9': q('end with'),
  '99': q('contain'),
  '100': q('have value'),
  '101': q('do not have any value'),
  '999': q('do not contain'),
  '1000': q('is after'),
  '1001': q('is the most recent'),
  '1002': q('is today'),
  '1003': q('is between'),
  Contains: q('contains'),
  Equals: q('equals'),
  'Is Less Than': q('is less than'),
  'Is Greater Than': q('is greater than'),
};

function modeIndex(mode: Json | undefined): number | undefined {
  if (mode === undefined) return undefined;
  for (let m = 0; m < 3; m++) if (pyEquals(mode, new LosslessNumber(String(m)))) return m;
  return undefined;
}

/**
 * docs/shortcutsbench.md §8.4 on a normalised IGNORE action (returns a new object): conditional and menu
 * modes become words, a conditional's `WFCondition` becomes its phrase (unknown codes: their string form). A
 * conditional with a mode other than 0/1/2 is an error (upstream aborts).
 */
export function renameControlFlow(normalised: JsonObject): JsonObject {
  const out = cloneJson(normalised);
  const id = out.WFWorkflowActionIdentifier;
  const p = out.WFWorkflowActionParameters;
  if (!isJsonObject(p)) return out;
  if (id === CONDITIONAL_ID) {
    const m = modeIndex(p.WFControlFlowMode);
    if (m === undefined)
      throw new ApiaryError(
        'INPUT_INVALID',
        `conditional with WFControlFlowMode ${pyStr(p.WFControlFlowMode ?? null)}`,
      );
    p.WFControlFlowMode = IF_MODES[m]!;
    if (p.WFCondition !== undefined) {
      const code = pyStr(p.WFCondition);
      p.WFCondition = CONDITION_PHRASES[code] ?? code;
    }
  } else if (id === MENU_ID) {
    const m = modeIndex(p.WFControlFlowMode);
    if (m !== undefined) p.WFControlFlowMode = MENU_MODES[m]!;
  }
  return out;
}
