import { agentTurns, demoTurns, type LlmAgentOptions, runSingleTurn } from './llm-agent-options.js';
import { planPrompt } from './prompts.js';
import { planLinesProtocol } from './protocols/plan-lines.js';
import { renderAppApiList } from './render-catalog.js';
import { outputAgentTrace } from './runtime/agent-trace.js';
import type { PlanningAgent } from './types.js';

/**
 * Flat prompting: one turn whose system prompt lists every App of the catalog with all its APIs,
 * read with the plan-lines protocol ('' when the reply holds no plan line).
 */
export function flatAgent(opts: LlmAgentOptions = {}): PlanningAgent {
  return {
    name: 'flat',
    async plan(request, ctx) {
      const system = planPrompt(renderAppApiList(ctx.catalog), request.currentDate);
      const demos = opts.demos ? await opts.demos(request.instruction) : [];
      const trace = outputAgentTrace(ctx.trace);
      const constraint = opts.planConstraint?.(ctx.catalog);
      const protocol = planLinesProtocol({ system, ...(constraint ? { constraint } : {}) });
      const r = await runSingleTurn(agentTurns(opts, ctx), protocol, {
        instruction: request.instruction,
        history: demoTurns(demos),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        trace,
      });
      return {
        reply: r.answer ?? '',
        rawReply: r.lastText,
        usage: r.usage,
        modelCalls: 1,
        attempts: r.attempts,
        faults: r.faults,
        prompts: [{ system, user: request.instruction }],
        trace: trace.events,
      };
    },
  };
}
