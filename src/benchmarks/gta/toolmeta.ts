import { z } from 'zod';
import type { AgentTool } from '../../agents/index.js';
import { InputInvalidError, parseWith, readJsonFile } from '../../shared/index.js';

/** GTA's `toolmeta.json` and the tools the model is shown for a record (docs/gta.md,
 * "Official format: toolmeta.json and tool categories"). */

const GtaIoSchema = z.object({
  type: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  optional: z.boolean(),
  default: z.unknown().nullable(),
  filetype: z.string().nullable(),
});
const GtaToolMetaSchema = z.object({
  name: z.string(),
  description: z.string(),
  inputs: z.array(GtaIoSchema),
  outputs: z.array(GtaIoSchema),
});
export type GtaToolMeta = z.infer<typeof GtaToolMetaSchema>;

/** Reads `toolmeta.json` (object name → tool); errors name the file and the tool. */
export function loadGtaToolMeta(file: string): Map<string, GtaToolMeta> {
  const raw = parseWith(z.record(z.string(), z.unknown()), readJsonFile(file), { file });
  const tools = new Map<string, GtaToolMeta>();
  for (const [key, value] of Object.entries(raw)) {
    const tool = parseWith(GtaToolMetaSchema, value, { file, record: key });
    tools.set(tool.name, tool);
  }
  return tools;
}

/** AgentLego's type mapping (int → NUMBER, float → FLOAT, bool → BOOLEAN, else STRING) via AgentTool types. */
const AGENT_TYPE: Record<string, string> = { int: 'integer', float: 'number', bool: 'boolean' };

/** A toolmeta entry as the agent runtime's tool; a null input description stays absent (rendered `None`). */
export function gtaAgentTool(meta: GtaToolMeta): AgentTool {
  return {
    name: meta.name,
    description: meta.description,
    inputSchema: {},
    app: meta.name,
    api: meta.name,
    parameters: meta.inputs.map((p, i) => ({
      name: p.name ?? `input${i}`,
      required: !p.optional,
      type: AGENT_TYPE[p.type] ?? 'string',
      ...(p.description !== null ? { description: p.description } : {}),
    })),
  };
}

/** The record's tools in record order (only these are shown, not all 14); an unknown name is an error naming the record. */
export function recordTools(
  names: readonly string[],
  toolmeta: ReadonlyMap<string, GtaToolMeta>,
  where: { file: string; record: string },
): GtaToolMeta[] {
  return names.map((name, i) => {
    const meta = toolmeta.get(name);
    if (!meta)
      throw new InputInvalidError(
        { ...where, field: `tools[${i}].name` },
        `unknown tool "${name}" (toolmeta has ${[...toolmeta.keys()].join(', ')})`,
      );
    return meta;
  });
}
