import { z } from 'zod';
import type { Api, App, Catalog, ParamType } from '../../catalog/index.js';
import { type CatalogSource, primitive, requireDataFile } from '../../catalog/index.js';
import { parseWith, readJsonFile } from '../../shared/index.js';

/** GTA's tool categories, used by its per-category tool-selection F1 (docs/gta.md, "Official format: toolmeta.json and tool categories"). */
export const GTA_TOOL_CATEGORIES: Readonly<
  Record<string, 'perception' | 'operation' | 'logic' | 'creativity'>
> = {
  OCR: 'perception',
  ImageDescription: 'perception',
  RegionAttributeDescription: 'perception',
  TextToBbox: 'perception',
  DrawBox: 'operation',
  AddText: 'operation',
  GoogleSearch: 'operation',
  Calculator: 'logic',
  Solver: 'logic',
  Plot: 'logic',
  MathOCR: 'logic',
  CountGivenObject: 'logic',
  TextToImage: 'creativity',
  ImageStylization: 'creativity',
};

const GtaIoSchema = z.object({
  type: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  optional: z.boolean(),
  default: z.unknown().nullable(),
  filetype: z.string().nullable(),
});
const GtaToolSchema = z.object({
  name: z.string(),
  description: z.string(),
  inputs: z.array(GtaIoSchema),
  outputs: z.array(GtaIoSchema),
});

const GTA_TYPES: Record<string, ParamType> = {
  text: primitive('string'),
  image: primitive('image'),
  int: primitive('integer'),
  float: primitive('number'),
  bool: primitive('boolean'),
};
const gtaType = (t: string): ParamType => GTA_TYPES[t] ?? { kind: 'entity', name: t };

/** `toolmeta.json` (object name → tool) → one app per tool, each owning one API of the same name. */
export function gtaCatalog(json: unknown, file: string): Catalog {
  const raw = parseWith(z.record(z.string(), z.unknown()), json, { file });
  const apps: App[] = [];
  const apis: Api[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const tool = parseWith(GtaToolSchema, value, { file, record: key });
    const category = GTA_TOOL_CATEGORIES[tool.name] ?? 'none';
    apps.push({
      id: tool.name,
      name: tool.name,
      description: tool.description,
      owner: `tool:${tool.name}`,
      category,
    });
    apis.push({
      id: `${tool.name}.${tool.name}`,
      app: tool.name,
      name: tool.name,
      description: tool.description,
      transactional: false,
      category,
      parameters: tool.inputs.map((input, i) => ({
        name: input.name ?? `input${i}`,
        type: gtaType(input.type),
        required: !input.optional,
        ...(input.default !== null ? { default: input.default } : {}),
        ...(input.description ? { description: input.description } : {}),
      })),
      outputs: tool.outputs.map((output, i) => ({
        name: output.name ?? (tool.outputs.length === 1 ? 'result' : `result${i}`),
        type: gtaType(output.type),
        ...(output.description ? { description: output.description } : {}),
      })),
    });
  }
  return { name: 'gta', apps, apis };
}

/** `--catalog gta`: GTA's 14 tools, from gta/toolmeta.json. */
export const gtaCatalogSource: CatalogSource = {
  name: 'gta',
  description: "GTA: the 14 tools of the benchmark's toolmeta.json",
  load: (opts) => {
    const path = requireDataFile('gta/toolmeta.json', opts, 'gta/toolmeta.json');
    return gtaCatalog(readJsonFile(path), path);
  },
};
