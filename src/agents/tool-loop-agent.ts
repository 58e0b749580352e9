import type { Catalog } from '../catalog/index.js';
import { agentTurns, demoTurns, type LlmAgentOptions } from './llm-agent-options.js';
import { nativeToolsProtocol } from './protocols/native-tools.js';
import { outputAgentTrace } from './runtime/agent-trace.js';
import { type AgentBudget, runAgent } from './runtime/run-agent.js';
import type { AgentResult, CallRecord, Toolset } from './runtime/types.js';
import type { PlanningAgent } from './types.js';

export interface ToolLoopAgentOptions extends LlmAgentOptions {
  /** The tools of a catalog, bound to executable apps (normally `catalogToolset`). */
  toolset: (catalog: Catalog) => Toolset;
  budget?: AgentBudget;
  /** Extra system text (the task's context, e.g. the current date). */
  context?: string;
}

/** A call of a tool-loop run as the run's output records it (the state score reads these). */
export interface ExecutedCall {
  app: string | null;
  api: string | null;
  args: Record<string, unknown> | string | null;
  ok: boolean;
  transactional: boolean;
  /** Rows a search returned (0 for a record or an error). */
  rows: number;
  error?: { code: string; message: string };
}

/** What a tool-loop run adds to a planning result. */
export interface AgentRunSummary {
  stopReason: AgentResult['stopReason'];
  answer: string | null;
  detail?: string;
  steps: number;
  decodeFailures: number;
  callErrors: number;
  repairs: number;
  calls: ExecutedCall[];
}

function executedCall(c: CallRecord): ExecutedCall {
  const o = c.outcome;
  const rows = o.ok ? (Array.isArray(o.raw) ? o.raw.length : 0) : 0;
  return {
    app: c.app,
    api: c.api,
    args: c.args,
    ok: o.ok,
    transactional: o.transactional,
    rows,
    ...(o.ok ? {} : { error: { code: o.error.code, message: o.error.message } }),
  };
}

/** Successful calls as AppBench reply lines (`App: [outs = api(#k='v')]`, values as passed). */
function callsAsPlanLines(calls: readonly CallRecord[], catalog: Catalog): string {
  const lines: string[] = [];
  for (const c of calls) {
    if (!c.outcome.ok || !c.app || !c.api || typeof c.args !== 'object' || c.args === null) continue;
    const api = catalog.apis.find((a) => a.app === c.app && a.name === c.api);
    const outs = api?.outputs.map((o) => o.name).join(', ') ?? '';
    const args = Object.entries(c.args)
      .map(([k, v]) => `#${k}='${String(v).replace(/'/g, "\\'")}'`)
      .join(', ');
    lines.push(`${c.app}: [${outs} = ${c.api}(${args})]`);
  }
  return lines.join('\n');
}

/**
 * Plans *and executes*: the model calls the catalog's APIs natively, each call goes through
 * `dispatchCall` (validation, permissions, approval), results come back, until a final answer.
 * The reply is the successful calls as plan lines, so plan-text scorers can read it too.
 */
export function toolLoopAgent(opts: ToolLoopAgentOptions): PlanningAgent {
  return {
    name: 'tool-loop',
    async plan(request, ctx) {
      const trace = outputAgentTrace(ctx.trace);
      const demos = opts.demos ? await opts.demos(request.instruction) : [];
      const context = [`Today is ${request.currentDate}.`, opts.context].filter(Boolean).join(' ');
      const r = await runAgent({
        turn: agentTurns(opts, ctx),
        protocol: nativeToolsProtocol({ system: `${defaultSystem}\n${context}` }),
        instruction: request.instruction,
        toolset: opts.toolset(ctx.catalog),
        history: demoTurns(demos),
        ...(opts.budget ? { budget: opts.budget } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        trace,
      });
      if (r.stopReason === 'model-error') throw r.error;
      const agent: AgentRunSummary = {
        stopReason: r.stopReason,
        answer: r.answer,
        ...(r.detail ? { detail: r.detail } : {}),
        steps: r.steps,
        decodeFailures: r.decodeFailures,
        callErrors: r.callErrors,
        repairs: r.repairs,
        calls: r.calls.map(executedCall),
      };
      return {
        reply: callsAsPlanLines(r.calls, ctx.catalog),
        ...(r.answer !== null ? { rawReply: r.answer } : {}),
        usage: r.usage,
        modelCalls: r.steps,
        attempts: r.attempts,
        faults: r.faults,
        agent,
        trace: trace.events,
      };
    },
  };
}

const defaultSystem =
  'You are an assistant that acts through the tools of several apps. Call the tools you need (several at ' +
  'once when they do not depend on each other), use their results as arguments of later calls, and when ' +
  'the request is done answer in one or two sentences.';
