import type { Catalog } from '../catalog/index.js';
import type { TokenUsage } from '../models/index.js';
import { addUsage } from '../models/index.js';
import { agentTurns, demoTurns, type LlmAgentOptions, runSingleTurn } from './llm-agent-options.js';
import { appSelectionPrompt, planPrompt } from './prompts.js';
import { freeTextProtocol } from './protocols/free-text.js';
import { planLinesProtocol } from './protocols/plan-lines.js';
import { renderAppApiList, renderAppList } from './render-catalog.js';
import { outputAgentTrace } from './runtime/agent-trace.js';
import type { PlanningAgent, PlanResult } from './types.js';

export interface HierarchicalAgentOptions extends LlmAgentOptions {
  /**
   * Reproduce the upstream fallback: when no App name occurs in the selection reply, every App
   * whose name contains any character of the reply is selected. Default off.
   */
  officialQuirks?: boolean;
  /** App-selection attempts before the sample fails (default 5, as upstream). */
  maxSelectionAttempts?: number;
}

/**
 * Selected Apps = every App name (catalog order) occurring as a case-sensitive substring of the
 * reply. With `officialQuirks`, when none occurs, the upstream character fallback applies.
 */
export function selectAppsFromReply(
  reply: string,
  appNames: readonly string[],
  officialQuirks = false,
): string[] {
  const selected = appNames.filter((name) => reply.includes(name));
  if (selected.length > 0 || !officialQuirks) return selected;
  const chars = new Set(reply.replace(/\s/g, ''));
  return appNames.filter((name) => [...chars].some((c) => name.includes(c)));
}

/**
 * Hierarchical prompting: step 1 asks for the needed Apps from the App-only list (retried up to
 * 5 times when the reply names no App; then the result is an empty reply with `selectedApps: []`
 * and no plan is asked for); step 2 plans with the APIs of the selected Apps only (listed in catalog
 * order). Demos, when given, are used in step 2.
 */
export function hierarchicalAgent(opts: HierarchicalAgentOptions = {}): PlanningAgent {
  const maxSelection = opts.maxSelectionAttempts ?? 5;
  return {
    name: 'hierarchical',
    async plan(request, ctx): Promise<PlanResult> {
      const catalog: Catalog = ctx.catalog;
      const appNames = catalog.apps.map((a) => a.name);
      const selectionSystem = appSelectionPrompt(renderAppList(catalog));
      const selectionConstraint = opts.appSelectionConstraint?.(catalog);
      const selection = freeTextProtocol({
        system: selectionSystem,
        ...(selectionConstraint ? { constraint: selectionConstraint } : {}),
      });
      const turn = agentTurns(opts, ctx);
      const trace = outputAgentTrace(ctx.trace);
      const signal = { ...(ctx.signal ? { signal: ctx.signal } : {}), trace };
      let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
      let calls = 0;
      let attempts = 0;
      const faults: string[] = [];
      const prompts: Array<{ system: string; user: string }> = [];
      let selected: string[] = [];
      const selectionReplies: string[] = [];
      for (let i = 0; i < maxSelection && selected.length === 0; i++) {
        const out = await runSingleTurn(turn, selection, {
          instruction: request.instruction,
          ...signal,
        });
        calls++;
        attempts += out.attempts;
        faults.push(...out.faults);
        usage = addUsage(usage, out.usage);
        prompts.push({ system: selectionSystem, user: request.instruction });
        selectionReplies.push(out.lastText);
        selected = selectAppsFromReply(out.lastText, appNames, opts.officialQuirks);
      }
      // The endpoint answered every time: naming no app is the model's answer, not a failed call.
      // Like upstream, no plan is asked for; `selectedApps: []` tells scorers the selection failed.
      if (selected.length === 0)
        return {
          reply: '',
          rawReply: selectionReplies.at(-1) ?? '',
          usage,
          modelCalls: calls,
          attempts,
          faults,
          selectedApps: [],
          trace: trace.events,
          prompts,
        };

      const system = planPrompt(renderAppApiList(catalog, selected), request.currentDate);
      const demos = opts.demos ? await opts.demos(request.instruction) : [];
      const constraint = opts.planConstraint?.(catalog, selected);
      const protocol = planLinesProtocol({ system, ...(constraint ? { constraint } : {}) });
      const out = await runSingleTurn(turn, protocol, {
        instruction: request.instruction,
        history: demoTurns(demos),
        ...signal,
      });
      calls++;
      attempts += out.attempts;
      faults.push(...out.faults);
      prompts.push({ system, user: request.instruction });
      return {
        reply: out.answer ?? '',
        rawReply: out.lastText,
        usage: addUsage(usage, out.usage),
        modelCalls: calls,
        attempts,
        faults,
        selectedApps: selected,
        trace: trace.events,
        prompts,
      };
    },
  };
}
