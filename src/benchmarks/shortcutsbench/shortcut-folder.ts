import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ApiaryError, InputInvalidError } from '../../shared/index.js';
import { isJsonObject, isLosslessNumber, type Json, type JsonObject } from './json-value.js';
import { actionParts } from './length.js';
import { readShortcutFile } from './shortcut-file.js';

/**
 * A folder of a user's own shortcuts as a ShortcutsBench dataset. Each `NAME.shortcut` or
 * `NAME.plist` needs a sidecar `NAME.query.txt` holding the user's request; the records are built
 * in the official formats (gold record, query entry, check-intersection entry) so the task and the
 * official scripts read them like the downloaded files.
 */

const SHORTCUT_EXTENSIONS = ['.shortcut', '.plist'] as const;
const QUERY_SIDECAR = '.query.txt';

export interface FolderShortcut {
  /** The record key: the file name inside the folder (stands where the official URL does). */
  url: string;
  file: string;
  /** The query sidecar `NAME.query.txt`. */
  sidecar: string;
  name: string;
  query: string;
  actions: Json[];
}

/** The shortcut files of `folder` (sorted by name) with their queries; errors name the file. */
export function readShortcutFolder(folder: string): FolderShortcut[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new ApiaryError('NOT_FOUND', `shortcut folder ${folder} does not exist or is not a folder`);
  const files = readdirSync(folder)
    .filter((f) => SHORTCUT_EXTENSIONS.some((e) => f.toLowerCase().endsWith(e)))
    .sort();
  if (files.length === 0)
    throw new ApiaryError(
      'INPUT_INVALID',
      `${folder} holds no .shortcut or .plist files (each needs a NAME${QUERY_SIDECAR} with its query next to it)`,
    );
  return files.map((f) => {
    const file = join(folder, f);
    const imported = readShortcutFile(file);
    const sidecar = join(folder, `${f.replace(/\.(shortcut|plist)$/i, '')}${QUERY_SIDECAR}`);
    if (!existsSync(sidecar))
      throw new InputInvalidError(
        { file: sidecar },
        `missing: the query for ${f} (one line saying what the user asks the shortcut to do)`,
      );
    const query = readFileSync(sidecar, 'utf8').trim();
    if (query === '') throw new InputInvalidError({ file: sidecar }, `empty: write the query for ${f}`);
    return { url: f, file, sidecar, name: imported.name, query, actions: imported.actions };
  });
}

const P = 'is.workflow.actions.';
const NOT_CANDIDATES = new Set(
  [
    'comment',
    'alert',
    'conditional',
    'choosefrommenu',
    'repeat.count',
    'repeat.each',
    'getvariable',
    'setvariable',
    'appendvariable',
  ].map((s) => P + s),
);
const DROPPED_KEYS = new Set([
  'UUID',
  'CustomOutputName',
  'WFControlFlowMode',
  'GroupingIdentifier',
  'ShowWhenRun',
  'OpenWhenRun',
  'AppIntentDescriptor',
]);

/** A declared parameter's scalar type: text before the first `=`, trimmed (docs/shortcutsbench.md §4.2). */
function scalarType(declared: string): string {
  return declared.split('=')[0]!.trim();
}

/** Python's type of a JSON scalar as the docs/shortcutsbench.md §4.4 rule branches on it. */
function pyType(v: Json): 'int' | 'float' | 'bool' | 'str' | undefined {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (isLosslessNumber(v)) return /[.eE]/.test(v.value) ? 'float' : 'int';
  return undefined;
}

const isDigits = (s: string) => /^[0-9]+$/.test(s);

/**
 * One parameter of docs/shortcutsbench.md §4.4 step 3: is `(name, value)` a candidate essential parameter?
 */
export function isNecessaryCandidate(value: Json, type: string): boolean {
  const t = pyType(value);
  if (t === undefined) return false;
  if (t === 'str' && (value as string).length > 300) return false;
  const isNumber = t === 'int' || t === 'float' || t === 'bool'; // Python bools are ints
  if (type === 'Integer') return isNumber || (t === 'str' && isDigits(value as string));
  if (type === 'Float') return isNumber || (t === 'str' && isDigits((value as string).replace('.', '')));
  if (type === 'Bool') {
    if (t === 'bool') return true;
    if (t === 'str') return ['true', 'false'].includes((value as string).toLowerCase());
    const n = Number((value as { value: string }).value);
    return n === 0 || n === 1;
  }
  if (type === 'Enum') return t === 'str';
  return false;
}

/**
 * docs/shortcutsbench.md §4.4: the primitive/enum parameters of a shortcut the LLM filter was offered, keyed
 * by the 0-based action position (string) — `all_shortcuts_paras_that_is_necessary_in_query` for one URL.
 */
export function necessaryParams(
  actions: readonly Json[],
  paraTypes: Readonly<Record<string, Readonly<Record<string, string>>>>,
): JsonObject {
  const out: JsonObject = {};
  actions.forEach((a, i) => {
    const { id, params } = actionParts(a);
    if (id === undefined || NOT_CANDIDATES.has(id)) return;
    const declared = paraTypes[id];
    if (!declared) return;
    const kept: JsonObject = {};
    for (const [name, value] of Object.entries(params)) {
      if (DROPPED_KEYS.has(name) || !Object.hasOwn(declared, name)) continue;
      if (isNecessaryCandidate(value, scalarType(declared[name]!))) kept[name] = value;
    }
    if (Object.keys(kept).length) out[String(i)] = kept;
  });
  return out;
}

export interface OfficialFolderFiles {
  /** `1_final_detailed_records_filter_apis_leq_30.json` */
  gold: JsonObject[];
  /** `generated_success_queries.json` */
  queries: JsonObject;
  /** `json-gpt-3.5-turbo_check_intersection_of_query_and_para_necessary.json` */
  checkIntersection: JsonObject;
}

/** Marks every docs/shortcutsbench.md §4.4 candidate essential: no LLM filter runs on a user's folder. */
const ESSENTIAL_REASON = 'apiary: every primitive/enum parameter of a user shortcut counts (no LLM filter)';

/** The folder's shortcuts in the three official formats (docs/shortcutsbench.md §2, §3, §4.5). */
export function folderOfficialFiles(
  items: readonly FolderShortcut[],
  paraTypes: Readonly<Record<string, Readonly<Record<string, string>>>>,
): OfficialFolderFiles {
  const gold: JsonObject[] = [];
  const queries: JsonObject = {};
  const checkIntersection: JsonObject = {};
  for (const s of items) {
    gold.push({
      URL: s.url,
      shortcut: { WFWorkflowActions: s.actions },
      records: { fields: { name: { value: s.name } } },
    });
    queries[s.url] = {
      GeneratedQuery: { shortcut_name: s.name, shortcut_description: '', query: s.query },
      RecordName: s.name,
    };
    const necessary = necessaryParams(s.actions, paraTypes);
    const significant: JsonObject = {};
    for (const [pos, params] of Object.entries(necessary)) {
      const marks: JsonObject = {};
      for (const name of Object.keys(params as JsonObject))
        marks[name] = { [name]: 'Essential parameter', reason: ESSENTIAL_REASON };
      significant[pos] = marks;
    }
    checkIntersection[s.url] = {
      query: s.query,
      api_desc: '',
      necessary_paras: necessary,
      significant_paras: significant,
    };
  }
  return { gold, queries, checkIntersection };
}

/** `significant_paras` per record key, as the scorer reads it. */
export function folderSignificantParams(files: OfficialFolderFiles): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const [url, entry] of Object.entries(files.checkIntersection))
    out.set(url, isJsonObject(entry) ? (entry.significant_paras ?? null) : null);
  return out;
}
