import { extractPlanLines } from './extract-plan-lines.js';
import { callModel, demoTurns, type LlmAgentOptions } from './llm-agent-options.js';
import { planPrompt } from './prompts.js';
import { renderAppApiList } from './render-catalog.js';
import type { PlanningAgent } from './types.js';

/**
 * Flat prompting: one call whose system prompt lists every App of the catalog with all its
 * APIs. The reply is cleaned with {@link extractPlanLines} ('' when it holds no plan line).
 */
export function flatAgent(opts: LlmAgentOptions = {}): PlanningAgent {
  return {
    name: 'flat',
    async plan(request, ctx) {
      const system = planPrompt(renderAppApiList(ctx.catalog), request.currentDate);
      const demos = opts.demos ? await opts.demos(request.instruction) : [];
      const out = await callModel(opts, ctx, {
        system,
        user: request.instruction,
        history: demoTurns(demos),
      });
      return {
        reply: extractPlanLines(out.text),
        rawReply: out.text,
        usage: out.usage,
        modelCalls: 1,
        attempts: out.attempts,
        faults: out.faults,
        prompts: [{ system, user: request.instruction }],
      };
    },
  };
}
