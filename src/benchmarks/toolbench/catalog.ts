import { z } from 'zod';
import type { Api, App, Catalog, Parameter, ParamType } from '../../catalog/index.js';
import { type CatalogSource, primitive, requireDataFile } from '../../catalog/index.js';
import { checkJsonDepth, InputInvalidError, parseWith, readTextFile } from '../../shared/index.js';

/** A ToolBench parameter as RapidAPI describes it; `type` strings are free-form upper-case words. */
const ToolBenchParamSchema = z.looseObject({
  name: z.string(),
  type: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  default: z.unknown().optional(),
});
const ToolBenchApiSchema = z.looseObject({
  name: z.string(),
  description: z.string().nullable().optional(),
  method: z.string().optional(),
  required_parameters: z.array(ToolBenchParamSchema).optional(),
  optional_parameters: z.array(ToolBenchParamSchema).optional(),
});
/** One line of `tools.jsonl` (a StableToolBench tool JSON plus `category` and `tool_file`). */
const ToolBenchToolSchema = z.looseObject({
  category: z.string(),
  tool_file: z.string(),
  tool_name: z.string(),
  tool_description: z.string().nullable().optional(),
  api_list: z.array(ToolBenchApiSchema),
});
type ToolBenchParam = z.infer<typeof ToolBenchParamSchema>;

function toolBenchParamType(type: string | null | undefined): ParamType {
  const t = (type ?? '').toUpperCase();
  if (t === 'NUMBER') return primitive('number');
  if (t === 'BOOLEAN') return primitive('boolean');
  if (t.startsWith('DATE')) return primitive('date');
  if (t.startsWith('TIME')) return primitive('time');
  if (t === 'ARRAY') return { kind: 'array', items: primitive('any') };
  if (t === 'OBJECT') return { kind: 'entity', name: 'object' };
  if (t.startsWith('GEOPOINT')) return { kind: 'entity', name: 'geopoint' };
  if (t === 'BINARY') return primitive('file');
  return primitive('string'); // STRING, ENUM (RapidAPI lists no values), missing
}

function toParameter(p: ToolBenchParam, required: boolean): Parameter {
  const out: Parameter = { name: p.name, type: toolBenchParamType(p.type), required };
  if (p.description) out.description = p.description;
  if (p.default !== undefined && p.default !== null && p.default !== '') out.default = p.default;
  return out;
}

/**
 * `tools.jsonl` → catalog. App id = `<category>/<tool_file>` (unique; tool names are not).
 * A tool may list two APIs with the same name (177 cases): the later ones get ` [2]`, ` [3]`… so
 * that (app, name) stays a key. `toolName` and the original API name stay in the description-free
 * fields `app.name` and the id suffix.
 */
export function toolBenchCatalog(text: string, file: string): Catalog {
  const apps: App[] = [];
  const apis: Api[] = [];
  let lineNo = 0;
  for (const line of text.split('\n')) {
    lineNo++;
    if (!line.trim()) continue;
    checkJsonDepth(line, { file, record: `line ${lineNo}` });
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw new InputInvalidError(
        { file, record: `line ${lineNo}` },
        `not valid JSON (${(error as Error).message})`,
      );
    }
    const tool = parseWith(ToolBenchToolSchema, json, { file, record: `line ${lineNo}` });
    const appId = `${tool.category}/${tool.tool_file}`;
    apps.push({
      id: appId,
      name: tool.tool_name,
      description: tool.tool_description ?? '',
      owner: `tool:${appId}`,
      category: tool.category,
    });
    const seen = new Map<string, number>();
    for (const api of tool.api_list) {
      const n = (seen.get(api.name) ?? 0) + 1;
      seen.set(api.name, n);
      const name = n === 1 ? api.name : `${api.name} [${n}]`;
      apis.push({
        id: `${appId}/${name}`,
        app: appId,
        name,
        description: api.description ?? '',
        transactional: false,
        category: tool.category,
        parameters: [
          ...(api.required_parameters ?? []).map((p) => toParameter(p, true)),
          ...(api.optional_parameters ?? []).map((p) => toParameter(p, false)),
        ],
        outputs: [],
      });
    }
  }
  return { name: 'toolbench', apps, apis };
}

/** `--catalog toolbench`: ToolBench's RapidAPI tools, from toolbench/tools.jsonl (not bundled). */
export const toolBenchCatalogSource: CatalogSource = {
  name: 'toolbench',
  description: 'ToolBench: the RapidAPI tools of toolbench/tools.jsonl (not bundled; pass --data)',
  load: (opts) => {
    const path = requireDataFile(
      'toolbench/tools.jsonl',
      opts,
      'ToolBench tools are not bundled (no upstream licence): pass --data DIR containing toolbench/tools.jsonl',
    );
    return toolBenchCatalog(readTextFile(path), path);
  },
};
