import type { Api, Catalog } from '../../catalog/index.js';
import { runSingleTurn } from '../llm-agent-options.js';
import { planLinesProtocol } from '../protocols/plan-lines.js';
import type { TurnTaker } from '../runtime/types.js';
import type { PlanningAgent, PlanResult } from '../types.js';
import { fillSlots } from './fill-slots.js';
import { type ApiSelector, createApiSelector, type SelectApisOptions } from './select-apis.js';

interface BaselineCall {
  api: Api;
  /** Literal values (unquoted) or references (`{ ref: outputName }`). */
  args: Record<string, string | { ref: string }>;
}

/**
 * Plans an instruction without a model: select APIs, fill slots from the text of their
 * clause, link inputs to earlier outputs of the same name. See docs/baseline.md.
 */
function baselinePlan(
  instruction: string,
  currentDate: string,
  catalog: Catalog,
  selector: ApiSelector = createApiSelector(catalog),
): BaselineCall[] {
  const { clauses, picks } = selector.pick(instruction);
  const claimed = new Set(picks.map((p) => p.clause));
  // a call's text: its clause plus the following clauses no call was picked for
  // ("..., and returned on March 13th in Warsaw" belongs to the car rental)
  const segmentOf = (clause: number): string => {
    let text = clauses[clause] ?? instruction;
    for (let i = clause + 1; i < clauses.length && !claimed.has(i); i++) text += `, ${clauses[i]}`;
    return text;
  };
  const calls: BaselineCall[] = [];
  for (const { api, clause } of picks) {
    const literals = fillSlots(api, { segment: segmentOf(clause), instruction, currentDate });
    const args: BaselineCall['args'] = {};
    for (const p of api.parameters) {
      const producer = calls.some((c) => c.api.outputs.some((o) => o.name === p.name));
      if (producer && (p.required || literals[p.name] !== undefined)) args[p.name] = { ref: p.name };
      else if (literals[p.name] !== undefined) args[p.name] = literals[p.name]!;
    }
    calls.push({ api, args });
  }
  return calls;
}

/** One AppBench reply line: `App: [out1, out2 = api(#a='v', #b=out)]`, arguments sorted by name. */
function renderBaselineCall(call: BaselineCall): string {
  const args = Object.keys(call.args)
    .sort()
    .map((k) => {
      const v = call.args[k]!;
      return typeof v === 'string' ? `#${k}='${v}'` : `#${k}=${v.ref}`;
    });
  const outs = call.api.outputs.map((o) => o.name).join(', ');
  return `${call.api.app}: [${outs} = ${call.api.name}(${args.join(', ')})]`;
}

export interface BaselineAgentOptions extends SelectApisOptions {}

/**
 * The baseline as a policy that takes the agent's turn without a model: it answers the instruction
 * (the last user message) with its plan lines, so it runs through the same loop as the LLM agents.
 */
function baselinePolicy(catalog: Catalog, currentDate: string, selector: ApiSelector): TurnTaker {
  return async (request) => {
    const last = request.messages.at(-1);
    const instruction = typeof last?.content === 'string' ? last.content : '';
    const calls = baselinePlan(instruction, currentDate, catalog, selector);
    return {
      text: calls.map(renderBaselineCall).join('\n'),
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      latencyMs: 0,
    };
  };
}

/** The no-LLM baseline: lexical API retrieval + rule-based slot filling + name-based linking. */
export function baselineAgent(opts: BaselineAgentOptions = {}): PlanningAgent {
  const selectors = new WeakMap<Catalog, ApiSelector>();
  return {
    name: 'baseline',
    async plan(request, ctx): Promise<PlanResult> {
      let selector = selectors.get(ctx.catalog);
      if (!selector) {
        selector = createApiSelector(ctx.catalog, opts);
        selectors.set(ctx.catalog, selector);
      }
      const policy = baselinePolicy(ctx.catalog, request.currentDate, selector);
      const r = await runSingleTurn(policy, planLinesProtocol({ system: '' }), {
        instruction: request.instruction,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(ctx.trace ? { trace: ctx.trace } : {}),
      });
      return { reply: r.answer ?? '', usage: r.usage, modelCalls: 0 };
    },
  };
}
