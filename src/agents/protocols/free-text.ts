import type { OutputConstraint } from '../../models/index.js';
import type { AgentProtocol } from '../runtime/types.js';

/**
 * One free-text answer (e.g. hierarchical prompting's app selection): the reply is the answer, as is;
 * `constraint` is the grammar it is generated under, for models that can be constrained.
 */
export function freeTextProtocol(opts: { system: string; constraint?: OutputConstraint }): AgentProtocol {
  return {
    name: 'free-text',
    ...(opts.constraint ? { constraint: () => opts.constraint } : {}),
    start: ({ instruction, history }) => ({
      system: opts.system,
      messages: [...history, { role: 'user', content: instruction }],
    }),
    parse: (reply) => ({ kind: 'final', answer: reply.text }),
    continueWith: () => [],
  };
}
