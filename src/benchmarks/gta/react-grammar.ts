import type { AgentTool } from '../../agents/index.js';
import {
  gbnfLiteral,
  JsonGrammarBuilder,
  type JsonSchemaGrammarOptions,
  type OutputConstraint,
} from '../../models/index.js';

/**
 * Lagent's ReAct reply under a grammar (the format of src/agents/protocols/react.ts, which
 * `parseReactReply` reads): `Thought:<one line>\n` then either `Action:<an offered tool>\nAction
 * Input:<its arguments as JSON>` or `Final Answer:<one line>`. The thought never holds a `:`, so it
 * cannot contain the markers `Action:`, `Thought:` or `Final Answer:` the parser splits on.
 */
export interface ReactGrammarOptions extends JsonSchemaGrammarOptions {
  /** Longest thought (default 200 characters). */
  maxThoughtLength?: number;
  /** Longest final answer (default 400 characters). */
  maxAnswerLength?: number;
}

const LAGENT_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * The JSON Schema of a tool's arguments: its own when it has properties (end to end, from the
 * catalog), else built from its parameters as Lagent checks them (known names, required ones).
 */
export function reactArgumentsSchema(tool: AgentTool): Record<string, unknown> {
  if (tool.inputSchema.properties) return tool.inputSchema;
  return {
    type: 'object',
    properties: Object.fromEntries(
      tool.parameters.map((p) => [p.name, { type: LAGENT_TYPES.has(p.type ?? '') ? p.type : 'string' }]),
    ),
    required: tool.parameters.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

export function reactGrammar(tools: readonly AgentTool[], options: ReactGrammarOptions = {}): string {
  const b = new JsonGrammarBuilder(options);
  const thought = b.text('thought', { excluded: ':\n', maxLength: options.maxThoughtLength ?? 200 });
  const answer = b.text('answer', {
    excluded: '\n',
    minLength: 1,
    maxLength: options.maxAnswerLength ?? 400,
  });
  // Lagent's ActionExecutor keys tools by name: a repeated name is one tool
  const unique = [...new Map(tools.map((t) => [t.name, t])).values()];
  const actions = unique.map((tool, i) => {
    const args = b.value(reactArgumentsSchema(tool), `args-${i}-${tool.name}`);
    return b.rules.rule(`action-${i}`, `${gbnfLiteral(`Action:${tool.name}\nAction Input:`)} ${args}`);
  });
  const final = `${gbnfLiteral('Final Answer:')} ${answer}`;
  const next = actions.length ? `${actions.join(' | ')} | ${final}` : final;
  return b.grammar(`${gbnfLiteral('Thought:')} ${thought} "\\n" (${next})`);
}

/** How a GTA solver is constrained: Lagent's ReAct grammar (the default) or nothing (`constrain: false`). */
export interface GtaConstrainOption {
  /** The grammar replies are generated under, given the tools. */
  constraint?: (tools: readonly AgentTool[]) => OutputConstraint | undefined;
}

/** Constraints by tool list: every turn of a record (and every record with the same tools) shares one. */
const cache = new Map<string, OutputConstraint>();

/** {@link reactGrammar} as the constraint a ReAct turn carries (memoised by the tools offered). */
export function reactConstraint(tools: readonly AgentTool[]): OutputConstraint {
  const key = JSON.stringify(tools.map((t) => [t.name, reactArgumentsSchema(t)]));
  let constraint = cache.get(key);
  if (!constraint) {
    if (cache.size >= 256) cache.clear();
    constraint = { name: 'gta-react', grammar: reactGrammar(tools, { maxStringLength: 200 }) };
    cache.set(key, constraint);
  }
  return constraint;
}
