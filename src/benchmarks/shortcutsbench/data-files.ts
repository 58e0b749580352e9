import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiaryError, InputInvalidError, readTextFile } from '../../shared/index.js';
import { isJsonObject, type Json, type JsonObject, parseJson } from './json-value.js';

/** The official files by role, upstream names and where a user gets each (docs/shortcutsbench.md §1). */
export const SHORTCUTS_FILES = {
  gold: {
    name: '1_final_detailed_records_filter_apis_leq_30.json',
    origin: 'a cloud download linked from the ShortcutsBench README (not in the repository)',
  },
  queries: {
    name: 'generated_success_queries.json',
    origin: 'a cloud download linked from the ShortcutsBench README (not in the repository)',
  },
  checkIntersection: {
    name: 'json-gpt-3.5-turbo_check_intersection_of_query_and_para_necessary.json',
    origin: 'the ShortcutsBench repository (EachSheep/ShortcutsBench; too large for ../shared/data)',
  },
  apiInfo: {
    name: 'all_api2info.json',
    origin: 'the ShortcutsBench repository (a copy is in ../shared/data/shortcutsbench)',
  },
  paraTypes: {
    name: 'all_api2paraname2paratype.json',
    origin: 'the ShortcutsBench repository (a copy is in ../shared/data/shortcutsbench)',
  },
  categories: {
    name: 'generated_success_categories.json',
    origin: 'the ShortcutsBench repository (a copy is in ../shared/data/shortcutsbench)',
  },
} as const;
export type ShortcutsFileRole = keyof typeof SHORTCUTS_FILES;

/** The path of one official file in `dir`; NOT_FOUND names the file and where it comes from. */
export function shortcutsFilePath(dir: string, role: ShortcutsFileRole): string {
  const { name, origin } = SHORTCUTS_FILES[role];
  const path = join(dir, name);
  if (!existsSync(path))
    throw new ApiaryError(
      'NOT_FOUND',
      `ShortcutsBench file ${name} is missing from ${dir} (it comes from ${origin})`,
    );
  return path;
}

/** Checks that every file of `roles` is in `dir`; one error lists all missing ones with their origins. */
export function requireShortcutsFiles(dir: string, roles: readonly ShortcutsFileRole[]): void {
  const missing = roles.filter((r) => !existsSync(join(dir, SHORTCUTS_FILES[r].name)));
  if (missing.length === 0) return;
  if (missing.length === 1) shortcutsFilePath(dir, missing[0]!);
  throw new ApiaryError(
    'NOT_FOUND',
    `${missing.length} ShortcutsBench files are missing from ${dir}: ${missing
      .map((r) => `${SHORTCUTS_FILES[r].name} (from ${SHORTCUTS_FILES[r].origin})`)
      .join('; ')}`,
  );
}

/**
 * Reads a whole official file with the lexeme-preserving parser (the gold file, hundreds of MB
 * upstream, is better streamed: `streamGoldShortcuts`).
 */
export function readShortcutsFile(dir: string, role: ShortcutsFileRole): { path: string; value: Json } {
  const path = shortcutsFilePath(dir, role);
  try {
    return { path, value: parseJson(readTextFile(path)) };
  } catch (e) {
    throw new InputInvalidError({ file: path }, `not valid JSON (${(e as Error).message})`, { cause: e });
  }
}

function expectObject(v: Json, file: string): JsonObject {
  if (!isJsonObject(v)) throw new InputInvalidError({ file }, 'expected a JSON object keyed by shortcut URL');
  return v;
}

/** URL → `significant_paras` of the check-intersection file (docs/shortcutsbench.md §4.5). */
export function loadSignificantParams(dir: string): Map<string, Json> {
  const { path, value } = readShortcutsFile(dir, 'checkIntersection');
  const out = new Map<string, Json>();
  for (const [url, entry] of Object.entries(expectObject(value, path))) {
    if (!isJsonObject(entry))
      throw new InputInvalidError({ file: path, record: url }, 'expected an object with significant_paras');
    out.set(url, entry.significant_paras ?? null);
  }
  return out;
}

/** URL → category of generated_success_categories.json (docs/shortcutsbench.md §4.6). */
export function loadCategories(dir: string): Map<string, string> {
  const { path, value } = readShortcutsFile(dir, 'categories');
  const out = new Map<string, string>();
  for (const [url, entry] of Object.entries(expectObject(value, path)))
    if (isJsonObject(entry) && typeof entry.category === 'string') out.set(url, entry.category);
  return out;
}

/**
 * The gold shortcuts (docs/shortcutsbench.md §2): URL → record, records with a null `shortcut` skipped, later
 * duplicates win.
 */
export function loadGoldShortcuts(dir: string): Map<string, JsonObject> {
  const { path, value } = readShortcutsFile(dir, 'gold');
  if (!Array.isArray(value)) throw new InputInvalidError({ file: path }, 'expected a JSON array of records');
  const out = new Map<string, JsonObject>();
  value.forEach((r, i) => {
    const record = checkedGoldRecord(r, i, path);
    if (record) out.set(record.URL as string, record);
  });
  return out;
}

/**
 * One element of the gold array checked (docs/shortcutsbench.md §2): a record with a URL and its action list,
 * or undefined for a record whose `shortcut` is null (skipped everywhere upstream).
 */
export function checkedGoldRecord(r: Json, i: number, path: string): JsonObject | undefined {
  if (!isJsonObject(r) || typeof r.URL !== 'string')
    throw new InputInvalidError({ file: path, record: i + 1, field: 'URL' }, 'expected a record with a URL');
  if (r.shortcut === null || r.shortcut === undefined) return undefined;
  if (!isJsonObject(r.shortcut) || !Array.isArray(r.shortcut.WFWorkflowActions))
    throw new InputInvalidError(
      { file: path, record: r.URL, field: 'shortcut.WFWorkflowActions' },
      'expected the list of actions',
    );
  return r;
}

/** URL → query (`GeneratedQuery.query`) of generated_success_queries.json (docs/shortcutsbench.md §3). */
export function loadQueries(dir: string): Map<string, string> {
  const { path, value } = readShortcutsFile(dir, 'queries');
  const out = new Map<string, string>();
  for (const [url, entry] of Object.entries(expectObject(value, path))) {
    const q =
      isJsonObject(entry) && isJsonObject(entry.GeneratedQuery) ? entry.GeneratedQuery.query : undefined;
    if (typeof q !== 'string')
      throw new InputInvalidError(
        { file: path, record: url, field: 'GeneratedQuery.query' },
        'expected a string',
      );
    out.set(url, q);
  }
  return out;
}
