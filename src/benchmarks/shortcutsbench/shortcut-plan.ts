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
import { isJsonObject, isLosslessNumber, type Json, type JsonObject } from './json-value.js';
import { actionParts } from './length.js';
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

export interface ShortcutPlan {
  plan: Plan;
  /** Action index → step id. */
  stepOf: Map<number, string>;
  gaps: PlanGap[];
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

/** A name the plan text format reads back (`[A-Za-z_]\w*`). */
function planIdentifier(s: string): string {
  const t = s.replace(/\W+/g, '_').replace(/^_+|_+$/g, '');
  if (t === '') return '_';
  return /^\d/.test(t) ? `_${t}` : t;
}

/** `is.workflow.actions.x.y` → app Shortcuts, api x_y; `com.vendor.app.Intent` → app com_vendor_app, api Intent. */
export function planAppAndApi(id: string): { app: string; api: string } {
  if (id.startsWith(P)) return { app: 'Shortcuts', api: planIdentifier(id.slice(P.length)) };
  const dot = id.lastIndexOf('.');
  if (dot <= 0) return { app: 'Shortcuts', api: planIdentifier(id) };
  return { app: planIdentifier(id.slice(0, dot)), api: planIdentifier(id.slice(dot + 1)) };
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

/** Named variables set once from a plain previous output (and never appended to) alias that output. */
function variableAliases(actions: readonly Json[], depths: readonly number[]): Map<string, JsonObject> {
  const sets = new Map<string, { count: number; input: Json | undefined; depth: number }>();
  const appended = new Set<string>();
  actions.forEach((a, i) => {
    const { id, params } = actionParts(a);
    const name = params.WFVariableName;
    if (typeof name !== 'string') return;
    if (id === APPEND_VARIABLE) appended.add(name);
    if (id === SET_VARIABLE) {
      const prev = sets.get(name);
      sets.set(name, { count: (prev?.count ?? 0) + 1, input: params.WFInput, depth: depths[i]! });
    }
  });
  const out = new Map<string, JsonObject>();
  for (const [name, s] of sets) {
    if (s.count !== 1 || appended.has(name) || s.depth !== 0) continue;
    const att = isJsonObject(s.input) && isJsonObject(s.input.Value) ? s.input.Value : undefined;
    if (att?.Type === 'ActionOutput' && typeof att.OutputUUID === 'string' && !selectingAggrandizement(att))
      out.set(name, att);
  }
  return out;
}

/** The plan of a shortcut's action list (see {@link ShortcutPlan}). */
export function shortcutToPlan(actions: readonly Json[]): ShortcutPlan {
  const listing = describeShortcut(actions);
  const depths = listing.actions.map((a) => a.depth);
  const aliases = variableAliases(actions, depths);
  const steps: Step[] = [];
  const stepOf = new Map<number, string>();
  const gaps: PlanGap[] = [];
  /** UUID → the step and output name a reference to it becomes. */
  const outputs = new Map<string, { step: string; output: string } | { index: number }>();

  const resolve = (att: JsonObject): { value: ArgValue } | { reason: string } => {
    const access = selectingAggrandizement(att);
    if (access) return { reason: `takes a part of a value (${access}); plans pass whole outputs` };
    const type = att.Type;
    if (type === 'Ask') return { value: ask(typeof att.Prompt === 'string' ? att.Prompt : undefined) };
    if (typeof type === 'string' && SYSTEM_SOURCES[type]) return { value: system(SYSTEM_SOURCES[type]) };
    let target = att;
    if (type === 'Variable') {
      const name = typeof att.VariableName === 'string' ? att.VariableName : '?';
      const alias = aliases.get(name);
      if (!alias)
        return {
          reason: `named variable "${name}" is not one previous output (set more than once, appended to, inside a block, or not set from an output)`,
        };
      target = alias;
    }
    if (target.Type === 'ActionOutput' && typeof target.OutputUUID === 'string') {
      const o = outputs.get(target.OutputUUID);
      if (o === undefined)
        return { reason: `refers to output ${target.OutputUUID}, which no earlier action produces` };
      if ('index' in o)
        return { reason: `refers to the output of action ${o.index}, which is not a plan step` };
      return { value: ref(o.step, o.output) };
    }
    return { reason: `a ${String(type)} value has no plan equivalent` };
  };

  const argOf = (v: Json): { value: ArgValue } | { reason: string } => {
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
    if (a.depth > 0) {
      whole('inside an If, Menu or Repeat block (a plan has no control flow)');
      continue;
    }
    if (id === SET_VARIABLE || id === APPEND_VARIABLE || id === GET_VARIABLE) {
      const name = typeof params.WFVariableName === 'string' ? params.WFVariableName : '?';
      const alias = aliases.get(name);
      if (id === GET_VARIABLE && alias && uuid !== undefined) {
        // the variable's value is the aliased output: a reference to this action is a reference to it
        const o = typeof alias.OutputUUID === 'string' ? outputs.get(alias.OutputUUID) : undefined;
        gaps.push({ index, id, reason: `reads variable "${name}" (references to it go to its output)` });
        outputs.set(uuid, o ?? { index });
        continue;
      }
      whole(
        alias
          ? `sets variable "${name}" (its uses become references to the output)`
          : `named variable "${name}" bookkeeping`,
      );
      continue;
    }
    const { app, api } = planAppAndApi(id);
    const stepId = `s${steps.length + 1}`;
    const args: Record<string, ArgValue> = {};
    for (const [name, v] of Object.entries(params)) {
      if (BOOKKEEPING_KEYS.has(name) || APP_NOISE_KEYS.has(name)) continue;
      const r = argOf(v);
      if ('value' in r) args[name] = r.value;
      else gaps.push({ index, id, param: name, reason: r.reason });
    }
    const outs: string[] = [];
    if (uuid !== undefined) {
      const output = planIdentifier(a.outputName ?? 'output');
      outs.push(output);
      outputs.set(uuid, { step: stepId, output });
    }
    steps.push({ id: stepId, app, api, args, outputs: outs });
    stepOf.set(index, stepId);
  }
  return { plan: { steps }, stepOf, gaps };
}
