import { parseJsonWithinDepth } from '../../shared/index.js';
import type { ModelToolSpec } from '../generate.js';
import { gbnfLiteral } from './gbnf.js';
import { JsonGrammarBuilder, type JsonSchemaGrammarOptions } from './json-schema.js';

/**
 * Native tool calls under a grammar, for a local model with no tool-call format of its own: the
 * whole output is one JSON object, `{"tool": "<name>", "arguments": <that tool's arguments>}` or,
 * when allowed, `{"final_answer": "<text>"}`. The provider applies the grammar and reads the
 * output back with {@link parseToolCallOutput}.
 */

export interface ToolCallGrammarOptions extends JsonSchemaGrammarOptions {
  /** The model may answer `{"final_answer": "…"}` instead of calling a tool. */
  allowFinalAnswer: boolean;
  /** Longest final answer, in characters (default `maxStringLength`; at most 2,000, llama.cpp's repetition limit). */
  maxAnswerLength?: number;
}

/** Keywords that say what a value is: a schema with none of them (`{}`) means "any object" for tool arguments. */
const SHAPING = ['type', '$ref', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'properties'];

/** A tool's arguments are an object (the native protocol refuses anything else), even when its schema is `{}`. */
function argumentsSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return SHAPING.some((k) => k in schema) ? schema : { ...schema, type: 'object' };
}

/** GBNF for one tool call of the offered tools (or a final answer when allowed). */
export function toolCallGrammar(
  tools: Record<string, ModelToolSpec>,
  options: ToolCallGrammarOptions,
): string {
  const b = new JsonGrammarBuilder(options);
  const ws = b.ws;
  const alternatives = Object.entries(tools).map(([name, spec], i) => {
    const args = b.value(argumentsSchema(spec.inputSchema), `args-${i}-${name}`, spec.inputSchema);
    return `"{" ${ws} ${gbnfLiteral(`"tool":`)} ${ws} ${gbnfLiteral(JSON.stringify(name))} "," ${ws} ${gbnfLiteral(`"arguments":`)} ${ws} ${args} ${ws} "}"`;
  });
  const answerText = () =>
    options.maxAnswerLength !== undefined
      ? b.jsonString('final-answer-text', options.maxAnswerLength)
      : b.value({ type: 'string' }, 'final-answer-text');
  if (options.allowFinalAnswer) {
    const text = answerText();
    alternatives.push(`"{" ${ws} ${gbnfLiteral(`"final_answer":`)} ${ws} ${text} ${ws} "}"`);
  }
  if (alternatives.length === 0)
    alternatives.push(`"{" ${ws} ${gbnfLiteral('"final_answer":')} ${ws} ${answerText()} ${ws} "}"`);
  return b.grammar(alternatives.join(' | '));
}

export type ToolCallOutput =
  | { kind: 'call'; toolName: string; input: unknown }
  | { kind: 'answer'; text: string }
  | { kind: 'invalid'; reason: string };

const isRecord = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === 'object' && !Array.isArray(x);

/** Reads an output written under {@link toolCallGrammar} (or without it: never throws). */
export function parseToolCallOutput(text: string): ToolCallOutput {
  let value: unknown;
  try {
    value = parseJsonWithinDepth(text.trim(), { file: 'tool-call output' });
  } catch (err) {
    return { kind: 'invalid', reason: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!isRecord(value)) return { kind: 'invalid', reason: 'not a JSON object' };
  if (typeof value.tool === 'string') {
    if (!('arguments' in value)) return { kind: 'invalid', reason: 'a tool call without "arguments"' };
    return { kind: 'call', toolName: value.tool, input: value.arguments };
  }
  if (typeof value.final_answer === 'string') return { kind: 'answer', text: value.final_answer };
  return { kind: 'invalid', reason: 'neither {"tool", "arguments"} nor {"final_answer"}' };
}
