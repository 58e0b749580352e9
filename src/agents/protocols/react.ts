import type { ModelMessage } from 'ai';
import type { OutputConstraint } from '../../models/index.js';
import { parseJsonWithinDepth, pyRepr, pyStrip } from '../../shared/index.js';
import type { AgentProtocol, AgentTool, Decision, ProposedCall } from '../runtime/types.js';

/**
 * The ReAct protocol of Lagent 0.2.x as GTA runs it (docs/gta.md, "Official protocol: Lagent
 * ReAct"): the system prompt, the parser and the argument checks and error strings, character for
 * character.
 */

export const REACT_NO_ACTION_ERROR = 'Please follow the format';
export const REACT_INVALID_ACTION_ERROR = 'The action is invalid, please check the action name.';
const REACT_PARAMETER_DESCRIPTION =
  'If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name.';
/** Sent as the last turn's system message in end-to-end mode. */
export const REACT_FORCE_STOP = 'You should directly give results\n based on history information.';

const LAGENT_TYPE: Record<string, string> = {
  integer: 'NUMBER',
  number: 'FLOAT',
  boolean: 'BOOLEAN',
};

/** A tool as Lagent describes it to the model (key order matters: it is rendered with repr). */
function lagentToolDescription(tool: AgentTool): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters.map((p) => ({
      name: p.name,
      // AgentLego copies the toolmeta description as is: a null one is repr'd as None
      description: p.description ?? null,
      type: LAGENT_TYPE[p.type ?? 'string'] ?? 'STRING',
    })),
    required: tool.parameters.filter((p) => p.required).map((p) => p.name),
    parameter_description: REACT_PARAMETER_DESCRIPTION,
  };
}

/** The call-protocol system prompt (GTA paper Figure 30; Lagent's English default). */
export function reactSystemPrompt(tools: readonly AgentTool[]): string {
  return [
    'You are a assistant who can utilize external tools.',
    pyRepr(tools.map(lagentToolDescription)),
    'To use a tool, please use the following format:',
    '```',
    'Thought:Think what you need to solve, do you need to use tools?',
    `Action:the tool name, should be one of [${pyRepr(tools.map((t) => t.name))}]`,
    'Action Input:the input to the action',
    '```',
    'The response after utilizing tools should using the following format:',
    '```',
    'Response:the results after call the tool.',
    '```',
    'If you already know the answer, or you do not need to use tools,',
    'please using the following format to reply:',
    '```',
    'Thought:the thought process to get the final answer',
    'Final Answer:final answer',
    '```',
    'Begin!',
  ].join('\n');
}

export type ReactParse =
  | { kind: 'finish'; thought: string; answer: string }
  | { kind: 'action'; thought: string; name: string; input: string }
  | { kind: 'no-action'; thought: string };

/** Lagent's ReActProtocol.parse. Total: any text gives a result. */
export function parseReactReply(message: string): ReactParse {
  let thought = message.split('Action:')[0]!;
  thought = thought.split('Thought:').at(-1)!;
  thought = thought.split('Final Answer:')[0]!;
  if (message.includes('Final Answer:'))
    return { kind: 'finish', thought, answer: message.split('Final Answer:').at(-1)! };
  // Python's `.` without DOTALL stops only at \n, hence [^\n] rather than JS's `.`.
  const actions = [...message.matchAll(/Action:([^\n]*?)\n/g)];
  if (actions.length === 0) return { kind: 'no-action', thought };
  const inputAt = message.indexOf('Action Input:');
  if (inputAt < 0) return { kind: 'no-action', thought };
  const input = pyStrip(message.slice(inputAt + 'Action Input:'.length)).replace(/^"+|"+$/g, '');
  return { kind: 'action', thought, name: pyStrip(actions.at(-1)![1]!), input };
}

/** Lagent's argument handling: JSON (a whole-input ```json fence is stripped), known keys, required keys. */
export function parseReactArguments(
  input: string,
  tool: AgentTool,
): { args: Record<string, unknown> } | { error: string } {
  const fenced = /^```json\n([\s\S]*)\n```$/.exec(input);
  let parsed: unknown;
  try {
    // too deep counts as malformed, as any other argument text the parser refuses
    parsed = parseJsonWithinDepth(fenced ? fenced[1]! : input, { file: 'tool arguments' });
  } catch {
    return { error: 'invalid json format' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return { error: 'invalid json format' };
  const args = parsed as Record<string, unknown>;
  const known = new Set(tool.parameters.map((p) => p.name));
  if (Object.keys(args).some((k) => !known.has(k))) return { error: 'unknown arguments' };
  if (tool.parameters.some((p) => p.required && !(p.name in args)))
    return { error: 'missing required arguments' };
  return { args };
}

/**
 * ReAct over text: the model writes `Thought/Action/Action Input` or `Final Answer`; one action per
 * turn; each result goes back as a system message `Response:<text>\n`. `constraint`: the grammar
 * replies are generated under, given the tools (the benchmark's), for models that can be constrained.
 */
export function reactProtocol(
  opts: { constraint?: (tools: readonly AgentTool[]) => OutputConstraint | undefined } = {},
): AgentProtocol {
  return {
    name: 'react',
    ...(opts.constraint ? { constraint: opts.constraint } : {}),
    start: ({ instruction, tools, history }) => ({
      system: reactSystemPrompt(tools),
      messages: [...history, { role: 'user', content: instruction }],
    }),
    parse(reply, tools): Decision {
      const p = parseReactReply(reply.text);
      if (p.kind === 'finish') return { kind: 'final', answer: p.answer, thought: p.thought };
      if (p.kind === 'no-action') return { kind: 'decode-failure', message: REACT_NO_ACTION_ERROR };
      const tool = tools.find((t) => t.name === p.name);
      const id = 'react-call';
      let call: ProposedCall;
      if (!tool)
        call = { id, tool: p.name, invalid: p.input || REACT_INVALID_ACTION_ERROR, rawInput: p.input };
      else {
        const parsed = parseReactArguments(p.input, tool);
        call =
          'error' in parsed
            ? { id, tool: p.name, invalid: parsed.error, rawInput: p.input }
            : { id, tool: p.name, args: parsed.args, rawInput: p.input };
      }
      return { kind: 'calls', calls: [call], thought: p.thought };
    },
    continueWith(reply, decision, observations): ModelMessage[] {
      const response = (text: string): ModelMessage => ({ role: 'system', content: `Response:${text}\n` });
      if (decision.kind === 'decode-failure')
        return [{ role: 'assistant', content: reply.text }, response(REACT_NO_ACTION_ERROR)];
      if (decision.kind !== 'calls') return [{ role: 'assistant', content: reply.text }];
      return [
        { role: 'assistant', content: reply.text },
        ...observations.map((o) =>
          response(o.call.invalid ?? (o.outcome.ok ? o.text : o.outcome.error.message)),
        ),
      ];
    },
  };
}
