import { existsSync } from 'node:fs';
import {
  parseReactArguments,
  parseReactReply,
  REACT_INVALID_ACTION_ERROR,
  REACT_NO_ACTION_ERROR,
} from '../../agents/index.js';
import { type PyJson, type PyObject, parsePyJson, toPyJson } from '../../shared/index.js';
import { pyObject } from './py-value.js';
import { type GtaToolMeta, gtaAgentTool } from './toolmeta.js';

/**
 * One step of GTA's step-by-step mode after the model replied (docs/gta.md, "Official protocol:
 * Lagent ReAct" and "Official step-by-step mode: prompts", step 4):
 * the reply parsed as Lagent's ReAct protocol and "executed" against the record's dummy tools,
 * which only check the arguments (JSON, names, required keys, image files on disk) and would
 * return "Dummy Result". The result is the step record the official harness stores.
 */

export const GTA_NO_ACTION = 'NoAction';
export const GTA_INVALID_ACTION = 'InvalidAction';
export const GTA_FINISH_ACTION = 'FinishAction';

/** `{"role": "assistant", "content": answer}` (a finish step). */
export const answerStep = (content: string): PyObject =>
  pyObject([
    ['role', 'assistant'],
    ['content', content],
  ]);

/** An action step (docs/gta.md, "Official protocol: Lagent ReAct"): one call, plus `error` when the action failed. */
export function callStep(name: string, args: PyJson, error?: { type: string; msg: string }): PyObject {
  const fn = pyObject([
    ['name', name],
    ['arguments', args],
  ]);
  return pyObject([
    ['role', 'assistant'],
    ...(error
      ? [
          [
            'error',
            pyObject([
              ['type', error.type],
              ['msg', error.msg],
            ]),
          ] as const,
        ]
      : []),
    [
      'tool_calls',
      [
        pyObject([
          ['type', 'function'],
          ['function', fn],
        ]),
      ],
    ],
  ]);
}

/** Lagent's JsonParser input: a ```json fence around the whole input is dropped. */
function unfenced(input: string): string {
  const m = /^```json\n([\s\S]*)\n```$/.exec(input);
  return m ? m[1]! : input;
}

/** The parsed arguments with Python's view of numbers and key order (JSON.parse would lose both). */
export function pyArgs(input: string, fallback: Record<string, unknown>): PyJson {
  try {
    return parsePyJson(unfenced(input));
  } catch {
    return toPyJson(fallback);
  }
}

/** Runs one tool call against the dummy tool: argument checks first, then image files on disk. */
function dummyCall(meta: GtaToolMeta, input: string): PyObject {
  const parsed = parseReactArguments(input, gtaAgentTool(meta));
  // ParseError: the recorded arguments fall back to the raw input string, so ArgAcc can never match
  if ('error' in parsed) return callStep(meta.name, input, { type: 'ARGS_ERROR', msg: parsed.error });
  const args = pyArgs(input, parsed.args);
  for (const p of meta.inputs) {
    if (p.type !== 'image' || p.name === null || !(p.name in parsed.args)) continue;
    const value = parsed.args[p.name];
    if (typeof value !== 'string' || !existsSync(value))
      return callStep(meta.name, args, {
        type: 'API_ERROR',
        msg: `FileNotFoundError: image argument "${p.name}" names no file: ${JSON.stringify(value)}`,
      });
  }
  return callStep(meta.name, args);
}

/** The step record for one model reply, given the record's tools (only these are callable). */
export function gtaStepFromReply(reply: string, tools: readonly GtaToolMeta[]): PyObject {
  const p = parseReactReply(reply);
  if (p.kind === 'finish') return answerStep(p.answer);
  const [name, command] = p.kind === 'no-action' ? [GTA_NO_ACTION, ''] : [p.name, p.input];
  const byName = new Map(tools.map((t) => [t.name, t]));
  // Lagent's ActionExecutor reads "Tool.api" as a tool and one of its APIs (plain tools only have "run")
  const dotted = name.split('.');
  const [toolName, api] = dotted.length === 2 ? (dotted as [string, string]) : [name, 'run'];
  const tool = byName.get(toolName);
  if (tool) {
    if (api !== 'run') return callStep(tool.name, command, { type: 'API_ERROR', msg: `invalid API: ${api}` });
    return dummyCall(tool, command);
  }
  const text = pyObject([['text', command]]);
  if (name === GTA_NO_ACTION)
    return callStep(GTA_NO_ACTION, text, { type: 'API_ERROR', msg: command || REACT_NO_ACTION_ERROR });
  if (name === GTA_FINISH_ACTION) return answerStep(command);
  return callStep(GTA_INVALID_ACTION, text, {
    type: 'API_ERROR',
    msg: command || REACT_INVALID_ACTION_ERROR,
  });
}
