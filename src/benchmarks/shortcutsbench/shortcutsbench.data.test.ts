import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachmentValue } from './actions.js';
import { loadCategories, loadGoldShortcuts } from './data-files.js';
import { isJsonObject, type Json, type JsonObject } from './json-value.js';
import { actionParts } from './length.js';
import { defaultOutputNames } from './normalise.js';
import { parseResultRecords } from './result-records.js';
import { SHORTCUT_CATEGORIES } from './summary.js';

const data = resolve(process.cwd(), '../shared/data/shortcutsbench');
const authored = join(import.meta.dirname, '__fixtures__', 'authored');
const read = (name: string) => JSON.parse(readFileSync(join(data, name), 'utf8')) as Record<string, unknown>;
const apiInfo = read('all_api2info.json') as Record<string, string>;
const paraTypes = read('all_api2paraname2paratype.json') as Record<string, Record<string, string>>;
const necessary = read('all_shortcuts_paras_that_is_necessary_in_query.json') as Record<
  string,
  Record<string, Record<string, unknown>>
>;
const BOOKKEEPING = new Set(['UUID', 'CustomOutputName', 'GroupingIdentifier', 'WFControlFlowMode']);

describe('ShortcutsBench data in ../shared/data (docs/shortcutsbench.md §1, §4)', () => {
  it('has 1414 APIs with descriptions and parameter types (the same ids), 718 with a default output name', () => {
    expect(Object.keys(apiInfo)).toHaveLength(1414);
    expect(Object.keys(paraTypes).sort()).toEqual(Object.keys(apiInfo).sort());
    expect(defaultOutputNames(paraTypes).size).toBe(718);
    expect(defaultOutputNames(paraTypes).get('is.workflow.actions.downloadurl')).toBe('Contents of URL');
    // every description starts with the API id and ends with a newline (docs/shortcutsbench.md §4.1)
    for (const [id, text] of Object.entries(apiInfo)) {
      expect(text.startsWith(`${id}(`)).toBe(true);
      expect(text.endsWith('\n')).toBe(true);
    }
  });

  it('has 3342 shortcuts in the necessary-parameter file, keyed by 0-based positions', () => {
    expect(Object.keys(necessary)).toHaveLength(3342);
    const example = necessary['https://www.icloud.com/shortcuts/0af81a63b5b24fe4a4459f4c329fd3e6'];
    // the spec quotes this entry abbreviated; the file also has ShowHeaders at 12
    expect(example?.['12']).toEqual({ ShowHeaders: true, WFHTTPMethod: 'GET' });
    expect(Object.keys(example ?? {})).toEqual(['3', '5', '6', '7', '8', '9', '12', '16']);
    expect(example?.['3']).toEqual({ WFURLComponent: 'Host' });
  });

  it('has 5205 categorised shortcuts; 5130 fall in the 8 canonical categories', () => {
    const categories = loadCategories(data);
    expect(categories.size).toBe(5205);
    const counts = Object.fromEntries(SHORTCUT_CATEGORIES.map((c) => [c, 0]));
    for (const c of categories.values()) if (c in counts) counts[c]!++;
    expect(counts).toEqual({
      'Productivity & Utilities': 3518,
      'Health & Fitness': 107,
      'Entertainment & Media': 876,
      'Lifestyle & Social': 76,
      'Education & Reference': 143,
      'Business & Finance': 29,
      'Development & API': 189,
      'Home & Smart Devices': 192,
    });
    expect(new Set(categories.values()).size).toBe(29);
  });
});

describe('the authored fixtures against the real API definitions', () => {
  const gold = loadGoldShortcuts(authored);
  const actions = [...gold.values()].flatMap(
    (r) => (r.shortcut as { WFWorkflowActions: Json[] }).WFWorkflowActions,
  );

  it('every gold API id and every candidate id exists in all_api2info.json', () => {
    const ids = new Set(actions.map((a) => actionParts(a).id!));
    expect(ids.size).toBe(44);
    expect([...ids].filter((id) => !(id in apiInfo))).toEqual([]);
    const file = join(authored, 'results.jsonl');
    const names = new Set(parseResultRecords(readFileSync(file, 'utf8'), file).flatMap((r) => r.api_names));
    expect([...names].filter((id) => !(id in apiInfo))).toEqual([]);
  });

  it('every gold parameter name is declared for its API (control-flow case keys aside)', () => {
    const undeclared = new Set<string>();
    for (const a of actions) {
      const { id, params } = actionParts(a);
      for (const name of Object.keys(params))
        if (!BOOKKEEPING.has(name) && !(name in paraTypes[id!]!)) undeclared.add(`${id}.${name}`);
    }
    // menu cases carry their title; the official type file does not list it
    expect([...undeclared]).toEqual(['is.workflow.actions.choosefrommenu.WFMenuItemTitle']);
  });

  it('output references carry the producing API default output name where it declares one', () => {
    const defaults = defaultOutputNames(paraTypes);
    const producer = new Map<string, string>();
    for (const a of actions) {
      const { id, params } = actionParts(a);
      if (typeof params.UUID === 'string') producer.set(params.UUID, id!);
    }
    const mismatched: string[] = [];
    const visit = (v: Json) => {
      if (Array.isArray(v)) v.forEach(visit);
      if (!isJsonObject(v)) return;
      const ref = (v as JsonObject).Type === 'ActionOutput' ? (v as JsonObject) : attachmentValue(v);
      if (ref?.Type === 'ActionOutput') {
        const api = producer.get(ref.OutputUUID as string)!;
        const want = defaults.get(api);
        // text.split declares no ThisIsReturnValue: its refs keep Shortcuts' own name
        if (want !== undefined && want !== ref.OutputName)
          mismatched.push(`${api}: ${String(ref.OutputName)} (default ${want})`);
      }
      Object.values(v).forEach(visit);
    };
    for (const a of actions) visit(actionParts(a).params);
    expect(mismatched).toEqual([]);
  });
});

describe('the docs/shortcutsbench.md §4.4 rule (necessaryParams) against the real necessary-parameter file', () => {
  it('accepts each of its 19,182 values under a non-String type some API declares for that parameter', async () => {
    const { isNecessaryCandidate } = await import('./shortcut-folder.js');
    const { parseJson } = await import('./json-value.js');
    const lossless = parseJson(
      readFileSync(join(data, 'all_shortcuts_paras_that_is_necessary_in_query.json'), 'utf8'),
    ) as JsonObject;
    const typesOf = new Map<string, Set<string>>(); // parameter name → declared scalar types
    for (const params of Object.values(paraTypes))
      for (const [name, t] of Object.entries(params)) {
        const set = typesOf.get(name) ?? new Set<string>();
        set.add(t.split('=')[0]!.trim());
        typesOf.set(name, set);
      }
    let values = 0;
    const rejected: string[] = [];
    for (const [url, byPos] of Object.entries(lossless))
      for (const [pos, params] of Object.entries(byPos as JsonObject))
        for (const [name, value] of Object.entries(params as JsonObject)) {
          values++;
          const types = [...(typesOf.get(name) ?? [])];
          if (!types.some((t) => isNecessaryCandidate(value, t))) rejected.push(`${url} ${pos} ${name}`);
        }
    expect(values).toBe(19182);
    expect(rejected).toEqual([]);
  });
});
