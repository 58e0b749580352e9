import { type Catalog, indexCatalog } from '../../catalog/index.js';
import {
  type ArgValue,
  ask,
  literal,
  type Plan,
  ref,
  type Step,
  type SystemInput,
  system,
} from '../../plan/index.js';
import { CONTROL_FLOW_IDS } from './actions.js';
import { isJsonObject, isLosslessNumber, type Json, type JsonObject, LosslessNumber } from './json-value.js';
import { actionParts } from './length.js';
import { pyEquals } from './python-values.js';
import { APP_NOISE_KEYS, BOOKKEEPING_KEYS, describeShortcut } from './shortcut-listing.js';

/**
 * A shortcut as an Apiary plan graph: the top-level plain calls become steps, previous outputs
 * (and named variables that alias exactly one output) become step references, system inputs and
 * Ask become plan inputs. What a DAG of calls cannot express (control flow, text with embedded
 * references, lists, property access) is reported as gaps, never guessed.
 */

export interface PlanGap {
  index: number;
  id: string;
  /** The parameter left out of its step; absent when the whole action did not map. */
  param?: string;
  reason: string;
}

/** An argument the shortcut passes without naming it: the previous action's output (Shortcuts' implicit input). */
export interface ImplicitInput {
  index: number;
  id: string;
  param: string;
  /** The action whose output is chained in. */
  from: number;
}

export interface ShortcutPlan {
  plan: Plan;
  /** Action index → step id. */
  stepOf: Map<number, string>;
  gaps: PlanGap[];
  implicit: ImplicitInput[];
}

/** What the plan needs to know of an action's API: its catalog names, parameters and default output. */
export interface ShortcutsApiView {
  app: string;
  api: string;
  params: ReadonlySet<string>;
  output?: string;
}
export type ShortcutsApiLookup = (id: string) => ShortcutsApiView | undefined;

/** The lookup over a loaded `--catalog shortcuts`, so that plans name apps and APIs as the catalog does. */
export function shortcutsApiLookup(catalog: Catalog): ShortcutsApiLookup {
  const index = indexCatalog(catalog);
  return (id) => {
    const api = index.apiById(id);
    if (!api) return undefined;
    const output = api.outputs[0]?.name;
    return {
      app: api.app,
      api: api.name,
      params: new Set(api.parameters.map((p) => p.name)),
      ...(output !== undefined ? { output } : {}),
    };
  };
}

/**
 * The parameter an action's input arrives in when none is set. Most actions call it `WFInput`; these
 * built-ins take their input under another key (as the Shortcuts editor wires them).
 */
const INPUT_KEYS: Readonly<Record<string, string>> = {
  'is.workflow.actions.downloadurl': 'WFURL',
  'is.workflow.actions.speaktext': 'WFText',
  'is.workflow.actions.showresult': 'Text',
  'is.workflow.actions.count': 'Input',
  'is.workflow.actions.text.split': 'text',
};
function inputParamOf(id: string, view: ShortcutsApiView | undefined): string | undefined {
  if (!view) return undefined;
  const key = INPUT_KEYS[id] ?? 'WFInput';
  return view.params.has(key) ? key : undefined;
}

const P = 'is.workflow.actions.';
const SET_VARIABLE = `${P}setvariable`;
const APPEND_VARIABLE = `${P}appendvariable`;
const GET_VARIABLE = `${P}getvariable`;
const COMMENT = `${P}comment`;

const SYSTEM_SOURCES: Readonly<Record<string, SystemInput>> = {
  Clipboard: 'clipboard',
  CurrentDate: 'current_date',
  ExtensionInput: 'shared_input',
  Input: 'shared_input',
  DeviceDetails: 'device_details',
};

/**
 * A name the plan text format reads back (`[A-Za-z_]\w*`), distinct for distinct texts in practice:
 * accents are dropped (`Température` → `Temperature`) and any other non-ASCII character becomes its
 * code point (`天气` → `u5929_u6c14`), so names in other scripts do not all collapse to `_`.
 */
function planIdentifier(s: string): string {
  const parts: string[] = [];
  for (const ch of s.normalize('NFKD').replace(/\p{M}+/gu, '')) {
    if (/\w/.test(ch)) parts.push(ch);
    else if (ch.charCodeAt(0) < 0x80) parts.push('_');
    else parts.push(`_u${ch.codePointAt(0)!.toString(16)}_`);
  }
  const t = parts
    .join('')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (t === '') return '_';
  return /^\d/.test(t) ? `_${t}` : t;
}

/**
 * An action's app and API as `--catalog shortcuts` names them: built-ins belong to `is.workflow.actions`,
 * others to the bundle id before the last dot (the catalog's own fallback); the API is the full id.
 */
export function planAppAndApi(id: string, lookup?: ShortcutsApiLookup): { app: string; api: string } {
  const view = lookup?.(id);
  if (view) return { app: view.app, api: view.api };
  if (id.startsWith(P)) return { app: 'is.workflow.actions', api: id };
  const dot = id.lastIndexOf('.');
  return { app: dot > 0 ? id.slice(0, dot) : id, api: id };
}

/**
 * Aggrandizements docs/shortcutsbench.md §8.3 keeps (property, dictionary key) select a part of a value;
 * conversions do not.
 */
const CONVERSIONS = new Set([
  'WFCoercionVariableAggrandizement',
  'WFDateFormatVariableAggrandizement',
  'WFUnitVariableAggrandizement',
]);
function selectingAggrandizement(att: JsonObject): string | undefined {
  if (!Array.isArray(att.Aggrandizements)) return undefined;
  for (const g of att.Aggrandizements) {
    const type = isJsonObject(g) && typeof g.Type === 'string' ? g.Type : '?';
    if (!CONVERSIONS.has(type)) return type;
  }
  return undefined;
}

/** The name a getvariable reads: `WFVariableName` in some files, the `WFVariable` attachment in most real ones. */
function variableNameOf(params: JsonObject): string | undefined {
  if (typeof params.WFVariableName === 'string') return params.WFVariableName;
  const att = isJsonObject(params.WFVariable) ? params.WFVariable.Value : undefined;
  if (isJsonObject(att) && att.Type === 'Variable' && typeof att.VariableName === 'string')
    return att.VariableName;
  return undefined;
}

/**
 * Named variables a plan can follow: set once, at top level, never appended to. Their value is resolved
 * when they are SET (a copied action may reuse a UUID later, so resolving at the use would be wrong).
 */
function followableVariables(actions: readonly Json[], depths: readonly number[]): Set<string> {
  const sets = new Map<string, { count: number; depth: number }>();
  const appended = new Set<string>();
  actions.forEach((a, i) => {
    const { id, params } = actionParts(a);
    const name = params.WFVariableName;
    if (typeof name !== 'string') return;
    if (id === APPEND_VARIABLE) appended.add(name);
    if (id === SET_VARIABLE) {
      const prev = sets.get(name);
      sets.set(name, { count: (prev?.count ?? 0) + 1, depth: depths[i]! });
    }
  });
  const out = new Set<string>();
  for (const [name, s] of sets) if (s.count === 1 && !appended.has(name) && s.depth === 0) out.add(name);
  return out;
}

type Resolved = { value: ArgValue } | { reason: string };

const NOT_FOLLOWABLE =
  'is not one previous output (set more than once, appended to, inside a block, or not set from an output)';

/**
 * The plan of a shortcut's action list (see {@link ShortcutPlan}). With `lookup` (from
 * {@link shortcutsApiLookup}), steps use the catalog's app and API names, arguments the catalog does not
 * declare become gaps, and an API that takes an input gets the previous action's output when it sets none.
 */
export function shortcutToPlan(actions: readonly Json[], lookup?: ShortcutsApiLookup): ShortcutPlan {
  const listing = describeShortcut(actions);
  const depths = blockDepths(actions);
  const followable = followableVariables(actions, depths);
  const steps: Step[] = [];
  const stepOf = new Map<number, string>();
  const stepAt = new Map<number, Step>();
  const gaps: PlanGap[] = [];
  const implicit: ImplicitInput[] = [];
  /** UUID → the value a reference to it becomes (the latest producer so far), or the action that is no step. */
  const outputs = new Map<string, { value: ArgValue } | { index: number }>();
  /** Variable name → its value when it was set. */
  const variables = new Map<string, Resolved>();
  /** Action index → what its output is, for actions that are not steps but pass a value on (getvariable). */
  const passedOn = new Map<number, ArgValue>();
  const usedNames = new Set<string>();
  const uniqueName = (text: string) => {
    const base = planIdentifier(text);
    let name = base;
    for (let k = 2; usedNames.has(name); k++) name = `${base}_${k}`;
    usedNames.add(name);
    return name;
  };

  const resolve = (att: JsonObject): Resolved => {
    const access = selectingAggrandizement(att);
    if (access) return { reason: `takes a part of a value (${access}); plans pass whole outputs` };
    const type = att.Type;
    if (type === 'Ask') return { value: ask(typeof att.Prompt === 'string' ? att.Prompt : undefined) };
    if (typeof type === 'string' && SYSTEM_SOURCES[type]) return { value: system(SYSTEM_SOURCES[type]) };
    if (type === 'Variable') {
      const name = typeof att.VariableName === 'string' ? att.VariableName : '?';
      const v = followable.has(name) ? variables.get(name) : undefined;
      if (v === undefined) return { reason: `named variable "${name}" ${NOT_FOLLOWABLE}` };
      if ('reason' in v) return { reason: `named variable "${name}": ${v.reason}` };
      return v;
    }
    if (type === 'ActionOutput' && typeof att.OutputUUID === 'string') {
      const o = outputs.get(att.OutputUUID);
      if (o === undefined)
        return { reason: `refers to output ${att.OutputUUID}, which no earlier action produces` };
      if ('index' in o)
        return { reason: `refers to the output of action ${o.index}, which is not a plan step` };
      return o;
    }
    return { reason: `a ${String(type)} value has no plan equivalent` };
  };

  const argOf = (v: Json): Resolved => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return { value: literal(v) };
    if (isLosslessNumber(v)) return { value: literal(Number(v.value)) };
    if (Array.isArray(v)) return { reason: 'a list value (plans take scalars and references)' };
    const inner = v.Value;
    if (isJsonObject(inner)) {
      if (typeof inner.string === 'string' && isJsonObject(inner.attachmentsByRange)) {
        const atts = Object.values(inner.attachmentsByRange);
        if (atts.length === 0) return { value: literal(inner.string) };
        if (inner.string === '\uFFFC' && atts.length === 1 && isJsonObject(atts[0])) return resolve(atts[0]);
        return { reason: 'text with embedded references (a plan argument is one value)' };
      }
      if (typeof inner.Type === 'string') return resolve(inner);
    }
    return { reason: 'a dictionary value (plans take scalars and references)' };
  };

  /** The output of the action before `index` (comments pass it through), named on its step if need be. */
  const previousOutput = (index: number): Resolved | undefined => {
    const k = previousIndex(actions, index);
    if (k < 0) return undefined;
    const passed = passedOn.get(k);
    if (passed) return { value: passed };
    const step = stepAt.get(k);
    if (!step) return { reason: `has no input set, and action ${k} before it is not a plan step` };
    if (step.outputs.length === 0) {
      const declared = lookup?.(actionParts(actions[k]).id ?? '')?.output;
      if (declared === undefined)
        return { reason: `has no input set, and action ${k} before it gives no output` };
      step.outputs.push(uniqueName(declared));
    }
    return { value: ref(step.id, step.outputs[0]!) };
  };

  for (const [index, a] of listing.actions.entries()) {
    const { id = '?', params } = actionParts(actions[index]);
    const uuid = typeof params.UUID === 'string' ? params.UUID : undefined;
    const whole = (reason: string) => {
      gaps.push({ index, id, reason });
      if (uuid !== undefined) outputs.set(uuid, { index });
    };
    if (id === COMMENT) {
      whole('a comment');
      continue;
    }
    if (CONTROL_FLOW_IDS.has(id)) {
      whole(`control flow (${a.control ?? id}) has no plan equivalent`);
      continue;
    }
    if (depths[index]! > 0) {
      whole('inside an If, Menu or Repeat block (a plan has no control flow)');
      continue;
    }
    if (id === SET_VARIABLE || id === APPEND_VARIABLE) {
      const name = typeof params.WFVariableName === 'string' ? params.WFVariableName : '?';
      if (id === SET_VARIABLE && followable.has(name)) {
        const input = params.WFInput;
        const v: Resolved =
          input === undefined ? (previousOutput(index) ?? { reason: 'set from nothing' }) : argOf(input);
        variables.set(name, v);
        whole(`sets variable "${name}" (its uses become references to the output)`);
      } else whole(`named variable "${name}" bookkeeping`);
      continue;
    }
    if (id === GET_VARIABLE) {
      const name = variableNameOf(params);
      const source = params.WFVariable;
      const r: Resolved =
        source !== undefined
          ? argOf(source)
          : name !== undefined
            ? resolve({ Type: 'Variable', VariableName: name })
            : { reason: 'reads no variable' };
      const label =
        name !== undefined ? `variable "${name}"` : `an ${attachmentType(source) ?? 'unknown'} reference`;
      if ('value' in r) {
        // the variable's value is a known output: a reference to this action is a reference to it
        gaps.push({ index, id, reason: `reads ${label} (references to it go to its output)` });
        passedOn.set(index, r.value);
        if (uuid !== undefined) outputs.set(uuid, r);
      } else whole(`reads ${label}: ${r.reason}`);
      continue;
    }
    const view = lookup?.(id);
    if (lookup && !view) {
      whole(`${id} is not an action of the shortcuts catalog`);
      continue;
    }
    const { app, api } = planAppAndApi(id, lookup);
    const stepId = `s${steps.length + 1}`;
    const args: Record<string, ArgValue> = {};
    for (const [name, v] of Object.entries(params)) {
      if (BOOKKEEPING_KEYS.has(name) || APP_NOISE_KEYS.has(name)) continue;
      if (view && !view.params.has(name)) {
        gaps.push({ index, id, param: name, reason: `not a parameter of ${id} in the shortcuts catalog` });
        continue;
      }
      const r = argOf(v);
      if ('value' in r) args[name] = r.value;
      else gaps.push({ index, id, param: name, reason: r.reason });
    }
    const input = inputParamOf(id, view);
    if (input !== undefined && !(input in params)) {
      const r = previousOutput(index);
      if (r && 'value' in r) {
        args[input] = r.value;
        implicit.push({ index, id, param: input, from: previousIndex(actions, index) });
      } else if (r) gaps.push({ index, id, param: input, reason: r.reason });
    }
    const outs: string[] = [];
    if (uuid !== undefined) {
      const output = uniqueName(a.outputName ?? view?.output ?? 'output');
      outs.push(output);
      outputs.set(uuid, { value: ref(stepId, output) });
    }
    const step: Step = { id: stepId, app, api, args, outputs: outs };
    steps.push(step);
    stepOf.set(index, stepId);
    stepAt.set(index, step);
  }
  return { plan: { steps }, stepOf, gaps, implicit };
}

const MODES = [0, 1, 2].map((k) => new LosslessNumber(String(k)));

/**
 * Nesting depth of each action inside if/menu/repeat blocks. Workflow 1.7 files store no
 * `WFControlFlowMode` on the first marker of a block, so a marker without a mode whose group has a
 * later marker opens the block (the listing of `shortcuts show` keeps reporting it as it is stored).
 */
function blockDepths(actions: readonly Json[]): number[] {
  const open: string[] = [];
  return actions.map((a, i) => {
    const { id, params } = actionParts(a);
    const depth = open.length;
    const group = params.GroupingIdentifier;
    if (id === undefined || !CONTROL_FLOW_IDS.has(id) || typeof group !== 'string') return depth;
    const stored = params.WFControlFlowMode;
    const mode =
      stored === undefined
        ? actions.slice(i + 1).some((b) => actionParts(b).params.GroupingIdentifier === group)
          ? 0
          : undefined
        : MODES.findIndex((m) => pyEquals(stored, m));
    if (mode === 0) open.push(group);
    else if ((mode === 1 || mode === 2) && open.at(-1) === group) {
      if (mode === 2) open.pop();
      return depth - 1;
    }
    return depth;
  });
}

/** The index of the action before `index`, comments skipped. */
function previousIndex(actions: readonly Json[], index: number): number {
  let k = index - 1;
  while (k >= 0 && actionParts(actions[k]).id === COMMENT) k--;
  return k;
}

function attachmentType(v: Json | undefined): string | undefined {
  const att = isJsonObject(v) ? v.Value : undefined;
  return isJsonObject(att) && typeof att.Type === 'string' ? att.Type : undefined;
}
