import { createHash } from 'node:crypto';
import type { Api } from '../schema.js';
import { apiInputJsonSchema, type JsonSchema } from './json-schema.js';
import { OPENAI_DESCRIPTION_MAX } from './openai-rules.js';
import { toStrictJsonSchema } from './strict-schema.js';

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** `<app>_<api>` as written before characters outside `[A-Za-z0-9_-]` are replaced. */
function rawToolName(api: Api): string {
  return api.name.startsWith(`${api.app}.`) || api.name === api.app ? api.name : `${api.app}_${api.name}`;
}

/**
 * A function name OpenAI accepts (`^[a-zA-Z0-9_-]{1,64}$`): `<app>_<api>` with other characters
 * replaced by `_`; names over 64 characters keep a hash suffix so they stay unique. Two APIs can
 * still get the same name (`账户查询` and `付费更新` both become `____`): `assignToolNames` settles that
 * over the set of APIs actually offered.
 */
export function toolNameOf(api: Api): string {
  const raw = rawToolName(api);
  const safe = raw.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (safe.length <= 64) return safe;
  return `${safe.slice(0, 55)}_${sha1(raw).slice(0, 8)}`;
}

/** The tool name of each API of a set, and back: the map a model's call is resolved with. */
export interface ToolNames {
  /** API id → tool name. */
  readonly nameOf: ReadonlyMap<string, string>;
  /** Tool name → API. */
  readonly apiOf: ReadonlyMap<string, Api>;
}

/**
 * One distinct name per API: `toolNameOf(api)`, except when several APIs of the set share it. Then
 * each of them whose name lost characters gets `_` + 8 hex digits of the SHA-1 of its API id (cut to
 * 64 characters); one that kept its name exactly keeps it. The result depends on the set, not on its
 * order, and `apiOf` reverses it. Never drops an API (an API listed twice is named once).
 */
export function assignToolNames(apis: readonly Api[]): ToolNames {
  const unique = [...new Map(apis.map((a) => [a.id, a])).values()];
  const groups = new Map<string, Api[]>();
  for (const api of unique) {
    const name = toolNameOf(api);
    groups.set(name, [...(groups.get(name) ?? []), api]);
  }
  const nameOf = new Map<string, string>();
  const apiOf = new Map<string, Api>();
  const assign = (api: Api, name: string) => {
    nameOf.set(api.id, name);
    apiOf.set(name, api);
  };
  const clashing: Api[] = [];
  for (const [name, group] of groups) {
    if (group.length === 1) assign(group[0]!, name);
    else
      for (const api of group) {
        const exact = rawToolName(api) === name;
        if (exact && group.filter((a) => rawToolName(a) === name).length === 1) assign(api, name);
        else clashing.push(api);
      }
  }
  // After the plain names, so a suffixed name never takes a name some API has on its own.
  for (const api of clashing.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const base = toolNameOf(api).slice(0, 55);
    let name = `${base}_${sha1(api.id).slice(0, 8)}`;
    for (let i = 2; apiOf.has(name); i++) name = `${base}_${sha1(`${api.id}#${i}`).slice(0, 8)}`;
    assign(api, name);
  }
  return { nameOf, apiOf };
}

const SHORTENED = ' …';

/**
 * The description a tool definition carries: the API's own, cut at a word under OpenAI's 1,024
 * characters when longer (920 ToolBench APIs, 9 ShortcutsBench ones). The catalog keeps the full text.
 */
export function toolDescriptionOf(api: Api): string {
  const text = api.description;
  if (text.length <= OPENAI_DESCRIPTION_MAX) return text;
  let cut = text.slice(0, OPENAI_DESCRIPTION_MAX - SHORTENED.length);
  const space = cut.search(/\s\S*$/);
  if (space > OPENAI_DESCRIPTION_MAX * 0.75) cut = cut.slice(0, space);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1); // never half a surrogate pair
  return `${cut.trimEnd()}${SHORTENED}`;
}

export interface OpenAiToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema; strict?: true };
}

export interface OpenAiToolsOptions {
  /**
   * Strict mode: `strict: true`, every object closed, every property required, optional ones
   * nullable, only the keywords strict mode supports.
   */
  strict?: boolean;
}

/** Tool definitions in the OpenAI Chat Completions `tools` format, one per API, names from `assignToolNames`. */
export function toOpenAiTools(apis: readonly Api[], opts: OpenAiToolsOptions = {}): OpenAiToolDefinition[] {
  const { nameOf } = assignToolNames(apis);
  return apis.map((api) => {
    const parameters = apiInputJsonSchema(api);
    const fn = { name: nameOf.get(api.id)!, description: toolDescriptionOf(api) };
    return {
      type: 'function',
      function: opts.strict
        ? { ...fn, parameters: toStrictJsonSchema(parameters), strict: true }
        : { ...fn, parameters },
    };
  });
}
