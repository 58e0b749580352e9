import { jsonSchemaGrammar } from '../grammar/json-schema.js';
import { parseToolCallOutput, toolCallGrammar } from '../grammar/tool-call.js';
import type { OfferedTool } from './local-prompt.js';

/**
 * Bounds that make every constrained output end: a random or weak model may never close a string
 * or an array on its own. 128 is the longest bound the grammar builder spells out.
 */
const TERMINATING = { maxStringLength: 128, maxItems: 16 } as const;
/** A final answer is the user's answer, not an argument: long enough for a real model's reply, still bounded. */
const MAX_FINAL_ANSWER_CHARS = 1500;

type Schema = Record<string, unknown>;
const schemaOf = (x: unknown): Schema => (x && typeof x === 'object' ? (x as Schema) : {});

/** GBNF of one `{"tool": name, "arguments": {...}}` object (or `{"final_answer": "..."}`). */
export function toolCallGbnf(tools: readonly OfferedTool[], allowFinalAnswer: boolean): string {
  const specs = Object.fromEntries(
    tools.map((t) => [
      t.name,
      { ...(t.description ? { description: t.description } : {}), inputSchema: schemaOf(t.inputSchema) },
    ]),
  );
  return toolCallGrammar(specs, {
    ...TERMINATING,
    allowFinalAnswer,
    maxAnswerLength: MAX_FINAL_ANSWER_CHARS,
  });
}

/** GBNF of a JSON value that fits `schema` (any JSON object without one). */
export function jsonSchemaGbnf(schema: unknown): string {
  return jsonSchemaGrammar(schema === undefined ? { type: 'object' } : schemaOf(schema), TERMINATING);
}

function unescaped(jsonStringBody: string): string {
  try {
    return JSON.parse(`"${jsonStringBody}"`) as string;
  } catch {
    return jsonStringBody;
  }
}

/** A call cut off by the token limit: it starts as a call, its name or arguments unfinished. */
const CUT_CALL = /^\s*\{\s*"tool"\s*:\s*"((?:[^"\\]|\\.)*)"?\s*,?\s*(?:"arguments"\s*:\s*)?([\s\S]*)$/;

/**
 * A tool-call answer as content: one call (arguments as JSON text), a final answer's text, or the
 * raw text. A call the token limit cut off stays a call with its unfinished arguments, so the
 * caller sees a call it cannot decode (a counted decode failure) rather than a final answer.
 */
export function readToolCallAnswer(
  text: string,
): { kind: 'call'; name: string; inputText: string } | { kind: 'text'; text: string } {
  const out = parseToolCallOutput(text);
  if (out.kind === 'call') return { kind: 'call', name: out.toolName, inputText: JSON.stringify(out.input) };
  if (out.kind === 'answer') return { kind: 'text', text: out.text };
  const cut = CUT_CALL.exec(text);
  // empty arguments would read as `{}`, a valid call: the whole unfinished text keeps it undecodable
  if (cut) return { kind: 'call', name: unescaped(cut[1]!), inputText: cut[2] || text };
  return { kind: 'text', text };
}
