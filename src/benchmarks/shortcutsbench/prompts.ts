import { dumpsPythonJson, isJsonObject, type Json, type JsonObject } from './json-value.js';

/**
 * The teacher-forced prompts (docs/shortcutsbench.md §8.2). Literal markers are upstream's (the candidate
 * entries, the Python-list rendering of the ids, the history JSON, the user-prompt sentences); the rest of
 * the system prompt is in our words.
 */

/** One candidate API as the system prompt lists it. */
export interface PromptCandidate {
  id: string;
  /** all_api2info text (ends with a newline upstream), or the upstream fallback. */
  description: string;
}

export const NO_DESCRIPTION = 'No description available.';
const HISTORY_STRING_LIMIT = 300;

/** Python `repr(str)`: single quotes unless the text has a `'` and no `"`. */
function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return out + quote;
}

/** Python `str(list_of_str)`, e.g. `['a', 'b']`. */
export function pyListRepr(items: readonly string[]): string {
  return `[${items.map(pyStrRepr).join(', ')}]`;
}

/** Strings longer than 300 characters (code points, as Python counts) become their first 300 + `...`. */
function truncateStrings(v: Json): Json {
  if (typeof v === 'string') {
    const chars = Array.from(v);
    return chars.length > HISTORY_STRING_LIMIT ? `${chars.slice(0, HISTORY_STRING_LIMIT).join('')}...` : v;
  }
  if (Array.isArray(v)) return v.map(truncateStrings);
  if (isJsonObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = truncateStrings(x);
    return out;
  }
  return v;
}

/** The history block: `json.dumps(history, indent=2)` (ASCII escapes) after the 300-character cut. */
function renderHistory(history: readonly JsonObject[]): string {
  return dumpsPythonJson(truncateStrings([...history]), 2);
}

/** `"<k>. <api_id>. <description>"`, k from 1, joined by `"\n"` (candidates already sorted). */
function renderCandidateList(candidates: readonly PromptCandidate[]): string {
  return candidates.map((c, i) => `${i + 1}. ${c.id}. ${c.description}`).join('\n');
}

/** The system prompt for one shortcut (the candidates sorted by id, as upstream sorts them). */
export function shortcutsSystemPrompt(candidates: readonly PromptCandidate[]): string {
  const ids = candidates.map((c) => c.id);
  return [
    'You are AutoGPT, an agent that builds an Apple Shortcut for the user one action at a time.',
    'At each step you think about what the shortcut still has to do, then call exactly one API from the list below.',
    '',
    'The APIs you may call:',
    renderCandidateList(candidates),
    '',
    'Reply with one JSON object with these keys:',
    '"Thought": your reasoning for this step, in one or two sentences.',
    `"WFWorkflowActionIdentifier": the API to call; it must be one of ${pyListRepr(ids)}.`,
    '"WFWorkflowActionParameters": an object mapping each parameter name to its value.',
    '',
    'A parameter value takes one of these forms:',
    '1. A primitive or enum value: a string, number or boolean, e.g. "WFHTTPMethod": "GET".',
    '2. The output of a previous action: {"Value": {"OutputUUID": "<UUID of that action>", "Type": "ActionOutput", "OutputName": "<its output name>"}, "WFSerializationType": "WFTextTokenAttachment"}.',
    '3. A system or user input: {"Value": {"Type": "Ask"}, "WFSerializationType": "WFTextTokenAttachment"}, where Type is one of ExtensionInput, CurrentDate, Clipboard, DeviceDetails, Ask.',
    '4. A named variable: {"Value": {"VariableName": "<name>", "Type": "Variable"}, "WFSerializationType": "WFTextTokenAttachment"}.',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder the model must write
    '5. Text with embedded values: {"Value": {"string": "Weather in ${Value1}", "attachmentsByRange": {"Value1": {"OutputUUID": "<UUID>", "Type": "ActionOutput", "OutputName": "<name>"}}}, "WFSerializationType": "WFTextTokenString"}.',
    '6. A property or dictionary value of a reference, through aggrandizements: add "Aggrandizements": [{"Type": "WFPropertyVariableAggrandizement", "PropertyName": "<property>"}] or [{"Type": "WFDictionaryValueVariableAggrandizement", "DictionaryKey": "<key>"}] inside "Value".',
    '',
    'is.workflow.actions.conditional, is.workflow.actions.choosefrommenu, is.workflow.actions.repeat.count and is.workflow.actions.repeat.each open and close blocks: all markers of one block share a "GroupingIdentifier", and "WFControlFlowMode" is 0 for the start, 1 for an else or a menu case, 2 for the end.',
    'When the task is complete, reply {"WFWorkflowActionIdentifier": "Finish", "WFWorkflowActionParameters": {}}.',
    'Output only the JSON object: no code fence, no text before or after it.',
  ].join('\n');
}

/** The user prompt: the query, the gold history so far, and the closing instruction. */
export function shortcutsUserPrompt(query: string, history: readonly JsonObject[]): string {
  return (
    `\nThe user query is: ${query}\n\nThe history actions and observations are as follows:\n` +
    `${renderHistory(history)}\n\n` +
    'Continue from this history with the next action. Output only the JSON format described above, without a code fence. ' +
    'Output only one action at a time. Output only one action at a time. Output only one action at a time.'
  );
}
