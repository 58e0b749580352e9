/**
 * The two prompts of `apiary shortcuts queries` (docs/shortcutsbench.md, "Writing the queries"),
 * kept verbatim in that page: one writes the user's request from the shortcut, the other checks
 * which preset values the request states (the role of the check-intersection filter, §4.5).
 */

/** A preset primitive/enum value the request has to state (a docs/shortcutsbench.md §4.4 candidate). */
export interface PresetValue {
  /** 0-based action position in `WFWorkflowActions`, comments included (§4.4). */
  pos: string;
  api: string;
  name: string;
  /** The value as the shortcut stores it, rendered as JSON text (`"GET"`, `0.5`, `false`). */
  text: string;
}

export const QUERY_SYSTEM_PROMPT = [
  'You write the request a user types or says to run one of their Apple Shortcuts.',
  "You are given the shortcut's name, its workflow (its actions in order, with the values they preset), the descriptions of the APIs its actions call, and the values the request must contain.",
  'Write one request, phrased as the user would say it, that asks for what the shortcut does and naturally states every listed value: a text or enum value word for word, a number as digits, a true/false setting in words.',
  'Do not name actions, APIs or parameters, and do not say "shortcut".',
  'Reply with the request only, on one line.',
].join(' ');

export interface QueryPromptInput {
  name: string;
  /** The workflow as `apiary shortcuts show` lists it. */
  workflow: string;
  /** `<api id>. <description>` per distinct API the shortcut calls, in first-use order. */
  apiDescriptions: readonly string[];
  values: readonly PresetValue[];
  /** The previous attempt and the values it missed, on a retry. */
  retry?: { query: string; missed: readonly PresetValue[] };
}

const valueLine = (v: PresetValue) => `- action ${v.pos} (${v.api}), ${v.name}: ${v.text}`;

export function queryUserPrompt(p: QueryPromptInput): string {
  const parts = [
    `Shortcut name: ${p.name}`,
    `Workflow:\n${p.workflow}`,
    `API descriptions:\n${p.apiDescriptions.join('\n')}`,
    `Values the request must contain:\n${p.values.length ? p.values.map(valueLine).join('\n') : '(none)'}`,
  ];
  if (p.retry)
    parts.push(
      `Your previous request was: ${p.retry.query}\nIt left out:\n${p.retry.missed.map(valueLine).join('\n')}\nWrite a new request that states every listed value.`,
    );
  return parts.join('\n\n');
}

export const FILTER_SYSTEM_PROMPT = [
  'You check whether a user request states the values a shortcut presets.',
  'For each listed value, decide whether the request states it or clearly implies it.',
  'Reply with one JSON object only, no code fence: for each action number, an object mapping each of its parameter names to {"<parameter name>": "Essential parameter" if the request states or implies the value, otherwise "Not essential parameter", "reason": "<a few words>"}.',
].join(' ');

export function filterUserPrompt(query: string, values: readonly PresetValue[]): string {
  return `User request: ${query}\n\nValues:\n${values.map((v) => `- action ${v.pos}, ${v.name} = ${v.text}`).join('\n')}`;
}
