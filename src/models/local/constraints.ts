import type { LoadedLocalModel } from './llama-runtime.js';
import type { OfferedTool } from './local-prompt.js';

/** What a tool-call answer says: one call, a final answer, or text that is neither. */
export type ToolCallAnswer =
  | { kind: 'call'; name: string; input: unknown }
  | { kind: 'final'; text: string }
  | { kind: 'invalid'; text: string };

// Bridge until the grammar builder (src/models/grammar) lands: node-llama-cpp's JSON-schema grammar.
function schemaGbnf(loaded: LoadedLocalModel, schema: unknown): string {
  // biome-ignore lint/suspicious/noExplicitAny: the bridge hands any JSON Schema to node-llama-cpp
  return new loaded.lib.LlamaJsonSchemaGrammar(loaded.llama, schema as any).grammar;
}

/** GBNF of one `{"tool": name, "arguments": {...}}` object (or `{"final_answer": "..."}`). */
export function toolCallGbnf(
  loaded: LoadedLocalModel,
  tools: readonly OfferedTool[],
  allowFinalAnswer: boolean,
): string {
  const calls = tools.map((t) => ({
    type: 'object',
    properties: { tool: { const: t.name }, arguments: t.inputSchema },
  }));
  const final = { type: 'object', properties: { final_answer: { type: 'string' } } };
  return schemaGbnf(loaded, { oneOf: [...calls, ...(allowFinalAnswer ? [final] : [])] });
}

/** GBNF of a JSON value that fits `schema` (any JSON object without one). */
export function jsonSchemaGbnf(loaded: LoadedLocalModel, schema: unknown): string {
  return schemaGbnf(loaded, schema ?? { type: 'object', additionalProperties: true });
}

/** Reads a tool-call answer; anything else is `invalid` (a format error the caller sees as text). */
export function parseToolCallAnswer(text: string): ToolCallAnswer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', text };
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    if (typeof o.tool === 'string' && o.arguments && typeof o.arguments === 'object')
      return { kind: 'call', name: o.tool, input: o.arguments };
    if (typeof o.final_answer === 'string') return { kind: 'final', text: o.final_answer };
  }
  return { kind: 'invalid', text };
}
