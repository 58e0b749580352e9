import { isJsonObject, type Json, type JsonObject } from './json-value.js';

const P = 'is.workflow.actions.';
const COMMENT_ID = `${P}comment`;
const ALERT_ID = `${P}alert`;
export const CONDITIONAL_ID = `${P}conditional`;
export const MENU_ID = `${P}choosefrommenu`;
export const REPEAT_COUNT_ID = `${P}repeat.count`;
const REPEAT_EACH_ID = `${P}repeat.each`;

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
const IGNORE_IDS: ReadonlySet<string> = new Set(
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
export const LEGACY_EXTENSION_INPUT = 'Input'; // lists, dictionaries, conditional inputs

/** The attachment `Value` object of a top-level reference (`{"Value": {...}}`), if the value is one. */
export function attachmentValue(v: Json | undefined): JsonObject | undefined {
  if (!isJsonObject(v)) return undefined;
  const inner = v.Value;
  return isJsonObject(inner) ? inner : undefined;
}
