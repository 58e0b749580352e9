import { generateText, type LanguageModel } from 'ai';
import { fnv1a32 } from '../../shared/index.js';
import { actionClass } from './actions.js';
import { isJsonObject, isLosslessNumber, type Json, type JsonObject } from './json-value.js';
import { actionParts } from './length.js';
import {
  FILTER_SYSTEM_PROMPT,
  filterUserPrompt,
  type PresetValue,
  QUERY_SYSTEM_PROMPT,
  queryUserPrompt,
} from './query-prompts.js';
import { necessaryParams } from './shortcut-folder.js';
import { describeShortcut, formatShortcutListing } from './shortcut-listing.js';

/**
 * Writing the user query of a shortcut (docs/shortcutsbench.md, "Writing the queries"): ShortcutsBench
 * asked a model for a query built from the shortcut's actions, their API descriptions and its workflow
 * description, then kept the primitive/enum values a second model call found stated in it (§4.5).
 * Here both calls run per shortcut, a deterministic string check runs beside the second, and a query
 * that fails the acceptance rule is written again (up to `retries` times) before the shortcut is
 * recorded as rejected.
 */

/** A preset value with how it can be checked in text. */
export interface CheckedValue extends PresetValue {
  /** `bool`: no spelling of it can be found by string matching (`false` is "without sound"). */
  kind: 'text' | 'number' | 'bool';
}

type ParaTypes = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The §4.4 candidates of a shortcut's evaluated actions, in action order: the values its query has to state. */
function presetValues(actions: readonly Json[], paraTypes: ParaTypes): CheckedValue[] {
  const out: CheckedValue[] = [];
  const necessary = necessaryParams(actions, paraTypes);
  for (const [pos, params] of Object.entries(necessary).sort((a, b) => Number(a[0]) - Number(b[0]))) {
    const { id } = actionParts(actions[Number(pos)]);
    // an ask or gettext is history, never predicted nor scored (§5): its values need not be in the query
    if (actionClass(id!) !== 'evaluated') continue;
    for (const [name, value] of Object.entries(params as JsonObject)) {
      const declared = (paraTypes[id!]?.[name] ?? '').split('=')[0]!.trim();
      const kind =
        typeof value === 'boolean' || declared === 'Bool' ? 'bool' : declared === 'Enum' ? 'text' : 'number';
      out.push({ pos, api: id!, name, kind, text: valueText(value) });
    }
  }
  return out;
}

function valueText(v: Json): string {
  if (isLosslessNumber(v)) return v.value;
  return JSON.stringify(v);
}

/** The words a text value is matched by: the string itself (its JSON text minus the quotes). */
function plainValue(v: CheckedValue): string {
  return v.text.startsWith('"') ? (JSON.parse(v.text) as string) : v.text;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Does `query` contain `v` as written? Text: case-insensitive, whitespace runs as one space. A
 * number: its digits not inside a longer number (`0.5`, also `1` for a stored `1.0`). A true/false
 * setting: null, it has no literal spelling to look for.
 */
export function stringCheck(query: string, v: CheckedValue): boolean | null {
  if (v.kind === 'bool') return null;
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const raw = plainValue(v);
  if (v.kind === 'text') return norm(query).includes(norm(raw));
  const spellings = new Set([raw, String(Number(raw))].filter((s) => s !== 'NaN'));
  return [...spellings].some((s) =>
    new RegExp(`(?<![0-9.])${escapeRegExp(s)}(?![0-9]|\\.[0-9])`).test(query),
  );
}

/** `<pos>:<name>`, the key of one value in verdict maps. */
const keyOf = (v: PresetValue) => `${v.pos}:${v.name}`;

export interface FilterVerdict {
  /** Per value (`<pos>:<name>`): stated (true) or not; a value the reply did not judge is false. */
  stated: Record<string, boolean>;
  /** The reply in the shape of `significant_paras` (§4.5), the values asked about only. */
  significant: JsonObject;
}

/**
 * Reads the filter's reply: the text from the first `{` to the last `}` as JSON (as replies are
 * read in §8.5), then `reply[pos][name][name]` per value. Undefined when there is no JSON object.
 */
export function parseFilterReply(reply: string, values: readonly PresetValue[]): FilterVerdict | undefined {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed)) return undefined;
  const stated: Record<string, boolean> = {};
  const significant: JsonObject = {};
  for (const v of values) {
    const atPos = parsed[v.pos];
    const entry = isJsonObject(atPos) ? atPos[v.name] : undefined;
    const label = isJsonObject(entry) ? entry[v.name] : undefined;
    stated[keyOf(v)] = label === 'Essential parameter';
    if (isJsonObject(entry)) {
      if (!isJsonObject(significant[v.pos])) significant[v.pos] = {};
      (significant[v.pos] as JsonObject)[v.name] = entry;
    }
  }
  return { stated, significant };
}

/** One shortcut as the generator sees it. */
export interface QuerySource {
  /** The record key: the file name. */
  key: string;
  name: string;
  actions: readonly Json[];
}

export interface ShortcutsApiText {
  info: ReadonlyMap<string, string>;
  paraTypes: ParaTypes;
}

/** When a query is kept: the model filter says every value is stated, the string check finds them, or both. */
export const ACCEPT_RULES = ['both', 'filter', 'string'] as const;
export type AcceptRule = (typeof ACCEPT_RULES)[number];

export interface QueryAttempt {
  query: string;
  /** Per value (`<pos>:<name>`): found by the string check (null: a true/false setting). */
  stringCheck: Record<string, boolean | null>;
  /** The filter's reply as `significant_paras`; null without a model or with no value to check. */
  filter: JsonObject | null;
  /** Why the filter's reply could not be read. */
  filterError?: string;
  /** The values this attempt misses under the acceptance rule. */
  missed: string[];
}

export interface QueryOutcome {
  /** `accepted`: written; `rejected`: every attempt missed a value; `templated`: written without a model. */
  status: 'accepted' | 'rejected' | 'templated';
  query?: string;
  values: CheckedValue[];
  attempts: QueryAttempt[];
}

export interface QueryGeneratorOptions {
  /** Undefined: a templated query, labelled `templated`. */
  model?: LanguageModel;
  seed: number;
  /** Attempts after the first. */
  retries: number;
  accept: AcceptRule;
  /** Temperature of the query call (the filter runs at 0). */
  temperature?: number;
  signal?: AbortSignal;
}

/** `<api id>. <description>` per distinct API the shortcut calls (§7's "No description available." when unknown). */
function apiDescriptionList(actions: readonly Json[], info: ReadonlyMap<string, string>): string[] {
  const ids: string[] = [];
  for (const a of actions) {
    const { id } = actionParts(a);
    if (id !== undefined && actionClass(id) === 'evaluated' && !ids.includes(id)) ids.push(id);
  }
  return ids.map((id) => `${id}. ${(info.get(id) ?? 'No description available.').trimEnd()}`);
}

/** A parameter's label in its API description (`    WFHTTPMethod:  Method. …` → `Method`), else its name. */
function parameterLabel(info: string | undefined, name: string): string {
  const m = info && new RegExp(`^\\s+${escapeRegExp(name)}:[ \\t]+([^.\\n]+)`, 'm').exec(info);
  const label = m ? m[1]!.trim() : undefined;
  // an enum without a label starts with its value sentence: the parameter's name says more
  return label && label.length <= 40 && !label.startsWith('The value of') ? label : name;
}

/** The query written without a model: every value stated literally, plainly a template. */
function templatedQuery(name: string, values: readonly CheckedValue[], api: ShortcutsApiText): string {
  const parts = values.map((v) => {
    const label = parameterLabel(api.info.get(v.api), v.name);
    const value = v.kind === 'bool' ? (v.text === 'true' || v.text === '1' ? 'on' : 'off') : plainValue(v);
    return `${label} ${value}`;
  });
  return `Run my "${name}" shortcut${parts.length ? ` with ${parts.join(', ')}` : ''}.`;
}

/** One line of text: surrounding quotes dropped, lines joined. */
export function cleanQuery(reply: string): string {
  let t = reply.replace(/\s*\n\s*/g, ' ').trim();
  const m = /^(["'“])(.*)(["'”])$/.exec(t);
  if (m && m[2]!.length > 0 && !m[2]!.includes(m[1]!)) t = m[2]!.trim();
  return t;
}

/** The seed of one model call: the run's seed, the shortcut, the attempt and the call. */
const callSeed = (seed: number, key: string, attempt: number, call: 'query' | 'filter') =>
  fnv1a32(`${seed}:${key}:${attempt}:${call}`);

/** Writes and checks the query of one shortcut. Model errors propagate (the caller stops the run). */
export async function generateShortcutQuery(
  source: QuerySource,
  api: ShortcutsApiText,
  opts: QueryGeneratorOptions,
): Promise<QueryOutcome> {
  const values = presetValues(source.actions, api.paraTypes);
  const checkStrings = (query: string) =>
    Object.fromEntries(values.map((v) => [keyOf(v), stringCheck(query, v)]));
  if (!opts.model) {
    const query = templatedQuery(source.name, values, api);
    return {
      status: 'templated',
      query,
      values,
      attempts: [{ query, stringCheck: checkStrings(query), filter: null, missed: [] }],
    };
  }
  const workflow = formatShortcutListing(source.name, describeShortcut(source.actions));
  const apiDescriptions = apiDescriptionList(source.actions, api.info);
  const attempts: QueryAttempt[] = [];
  for (let attempt = 0; attempt <= opts.retries; attempt++) {
    const last = attempts.at(-1);
    const retry = last && {
      query: last.query,
      missed: values.filter((v) => last.missed.includes(keyOf(v))),
    };
    const reply = await generateText({
      model: opts.model,
      system: QUERY_SYSTEM_PROMPT,
      prompt: queryUserPrompt({
        name: source.name,
        workflow,
        apiDescriptions,
        values,
        ...(retry ? { retry } : {}),
      }),
      temperature: opts.temperature ?? 0.7,
      seed: callSeed(opts.seed, source.key, attempt, 'query'),
      abortSignal: opts.signal,
    });
    const query = cleanQuery(reply.text);
    const stringChecks = checkStrings(query);
    let filter: FilterVerdict | undefined;
    let filterError: string | undefined;
    if (values.length && opts.accept !== 'string') {
      const judged = await generateText({
        model: opts.model,
        system: FILTER_SYSTEM_PROMPT,
        prompt: filterUserPrompt(query, values),
        temperature: 0,
        seed: callSeed(opts.seed, source.key, attempt, 'filter'),
        abortSignal: opts.signal,
      });
      filter = parseFilterReply(judged.text, values);
      if (!filter) filterError = `the filter's reply holds no JSON object: ${judged.text.slice(0, 200)}`;
    }
    const missed = values
      .filter((v) => {
        const k = keyOf(v);
        const byFilter = opts.accept !== 'string' && !filter?.stated[k];
        const byString = opts.accept !== 'filter' && stringChecks[k] === false;
        return byFilter || byString;
      })
      .map(keyOf);
    if (query === '') missed.push('(empty query)');
    attempts.push({
      query,
      stringCheck: stringChecks,
      filter: filter ? filter.significant : null,
      ...(filterError ? { filterError } : {}),
      missed,
    });
    if (missed.length === 0) return { status: 'accepted', query, values, attempts };
  }
  return { status: 'rejected', values, attempts };
}
