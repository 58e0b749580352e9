import type { AgentProtocol } from '../runtime/types.js';

/** One free-text answer (e.g. hierarchical prompting's app selection): the reply is the answer, as is. */
export function freeTextProtocol(opts: { system: string }): AgentProtocol {
  return {
    name: 'free-text',
    start: ({ instruction, history }) => ({
      system: opts.system,
      messages: [...history, { role: 'user', content: instruction }],
    }),
    parse: (reply) => ({ kind: 'final', answer: reply.text }),
    continueWith: () => [],
  };
}
