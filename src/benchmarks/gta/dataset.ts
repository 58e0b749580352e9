import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  ApiaryError,
  InputInvalidError,
  isPyObject,
  type PyJson,
  type PyObject,
  parsePyJson,
  pyGet,
  pyString,
  readTextFile,
} from '../../shared/index.js';
import { pyClone, pyObject } from './py-value.js';

/**
 * GTA's `dataset.json` loaded as the official harness loads it (docs/gta.md, "Official
 * format: dataset.json and loading"): records
 * in file order, file paths made absolute, gold tool-call arguments that name an existing file
 * under the data root rewritten to that absolute path, tool messages reduced to role/name/content.
 * Dialogs stay Python-shaped JSON ({@link PyJson}) so prompts and prediction files print them
 * exactly as Python's `json.dumps` would (key order, `16.0`).
 */

export interface GtaFile {
  /** `files[i].type` ("image"). */
  type: string;
  /** Absolute path: data root joined with `files[i].path`. */
  path: string;
}

export interface GtaRecord {
  /** The key in `dataset.json` ("0" … "228"). */
  key: string;
  /** Names of the record's tools, in record order (the prompt lists only these). */
  tools: string[];
  files: GtaFile[];
  /** Dialog messages after the loader's rewrites (docs/gta.md, "Official format: dataset.json and loading"). */
  dialogs: PyObject[];
  /** `gt_answer`: whitelist object (objective), 3 strings (subjective) or null (image generation). */
  gtAnswer: PyJson;
}

export interface GtaDataset {
  /** Absolute data root (the folder holding `dataset.json`). */
  root: string;
  records: GtaRecord[];
}

/** Every file under `dir` as Python's os.walk lists it (`root/sub/name`, symlinked folders not entered). */
function walkFiles(dir: string, out: Set<string>): Set<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walkFiles(p, out);
    else if (entry.isSymbolicLink() && existsSync(p) && statSync(p).isDirectory()) continue;
    else out.add(p);
  }
  return out;
}

/** Python `os.path.join(a, b)` for two parts (no normalisation; an absolute `b` wins). */
function pyPathJoin(a: string, b: string): string {
  if (b.startsWith('/')) return b;
  return a === '' || a.endsWith('/') ? a + b : `${a}/${b}`;
}

type Where = { file: string; record: string };
const fail = (where: Where, field: string, problem: string): never => {
  throw new InputInvalidError({ ...where, field }, problem);
};

function stringArrayArray(v: PyJson | undefined, where: Where, field: string): void {
  if (!Array.isArray(v)) fail(where, field, 'expected a list of alias lists');
  (v as PyJson[]).forEach((group, i) => {
    if (!Array.isArray(group) || group.some((a) => typeof a !== 'string'))
      fail(where, `${field}[${i}]`, 'expected a list of strings');
  });
}

function checkGtAnswer(v: PyJson | undefined, where: Where): PyJson {
  if (v === undefined) return fail(where, 'gt_answer', 'missing (null for image-generation queries)');
  if (isPyObject(v)) {
    stringArrayArray(pyGet(v, 'whitelist'), where, 'gt_answer.whitelist');
    const black = pyGet(v, 'blacklist');
    if (black === undefined) fail(where, 'gt_answer.blacklist', 'missing (null when there is none)');
    if (black !== null) stringArrayArray(black, where, 'gt_answer.blacklist');
  } else if (Array.isArray(v)) {
    if (v.some((s) => typeof s !== 'string'))
      fail(where, 'gt_answer', 'expected a list of reference answers (strings)');
  } else if (v !== null) fail(where, 'gt_answer', 'expected a whitelist object, a list of strings or null');
  return v;
}

/** One dialog message checked and rewritten as the official loader does. */
function organizeDialog(m: PyJson, where: Where, field: string, root: string, files: Set<string>): PyObject {
  if (!isPyObject(m)) return fail(where, field, 'expected an object');
  const role = pyString(pyGet(m, 'role'));
  if (role === 'tool') {
    const name = pyGet(m, 'name');
    const content = pyGet(m, 'content');
    if (typeof name !== 'string') fail(where, `${field}.name`, 'expected the tool name');
    if (content === undefined || (content !== null && !isPyObject(content)))
      fail(where, `${field}.content`, 'expected {"type", "content"} or null');
    return pyObject([
      ['role', 'tool'],
      ['name', name as string],
      ['content', content as PyJson],
    ]);
  }
  if (role === 'assistant' && m.entries.has('tool_calls')) {
    const copy = pyClone(m) as PyObject;
    const calls = pyGet(copy, 'tool_calls');
    const fn = Array.isArray(calls) ? pyGet(calls[0], 'function') : undefined;
    if (typeof pyGet(fn, 'name') !== 'string')
      fail(where, `${field}.tool_calls[0].function.name`, 'expected the tool name');
    const args = pyGet(fn, 'arguments');
    if (!isPyObject(args))
      return fail(where, `${field}.tool_calls[0].function.arguments`, 'expected an object');
    for (const [name, value] of args.entries) {
      if (typeof value !== 'string') continue;
      const candidate = pyPathJoin(root, value);
      if (files.has(candidate)) args.entries.set(name, candidate);
    }
    return copy;
  }
  if (role === 'user' || role === 'assistant') {
    if (typeof pyGet(m, 'content') !== 'string') fail(where, `${field}.content`, 'expected a string');
    return m;
  }
  return fail(
    where,
    `${field}.role`,
    `expected "user", "assistant" or "tool", got ${JSON.stringify(role ?? null)}`,
  );
}

export interface LoadGtaOptions {
  /** Fail when a record's file is missing on disk (default true: step mode checks image arguments on disk). */
  checkFiles?: boolean;
}

/** Loads `<dataRoot>/dataset.json`; errors name the file, the record key and the field. */
export function loadGtaDataset(dataRoot: string, options: LoadGtaOptions = {}): GtaDataset {
  const root = resolve(dataRoot);
  const file = join(root, 'dataset.json');
  if (!existsSync(file))
    throw new ApiaryError(
      'NOT_FOUND',
      `no GTA dataset in ${root}: ${file} does not exist; run \`apiary data pull gta\`, then pass --data with the folder that holds dataset.json and image/`,
    );
  const parsed = parsePyJson(readTextFile(file), file);
  if (!isPyObject(parsed))
    throw new InputInvalidError({ file }, 'expected an object keyed by sample index ("0", "1", …)');
  const onDisk = walkFiles(root, new Set());
  const records: GtaRecord[] = [];
  for (const [key, item] of parsed.entries) {
    const where = { file, record: key };
    if (!/^-?\d+$/.test(key.trim())) fail(where, '(key)', 'sample keys are integers written as strings');
    if (!isPyObject(item)) fail(where, '(record)', 'expected an object');
    const toolsJson = pyGet(item, 'tools');
    if (!Array.isArray(toolsJson)) fail(where, 'tools', 'expected a list of tool metadata');
    const tools = (toolsJson as PyJson[]).map((t, i) => {
      const name = pyString(pyGet(t, 'name'));
      return name ?? fail(where, `tools[${i}].name`, 'expected a string');
    });
    const filesJson = pyGet(item, 'files');
    if (!Array.isArray(filesJson)) fail(where, 'files', 'expected a list of {type, path}');
    const files = (filesJson as PyJson[]).map((f, i) => {
      const type = pyString(pyGet(f, 'type'));
      const path = pyString(pyGet(f, 'path'));
      if (type === undefined) fail(where, `files[${i}].type`, 'expected a string');
      if (path === undefined) fail(where, `files[${i}].path`, 'expected a path relative to the data root');
      const abs = join(root, path as string);
      if (options.checkFiles !== false && !existsSync(abs))
        fail(where, `files[${i}].path`, `no such file: ${abs}`);
      return { type: type as string, path: abs };
    });
    const dialogsJson = pyGet(item, 'dialogs');
    if (!Array.isArray(dialogsJson) || dialogsJson.length === 0)
      fail(where, 'dialogs', 'expected a non-empty list of messages');
    const dialogs = (dialogsJson as PyJson[]).map((m, i) =>
      organizeDialog(m, where, `dialogs[${i}]`, root, onDisk),
    );
    records.push({ key, tools, files, dialogs, gtAnswer: checkGtAnswer(pyGet(item, 'gt_answer'), where) });
  }
  return { root, records };
}
