import type { ModelMessage } from 'ai';
import type { OutputConstraint } from '../../models/index.js';
import { parseJsonWithinDepth } from '../../shared/index.js';
import type { AgentProtocol, Decision } from '../runtime/types.js';

/** The action a ShortcutsBench agent writes: `{"Thought", "WFWorkflowActionIdentifier", "WFWorkflowActionParameters"}`. */
export type JsonActionParse = { kind: 'json'; value: unknown } | { kind: 'json-error'; raw: string };

/**
 * ShortcutsBench's reply parsing (docs/shortcutsbench.md, "Official reply parsing"): the text from the first `{` to
 * the last `}` is parsed as JSON; failing that, the whole reply; failing that, a JSON error. The
 * value may be any JSON (a list or number counts as an action with missing fields).
 */
/** A reply nested too deep is a JSON error like any other text that does not parse. */
const REPLY = { file: 'model reply' };

export function parseJsonActionReply(reply: string): JsonActionParse {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      return { kind: 'json', value: parseJsonWithinDepth(reply.slice(start, end + 1), REPLY) };
    } catch {
      // fall through to the whole reply
    }
  }
  try {
    return { kind: 'json', value: parseJsonWithinDepth(reply, REPLY) };
  } catch {
    return { kind: 'json-error', raw: reply };
  }
}

/** The identifier and parameters of a parsed action (null where the field is missing or mistyped). */
export function jsonActionFields(value: unknown): {
  id: string | null;
  params: Record<string, unknown> | null;
} {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { id: null, params: null };
  const v = value as Record<string, unknown>;
  const id = typeof v.WFWorkflowActionIdentifier === 'string' ? v.WFWorkflowActionIdentifier : null;
  const p = v.WFWorkflowActionParameters;
  const params =
    p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : null;
  return { id, params };
}

const JSON_ACTION_FINISH = 'Finish';

/**
 * JSON actions over text (ShortcutsBench): one action per reply; `Finish` ends the run. The system
 * prompt belongs to the task (it lists the candidate APIs), so it is passed in, and so is the
 * grammar replies are generated under (`constraint`, for models that can be constrained).
 */
export function jsonActionProtocol(opts: { system: string; constraint?: OutputConstraint }): AgentProtocol {
  return {
    name: 'json-action',
    ...(opts.constraint ? { constraint: () => opts.constraint } : {}),
    start: ({ instruction, history }) => ({
      system: opts.system,
      messages: [...history, { role: 'user', content: instruction }],
    }),
    parse(reply): Decision {
      const parsed = parseJsonActionReply(reply.text);
      if (parsed.kind === 'json-error') return { kind: 'decode-failure', message: 'the reply is not JSON' };
      const { id, params } = jsonActionFields(parsed.value);
      if (id === null) return { kind: 'decode-failure', message: 'WFWorkflowActionIdentifier is missing' };
      if (id === JSON_ACTION_FINISH) return { kind: 'final', answer: reply.text };
      const thought = (parsed.value as { Thought?: unknown }).Thought;
      return {
        kind: 'calls',
        calls: [{ id: 'action', tool: id, args: params ?? {} }],
        ...(typeof thought === 'string' ? { thought } : {}),
      };
    },
    continueWith(reply, decision, observations): ModelMessage[] {
      const feedback =
        decision.kind === 'decode-failure'
          ? `Your reply could not be used: ${decision.message}. Output only one JSON action.`
          : JSON.stringify(
              observations.map((o) => ({ action: o.call.tool, observation: o.text })),
              null,
              2,
            );
      return [
        { role: 'assistant', content: reply.text },
        { role: 'user', content: feedback },
      ];
    },
  };
}
