import {
  JsonGrammarBuilder,
  type JsonSchemaGrammarOptions,
  type OutputConstraint,
} from '../../models/index.js';
import type { ShortcutStep, ShortcutsApis } from './teacher-forced.js';

/**
 * The ShortcutsBench JSON action under a grammar: one object, `{"Thought": "…",
 * "WFWorkflowActionIdentifier": "<a candidate API>", "WFWorkflowActionParameters": {…}}`, or the
 * same with `"Finish"` and `{}`, as the system prompt asks (src/benchmarks/shortcutsbench/prompts.ts).
 * The parameters are that API's (all_api2paraname2paratype), each optional, in the file's order;
 * a value is a primitive of the parameter's type (`String`, `Bool`, `Integer`, `Float`,
 * `array(T)`; others as strings) or one of the prompt's reference forms 2–4 (an earlier action's
 * output by UUID, a system input, a named variable). Not generated: the text-with-attachments and
 * aggrandizement forms (5, 6), and control-flow grouping fields.
 */

const RETURN_VALUE_PREFIX = 'ThisIsReturnValue:';
const UUID = '^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$';
const FINISH = 'Finish';

/** The prompt's reference forms 2–4, in its key order. */
const REFERENCE: Record<string, unknown> = {
  type: 'object',
  properties: {
    Value: {
      anyOf: [
        {
          type: 'object',
          properties: {
            OutputUUID: { type: 'string', pattern: UUID },
            Type: { const: 'ActionOutput' },
            OutputName: { type: 'string' },
          },
          required: ['OutputUUID', 'Type', 'OutputName'],
        },
        {
          type: 'object',
          properties: {
            Type: { enum: ['ExtensionInput', 'CurrentDate', 'Clipboard', 'DeviceDetails', 'Ask'] },
          },
          required: ['Type'],
        },
        {
          type: 'object',
          properties: { VariableName: { type: 'string' }, Type: { const: 'Variable' } },
          required: ['VariableName', 'Type'],
        },
      ],
    },
    WFSerializationType: { const: 'WFTextTokenAttachment' },
  },
  required: ['Value', 'WFSerializationType'],
};

/** A primitive schema of one type string (`Type` or `Type = default`). */
function primitiveSchema(typeText: string): Record<string, unknown> {
  const type = typeText.split(' = ')[0]!.trim();
  const array = /^array\((.*)\)$/.exec(type);
  if (array) return { type: 'array', items: primitiveSchema(array[1]!) };
  const json: Record<string, string> = {
    String: 'string',
    Bool: 'boolean',
    Integer: 'integer',
    Float: 'number',
  };
  return { type: json[type] ?? 'string' };
}

/** The JSON Schema of one API's `WFWorkflowActionParameters`. */
function shortcutsParametersSchema(paraTypes: Readonly<Record<string, string>>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(paraTypes))
    if (!name.startsWith(RETURN_VALUE_PREFIX))
      properties[name] = { anyOf: [primitiveSchema(type), REFERENCE] };
  return { type: 'object', properties, additionalProperties: false };
}

/** The JSON Schema of one action of `id` (or of Finish). */
export function shortcutsActionSchema(
  id: string,
  paraTypes: Readonly<Record<string, string>>,
): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      Thought: { type: 'string' },
      WFWorkflowActionIdentifier: { const: id },
      WFWorkflowActionParameters:
        id === FINISH
          ? { type: 'object', additionalProperties: false }
          : shortcutsParametersSchema(paraTypes),
    },
    required: ['Thought', 'WFWorkflowActionIdentifier', 'WFWorkflowActionParameters'],
    additionalProperties: false,
  };
}

/** The grammar of one reply: an action of one of the candidates, or Finish. */
export function shortcutsActionGrammar(
  candidates: readonly string[],
  paraTypes: ShortcutsApis['paraTypes'],
  options: JsonSchemaGrammarOptions = {},
): string {
  const b = new JsonGrammarBuilder(options);
  const ids = [...new Set([...candidates, FINISH])];
  const actions = ids.map((id, i) => b.value(shortcutsActionSchema(id, paraTypes[id] ?? {}), `action-${i}`));
  return b.grammar(actions.join(' | '));
}

/** A stepper's constraint for a step (memoised by its candidates: every step of a shortcut offers the same), over these API files. */
export function shortcutsActionConstraint(apis: ShortcutsApis): (step: ShortcutStep) => OutputConstraint {
  const cache = new Map<string, OutputConstraint>();
  return (step) => {
    const ids = step.candidates.promptOrder;
    const key = ids.join('\u0000');
    let constraint = cache.get(key);
    if (!constraint) {
      if (cache.size >= 64) cache.clear();
      const grammar = shortcutsActionGrammar(ids, apis.paraTypes, { maxStringLength: 200, maxItems: 16 });
      constraint = { name: 'shortcuts-json-action', grammar };
      cache.set(key, constraint);
    }
    return constraint;
  };
}
