import { z } from 'zod';
import type { Api, App, Catalog, EnumValue, Parameter, ParamType } from '../../catalog/index.js';
import { type CatalogSource, findDataFile, primitive, requireDataFile } from '../../catalog/index.js';
import { parseWith, readJsonFile } from '../../shared/index.js';

/** The ShortcutsBench definition files (EachSheep/ShortcutsBench, Apache-2.0). */
interface ShortcutsBenchFiles {
  /** `all_api2info.json`: API id → signature + parameter docs + description. */
  api2info: unknown;
  /** `all_api2paraname2paratype.json`: API id → param → `"Type"` or `"Type = default"`. */
  api2paratype: unknown;
  /** `all_api2parasummary.json` (optional): API id → summary templates. */
  api2parasummary?: unknown;
  /** `2_all_detailed_identifiers.json` (optional): apps with their API ids. */
  identifiers?: unknown;
}

const RETURN_PREFIX = 'ThisIsReturnValue:';
const StringRecord = z.record(z.string(), z.string());
const IdentifiersSchema = z.array(
  z.looseObject({ AppName: z.string(), APIs: z.array(z.looseObject({ APIName: z.string() })) }),
);

/**
 * Parses one type string of `all_api2paraname2paratype.json`: `String`, `Bool`, `Integer`,
 * `Float`, `Enum`, `Name(Enum)`, `Name(Object)`, `array(T)`, `None`, other bare names.
 * Enum values come from the API's documentation text (`enumValues`).
 */
function parseShortcutsType(text: string, enumValues?: EnumValue[]): ParamType {
  const t = text.trim();
  switch (t) {
    case 'String':
      return primitive('string');
    case 'Bool':
      return primitive('boolean');
    case 'Integer':
      return primitive('integer');
    case 'Float':
      return primitive('number');
    case 'None':
    case '':
      return primitive('any');
  }
  const array = /^array\((.*)\)$/.exec(t);
  if (array) return { kind: 'array', items: parseShortcutsType(array[1]!, enumValues) };
  const wrapped = /^(.*)\((Enum|Object)\)$/.exec(t);
  if (t === 'Enum' || wrapped?.[2] === 'Enum') {
    if (enumValues?.length) return { kind: 'enum', values: enumValues };
    return { kind: 'entity', name: wrapped?.[1] || 'Enum' };
  }
  if (wrapped) return { kind: 'entity', name: wrapped[1] || 'Object' };
  return { kind: 'entity', name: t };
}

/** Splits `Type = default` at the first ` = ` and converts a simple default (quoted string, bool, number). */
function splitTypeAndDefault(text: string): { type: string; default?: unknown } {
  const at = text.indexOf(' = ');
  if (at < 0) return { type: text.trim() };
  const type = text.slice(0, at).trim();
  const raw = text.slice(at + 3).trim();
  if (/^".*"$/.test(raw)) return { type, default: raw.slice(1, -1) };
  if (raw === 'True' || raw === 'False') return { type, default: raw === 'True' };
  if (/^-?\d+(\.\d+)?$/.test(raw)) return { type, default: Number(raw) };
  return { type, default: raw }; // Python repr of a list or dict: kept as text
}

interface ParamDoc {
  description: string;
  enumValues: EnumValue[];
}

/** Reads the `Parameters:` block of an `all_api2info.json` entry. */
function parseParameterDocs(info: string): Map<string, ParamDoc> {
  const docs = new Map<string, ParamDoc>();
  const lines = info.split('\n');
  const start = lines.findIndex((l) => l.trim() === 'Parameters:');
  if (start < 0) return docs;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.startsWith('    ')) break;
    const m = /^ {4}([^:]+):\s+(.*)$/.exec(line);
    if (!m) continue;
    const description = m[2]!.trim();
    docs.set(m[1]!.trim(), { description, enumValues: parseEnumValues(description) });
  }
  return docs;
}

/** `…following values (…): "A", "b"(with B).` → [{value: A}, {value: b, label: with B}] */
function parseEnumValues(description: string): EnumValue[] {
  const marker = description.indexOf('must be one of the following values');
  if (marker < 0) return [];
  const colon = description.indexOf(': ', marker);
  if (colon < 0) return [];
  const out: EnumValue[] = [];
  const re = /"((?:[^"\\]|\\.)*)"(?:\(([^)]*)\))?(, |\.|$)/gy;
  re.lastIndex = colon + 2;
  for (let m = re.exec(description); m; m = re.exec(description)) {
    out.push(m[2] ? { value: m[1]!, label: m[2] } : { value: m[1]! });
    if (m[3] !== ', ') break;
  }
  return out;
}

/** The text after `Description:` (title and summary) of an info entry. */
function parseApiDescription(info: string): string {
  const m = /\nDescription:\n\s*([\s\S]*?)(\nParameterSummary:|$)/.exec(info);
  return (m?.[1] ?? info.split('\n')[0] ?? '').trim();
}

/** Fallback app of an API id: the built-in `is.workflow.actions`, else the bundle id before the last dot. */
function shortcutsAppOf(apiId: string): string {
  if (apiId.startsWith('is.workflow.actions.')) return 'is.workflow.actions';
  const dot = apiId.lastIndexOf('.');
  return dot > 0 ? apiId.slice(0, dot) : apiId;
}

/** All ShortcutsBench APIs (1,414), typed, grouped into apps by bundle identifier. */
function shortcutsBenchCatalog(files: ShortcutsBenchFiles, fileNames = defaultFileNames): Catalog {
  const info = parseWith(StringRecord, files.api2info, { file: fileNames.api2info });
  const types = parseWith(z.record(z.string(), StringRecord), files.api2paratype, {
    file: fileNames.api2paratype,
  });
  const appOf = new Map<string, string>();
  if (files.identifiers !== undefined) {
    for (const app of parseWith(IdentifiersSchema, files.identifiers, { file: fileNames.identifiers }))
      for (const api of app.APIs) appOf.set(api.APIName, app.AppName);
  }
  const apis: Api[] = [];
  const appIds = new Set<string>();
  for (const [id, paramTypes] of Object.entries(types)) {
    const text = info[id] ?? '';
    const docs = parseParameterDocs(text);
    const parameters: Parameter[] = [];
    const outputs: Api['outputs'] = [];
    for (const [name, typeText] of Object.entries(paramTypes)) {
      if (name.startsWith(RETURN_PREFIX)) {
        outputs.push({ name: name.slice(RETURN_PREFIX.length), type: parseShortcutsType(typeText) });
        continue;
      }
      const doc = docs.get(name);
      const split = splitTypeAndDefault(typeText);
      const p: Parameter = { name, type: parseShortcutsType(split.type, doc?.enumValues), required: false };
      if ('default' in split) p.default = split.default;
      if (doc?.description) p.description = doc.description;
      parameters.push(p);
    }
    const app = appOf.get(id) ?? shortcutsAppOf(id);
    appIds.add(app);
    apis.push({
      id,
      app,
      name: id,
      description: parseApiDescription(text),
      transactional: false,
      parameters,
      outputs,
    });
  }
  const apps: App[] = [...appIds].map((id) => ({
    id,
    name: id === 'is.workflow.actions' ? 'Shortcuts (built-in actions)' : id,
    description: id === 'is.workflow.actions' ? 'Apple Shortcuts built-in actions' : `Actions of ${id}`,
    owner: `app:${id}`,
  }));
  return { name: 'shortcuts', apps, apis };
}

const defaultFileNames = {
  api2info: 'all_api2info.json',
  api2paratype: 'all_api2paraname2paratype.json',
  identifiers: '2_all_detailed_identifiers.json',
};

/** `--catalog shortcuts` (or `shortcutsbench`): the Apple Shortcuts actions, from the API definition files. */
export const shortcutsCatalogSource: CatalogSource = {
  name: 'shortcuts',
  aliases: ['shortcutsbench'],
  description: 'ShortcutsBench: the Apple Shortcuts actions of its API definition files',
  load: (opts) => {
    const f = (name: string) => requireDataFile(`shortcutsbench/${name}`, opts, `shortcutsbench/${name}`);
    const optional = (name: string) => {
      const p = findDataFile(`shortcutsbench/${name}`, opts.dataDir);
      return p ? readJsonFile(p) : undefined;
    };
    return shortcutsBenchCatalog({
      api2info: readJsonFile(f('all_api2info.json')),
      api2paratype: readJsonFile(f('all_api2paraname2paratype.json')),
      identifiers: optional('2_all_detailed_identifiers.json'),
    });
  },
};
