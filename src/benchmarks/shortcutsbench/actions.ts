import { isJsonObject, type Json, type JsonObject } from './json-value.js';

/**
 * The action model of a shortcut (docs/shortcutsbench.md §2, §5): an action is an API id and a parameter dict
 * whose values take one of six forms (§8.2). Gold actions stay raw JSON (never mutated); these helpers
 * classify them.
 */
export interface ShortcutAction {
  WFWorkflowActionIdentifier: string;
  WFWorkflowActionParameters: JsonObject;
}

const P = 'is.workflow.actions.';
export const COMMENT_ID = `${P}comment`;
export const ALERT_ID = `${P}alert`;
export const CONDITIONAL_ID = `${P}conditional`;
export const MENU_ID = `${P}choosefrommenu`;
export const REPEAT_COUNT_ID = `${P}repeat.count`;
export const REPEAT_EACH_ID = `${P}repeat.each`;

/** Control-flow APIs whose markers share a `GroupingIdentifier` (docs/shortcutsbench.md §2.2). */
export const CONTROL_FLOW_IDS: ReadonlySet<string> = new Set([
  CONDITIONAL_ID,
  MENU_ID,
  REPEAT_COUNT_ID,
  REPEAT_EACH_ID,
]);

/** Removed entirely: not predicted, not scored, not in the history (docs/shortcutsbench.md §5). */
export const FILTER_IDS: ReadonlySet<string> = new Set([COMMENT_ID, ALERT_ID]);

/** Not predicted nor scored, but shown in the history (docs/shortcutsbench.md §5). */
export const IGNORE_IDS: ReadonlySet<string> = new Set(
  [
    'conditional',
    'choosefrommenu',
    'repeat.each',
    'repeat.count',
    'getvariable',
    'setvariable',
    'appendvariable',
    'runworkflow',
    'gettext',
    'ask',
  ].map((s) => P + s),
);

export type ActionClass = 'filter' | 'ignore' | 'evaluated';

export function actionClass(id: string): ActionClass {
  if (FILTER_IDS.has(id)) return 'filter';
  if (IGNORE_IDS.has(id)) return 'ignore';
  return 'evaluated';
}

/** System/user inputs the recognition metric counts (docs/shortcutsbench.md §9.4); `Input` is legacy. */
export const SYSTEM_INPUT_TYPES = [
  'ExtensionInput',
  'CurrentDate',
  'Clipboard',
  'DeviceDetails',
  'Ask',
] as const;
export type SystemInputType = (typeof SYSTEM_INPUT_TYPES)[number];
export const LEGACY_EXTENSION_INPUT = 'Input';

/** The six value forms of a parameter (docs/shortcutsbench.md §8.2), plus the ones never scored. */
export type ValueForm =
  | { form: 'primitive' } // string, number, bool (enums are strings)
  | { form: 'action-output'; uuid?: string; name?: string }
  | { form: 'system-input'; type: string } // Ask, Clipboard, CurrentDate, ExtensionInput, DeviceDetails, Input
  | { form: 'variable'; name?: string }
  | { form: 'token-string'; references: number }
  | { form: 'other' }; // lists, dictionaries, conditional inputs

/** The attachment `Value` object of a top-level reference (`{"Value": {...}}`), if the value is one. */
export function attachmentValue(v: Json | undefined): JsonObject | undefined {
  if (!isJsonObject(v)) return undefined;
  const inner = v.Value;
  return isJsonObject(inner) ? inner : undefined;
}

/** Which of the value forms a gold parameter value takes. */
export function valueForm(v: Json): ValueForm {
  if (v === null || Array.isArray(v)) return { form: 'other' };
  if (!isJsonObject(v)) return { form: 'primitive' };
  const att = attachmentValue(v);
  if (!att) return { form: 'other' };
  if (typeof att.string === 'string' && isJsonObject(att.attachmentsByRange))
    return { form: 'token-string', references: Object.keys(att.attachmentsByRange).length };
  const type = att.Type;
  if (type === 'ActionOutput')
    return {
      form: 'action-output',
      ...(typeof att.OutputUUID === 'string' ? { uuid: att.OutputUUID } : {}),
      ...(typeof att.OutputName === 'string' ? { name: att.OutputName } : {}),
    };
  if (type === 'Variable')
    return { form: 'variable', ...(typeof att.VariableName === 'string' ? { name: att.VariableName } : {}) };
  if (
    typeof type === 'string' &&
    (SYSTEM_INPUT_TYPES.includes(type as SystemInputType) || type === LEGACY_EXTENSION_INPUT)
  )
    return { form: 'system-input', type };
  return { form: 'other' };
}
