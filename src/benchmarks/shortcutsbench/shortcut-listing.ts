import { ApiaryError } from '../../shared/index.js';
import {
  type ActionClass,
  actionClass,
  CONDITIONAL_ID,
  CONTROL_FLOW_IDS,
  MENU_ID,
  REPEAT_COUNT_ID,
  SYSTEM_INPUT_TYPES,
} from './actions.js';
import { isJsonObject, isLosslessNumber, type Json, type JsonObject, LosslessNumber } from './json-value.js';
import { actionParts, type Level, levelOf, shortcutLength } from './length.js';
import { pyEquals } from './python-values.js';

/**
 * A readable account of a shortcut: each action with its class (docs/shortcutsbench.md §5), control-flow role
 * and depth, its output, and every parameter with its value form (§8.2) rendered as text. Pure: works on the
 * action list of a gold record or an imported file alike.
 */

/** Keys that are bookkeeping, not arguments (docs/shortcutsbench.md §2.1). */
export const BOOKKEEPING_KEYS: ReadonlySet<string> = new Set([
  'UUID',
  'CustomOutputName',
  'GroupingIdentifier',
  'WFControlFlowMode',
]);
/** Third-party app noise dropped before prompting (docs/shortcutsbench.md §8.3). */
export const APP_NOISE_KEYS: ReadonlySet<string> = new Set([
  'ShowWhenRun',
  'OpenWhenRun',
  'AppIntentDescriptor',
]);

export type ListedForm =
  | 'literal'
  | 'previous-output'
  | 'system-input'
  | 'ask'
  | 'variable'
  | 'token-string'
  | 'conditional-input'
  | 'list'
  | 'dictionary'
  | 'other';

export interface ListedParam {
  name: string;
  form: ListedForm;
  /** The value as text: literals as JSON, references as `@<index> "<output>"`, `$Clipboard`, `?Ask`, `var:<name>`. */
  text: string;
  /** Aggrandizement types on the reference (property, dictionary key, coercion, …), in order. */
  aggrandizements?: string[];
}

export interface ListedAction {
  index: number;
  id: string;
  class: ActionClass;
  /** Nesting depth inside if/menu/repeat blocks (0: top level). */
  depth: number;
  /** Control-flow role: If, Otherwise, End If, Menu, Case, End Menu, Repeat, Repeat with each, End Repeat. */
  control?: string;
  group?: string;
  uuid?: string;
  /** The custom output name, else the name later references use. */
  outputName?: string;
  params: ListedParam[];
}

export interface ListedVariable {
  name: string;
  setAt: number[];
  appendedAt: number[];
  usedAt: number[];
}

export interface ShortcutListing {
  actions: ListedAction[];
  /**
   * Longest-branch length (docs/shortcutsbench.md §6.1) and level (§6.2); null with `lengthProblem` when LEN
   * is undefined.
   */
  length: number | null;
  level: Level | null;
  lengthProblem?: string;
  variables: ListedVariable[];
  /** The system/user input types the shortcut reads, in first-use order. */
  inputs: string[];
}

const OBJECT_REPLACEMENT = '\uFFFC';

/** UUID → index of the action producing it, and the output names references give it. */
function outputsIndex(actions: readonly Json[]): {
  producer: Map<string, number>;
  names: Map<string, string>;
} {
  const producer = new Map<string, number>();
  const names = new Map<string, string>();
  actions.forEach((a, i) => {
    const { params } = actionParts(a);
    if (typeof params.UUID === 'string' && !producer.has(params.UUID)) producer.set(params.UUID, i);
    visitAttachments(params, (att) => {
      const { OutputUUID: uuid, OutputName: name } = att;
      if (
        att.Type === 'ActionOutput' &&
        typeof uuid === 'string' &&
        typeof name === 'string' &&
        !names.has(uuid)
      )
        names.set(uuid, name);
    });
  });
  return { producer, names };
}

/** Calls `f` on every attachment object (`{Type: …}` reference) at any depth, aggrandizements excluded. */
function visitAttachments(v: Json, f: (att: JsonObject) => void): void {
  if (Array.isArray(v)) for (const x of v) visitAttachments(x, f);
  else if (isJsonObject(v)) {
    const isWrapper = v.Type === 'Variable' && isJsonObject(v.Variable); // the conditional's input
    if (typeof v.Type === 'string' && !isWrapper) f(v);
    for (const [k, x] of Object.entries(v)) if (k !== 'Aggrandizements') visitAttachments(x, f);
  }
}

function aggrandizementText(g: Json): string {
  if (!isJsonObject(g)) return '?';
  const type = typeof g.Type === 'string' ? g.Type.replace(/^WF|VariableAggrandizement$/g, '') : '?';
  if (typeof g.PropertyName === 'string') return `.${g.PropertyName}`;
  if (typeof g.DictionaryKey === 'string') return `[${JSON.stringify(g.DictionaryKey)}]`;
  if (typeof g.CoercionItemClass === 'string') return ` as ${g.CoercionItemClass}`;
  return ` (${type})`;
}

function aggrandizementTypes(att: JsonObject): string[] | undefined {
  const aggs = att.Aggrandizements;
  if (!Array.isArray(aggs) || aggs.length === 0) return undefined;
  return aggs.map((g) => (isJsonObject(g) && typeof g.Type === 'string' ? g.Type : '?'));
}

/** One attachment (`Value` object of a reference) as text. */
function attachmentText(
  att: JsonObject,
  producer: ReadonlyMap<string, number>,
): { form: ListedForm; text: string } {
  const aggs = Array.isArray(att.Aggrandizements) ? att.Aggrandizements.map(aggrandizementText).join('') : '';
  const type = att.Type;
  if (type === 'ActionOutput') {
    const uuid = typeof att.OutputUUID === 'string' ? att.OutputUUID : undefined;
    const at = uuid !== undefined ? producer.get(uuid) : undefined;
    const name = typeof att.OutputName === 'string' ? ` ${JSON.stringify(att.OutputName)}` : '';
    const where = at !== undefined ? `@${at}` : `@?${uuid ? `(${uuid})` : ''}`;
    return { form: 'previous-output', text: `${where}${name}${aggs}` };
  }
  if (type === 'Variable')
    return {
      form: 'variable',
      text: `var:${typeof att.VariableName === 'string' ? att.VariableName : '?'}${aggs}`,
    };
  if (type === 'Ask')
    return {
      form: 'ask',
      text: `?Ask${typeof att.Prompt === 'string' ? ` ${JSON.stringify(att.Prompt)}` : ''}${aggs}`,
    };
  if (typeof type === 'string') {
    const known = (SYSTEM_INPUT_TYPES as readonly string[]).includes(type) || type === 'Input';
    return { form: known ? 'system-input' : 'other', text: `$${type}${aggs}` };
  }
  return { form: 'other', text: JSON.stringify(att) };
}

function literalText(v: Json): string {
  if (isLosslessNumber(v)) return v.value;
  return JSON.stringify(v);
}

/** One parameter value with its form (docs/shortcutsbench.md §8.2). */
export function describeValue(
  name: string,
  v: Json,
  producer: ReadonlyMap<string, number> = new Map(),
): ListedParam {
  if (v === null || typeof v !== 'object' || isLosslessNumber(v))
    return { name, form: 'literal', text: literalText(v) };
  if (Array.isArray(v)) return { name, form: 'list', text: `[${v.length} items]` };
  const inner = v.Value;
  // the conditional's input: {"Type": "Variable", "Variable": {"Value": {…}}}
  if (v.Type === 'Variable' && isJsonObject(v.Variable) && isJsonObject(v.Variable.Value)) {
    const r = attachmentText(v.Variable.Value, producer);
    const aggrandizements = aggrandizementTypes(v.Variable.Value);
    return { name, form: 'conditional-input', text: r.text, ...(aggrandizements ? { aggrandizements } : {}) };
  }
  if (isJsonObject(inner)) {
    if (typeof inner.string === 'string' && isJsonObject(inner.attachmentsByRange)) {
      const ranges = Object.entries(inner.attachmentsByRange)
        .map(([k, att]) => ({ at: Number(/-?\d+/.exec(k)?.[0] ?? Number.NaN), att }))
        .sort((a, b) => a.at - b.at);
      let k = 0;
      const text = inner.string.replaceAll(OBJECT_REPLACEMENT, () => {
        const att = ranges[k++]?.att;
        return `{${isJsonObject(att) ? attachmentText(att, producer).text : '?'}}`;
      });
      return { name, form: 'token-string', text: JSON.stringify(text) };
    }
    if (typeof inner.Type === 'string') {
      const r = attachmentText(inner, producer);
      const aggrandizements = aggrandizementTypes(inner);
      return { name, form: r.form, text: r.text, ...(aggrandizements ? { aggrandizements } : {}) };
    }
    // WFDictionaryFieldValue and other serialised containers
    if (Array.isArray(inner.WFDictionaryFieldValueItems))
      return { name, form: 'dictionary', text: `{${inner.WFDictionaryFieldValueItems.length} entries}` };
    if (typeof inner.string === 'string')
      return { name, form: 'literal', text: JSON.stringify(inner.string) };
  }
  return { name, form: 'dictionary', text: `{${Object.keys(v).length} keys}` };
}

function modeOf(params: JsonObject): 0 | 1 | 2 | undefined {
  const m = params.WFControlFlowMode;
  if (m === undefined) return undefined;
  for (const k of [0, 1, 2] as const) if (pyEquals(m, new LosslessNumber(String(k)))) return k;
  return undefined;
}

const CONTROL_WORDS: Record<string, readonly [string, string, string]> = {
  [CONDITIONAL_ID]: ['If', 'Otherwise', 'End If'],
  [MENU_ID]: ['Menu', 'Case', 'End Menu'],
  [REPEAT_COUNT_ID]: ['Repeat', 'Repeat (mode 1)', 'End Repeat'],
  'is.workflow.actions.repeat.each': ['Repeat with each', 'Repeat (mode 1)', 'End Repeat'],
};

/** The listing of a shortcut's actions (see {@link ShortcutListing}). */
export function describeShortcut(actions: readonly Json[]): ShortcutListing {
  const { producer, names } = outputsIndex(actions);
  const open: string[] = []; // GroupingIdentifiers of the blocks we are in
  const variables = new Map<string, ListedVariable>();
  const variable = (name: string) => {
    const known = variables.get(name);
    if (known) return known;
    const v: ListedVariable = { name, setAt: [], appendedAt: [], usedAt: [] };
    variables.set(name, v);
    return v;
  };
  const inputs: string[] = [];
  const listed = actions.map((a, index): ListedAction => {
    const { id = '?', params } = actionParts(a);
    let depth = open.length;
    let control: string | undefined;
    let group: string | undefined;
    if (CONTROL_FLOW_IDS.has(id)) {
      group = typeof params.GroupingIdentifier === 'string' ? params.GroupingIdentifier : undefined;
      const mode = modeOf(params);
      const words = CONTROL_WORDS[id]!;
      control = mode === undefined ? `${words[0]} (no mode)` : words[mode];
      if (mode === 0 && group !== undefined) open.push(group);
      else if (mode === 1 && group !== undefined && open.at(-1) === group) depth--;
      else if (mode === 2 && group !== undefined && open.at(-1) === group) {
        open.pop();
        depth--;
      }
      if (id === MENU_ID && mode === 1 && typeof params.WFMenuItemTitle === 'string')
        control = `Case ${JSON.stringify(params.WFMenuItemTitle)}`;
      if (id === REPEAT_COUNT_ID && mode === 0 && params.WFRepeatCount !== undefined)
        control = `Repeat ${describeValue('WFRepeatCount', params.WFRepeatCount, producer).text} times`;
    }
    if (id === 'is.workflow.actions.setvariable' && typeof params.WFVariableName === 'string')
      variable(params.WFVariableName).setAt.push(index);
    if (id === 'is.workflow.actions.appendvariable' && typeof params.WFVariableName === 'string')
      variable(params.WFVariableName).appendedAt.push(index);
    visitAttachments(params, (att) => {
      if (att.Type === 'Variable' && typeof att.VariableName === 'string') {
        const used = variable(att.VariableName).usedAt;
        if (used.at(-1) !== index) used.push(index);
      } else if (typeof att.Type === 'string' && att.Type !== 'ActionOutput' && !inputs.includes(att.Type))
        inputs.push(att.Type);
    });
    const uuid = typeof params.UUID === 'string' ? params.UUID : undefined;
    const custom = typeof params.CustomOutputName === 'string' ? params.CustomOutputName : undefined;
    const outputName = custom ?? (uuid !== undefined ? names.get(uuid) : undefined);
    const shown = Object.entries(params).filter(([k]) => !BOOKKEEPING_KEYS.has(k) && !APP_NOISE_KEYS.has(k));
    return {
      index,
      id,
      class: actionClass(id),
      depth,
      ...(control !== undefined ? { control } : {}),
      ...(group !== undefined ? { group } : {}),
      ...(uuid !== undefined ? { uuid } : {}),
      ...(outputName !== undefined ? { outputName } : {}),
      params: shown.map(([k, v]) => describeValue(k, v, producer)),
    };
  });
  let length: number | null = null;
  let lengthProblem: string | undefined;
  try {
    length = shortcutLength(actions).length;
  } catch (e) {
    if (!(e instanceof ApiaryError)) throw e;
    lengthProblem = e.message;
  }
  return {
    actions: listed,
    length,
    level: length === null ? null : levelOf(length),
    ...(lengthProblem !== undefined ? { lengthProblem } : {}),
    variables: [...variables.values()],
    inputs,
  };
}

const SHORT_PREFIX = 'is.workflow.actions.';

/** The listing as terminal text: one line per action, indented by depth, parameters below. */
export function formatShortcutListing(title: string, l: ShortcutListing): string {
  const lines: string[] = [];
  const len =
    l.length === null
      ? `length n.a. (${l.lengthProblem})`
      : `length ${l.length} (longest branch), level L${l.level}`;
  lines.push(`${title}: ${l.actions.length} actions, ${len}`);
  for (const a of l.actions) {
    const pad = '  '.repeat(a.depth + 1);
    const id = a.id.startsWith(SHORT_PREFIX) ? a.id.slice(SHORT_PREFIX.length) : a.id;
    const head = a.control ? `${a.control}  (${id})` : id;
    const tag = a.class === 'evaluated' ? '' : `  [${a.class}]`;
    const out =
      a.outputName !== undefined ? `  → ${JSON.stringify(a.outputName)}` : a.uuid ? '  → (output)' : '';
    lines.push(`${String(a.index).padStart(3)} ${pad}${head}${tag}${out}`);
    for (const p of a.params) {
      const form =
        p.form === 'literal'
          ? ''
          : `  (${p.form}${p.aggrandizements ? `; ${p.aggrandizements.join(', ')}` : ''})`;
      lines.push(`    ${pad}  ${p.name} = ${p.text}${form}`);
    }
  }
  if (l.variables.length) {
    lines.push('variables:');
    for (const v of l.variables)
      lines.push(
        `  ${v.name}: set at ${v.setAt.join(', ') || '-'}; appended at ${v.appendedAt.join(', ') || '-'}; used at ${v.usedAt.join(', ') || '-'}`,
      );
  }
  lines.push(`inputs: ${l.inputs.length ? l.inputs.join(', ') : 'none'}`);
  return lines.join('\n');
}
