import type { ModelMessage } from 'ai';
import type { OutputConstraint } from '../../models/index.js';
import { extractPlanLines } from '../extract-plan-lines.js';
import type { AgentProtocol, Decision } from '../runtime/types.js';

/**
 * MetaBench/AppBench plan lines: the model answers with the whole plan as `App: [out = api(#k='v')]`
 * lines in one reply (flat and hierarchical prompting). The cleaned lines are the final answer; a
 * reply without any plan line is a decode failure. `constraint`: the grammar replies are generated
 * under (the benchmark's, over the APIs it offers), for models that can be constrained.
 */
export function planLinesProtocol(opts: { system: string; constraint?: OutputConstraint }): AgentProtocol {
  return {
    name: 'plan-lines',
    ...(opts.constraint ? { constraint: () => opts.constraint } : {}),
    start: ({ instruction, history }) => ({
      system: opts.system,
      messages: [...history, { role: 'user', content: instruction }],
    }),
    parse(reply): Decision {
      const lines = extractPlanLines(reply.text);
      return lines
        ? { kind: 'final', answer: lines }
        : { kind: 'decode-failure', message: 'the reply holds no plan line (App: [out = api(#arg=value)])' };
    },
    continueWith(reply, decision): ModelMessage[] {
      const why = decision.kind === 'decode-failure' ? decision.message : 'no plan';
      return [
        { role: 'assistant', content: reply.text },
        { role: 'user', content: `Your reply could not be used: ${why}. Answer with plan lines only.` },
      ];
    },
  };
}
