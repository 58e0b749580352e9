import type { ModelMessage } from 'ai';
import { type CallOutcome, contentToText } from '../../exec/index.js';
import { addUsage, type TokenUsage, ZERO_USAGE } from '../../models/index.js';
import { stableJson } from '../../shared/index.js';
import type { AgentTraceSink } from './agent-trace.js';
import type {
  AgentProtocol,
  AgentResult,
  CallRecord,
  Decision,
  Observation,
  StopReason,
  Toolset,
  TurnReply,
  TurnTaker,
} from './types.js';

export interface AgentBudget {
  /** Model turns at most (default 10). */
  maxSteps?: number;
  /** Input + output tokens at most, over all turns (default: no limit). */
  maxTokens?: number;
  /** Errors on calls of one tool the model may try to repair before the run stops (default 2). */
  maxRepairsPerTool?: number;
  /** Unparseable replies in a row fed back for repair before the run stops (default 2; 0 = none). */
  maxDecodeFailures?: number;
  /** Times one identical call (tool + arguments) may run before a repeat stops the run (default 2). */
  maxIdenticalCalls?: number;
}

export interface RunAgentOptions {
  /** The model (`modelTurns(model)`) or a no-model policy. */
  turn: TurnTaker;
  protocol: AgentProtocol;
  instruction: string;
  /** Tools the agent may call; none when absent. */
  toolset?: Toolset;
  /** Turns placed before the instruction (demonstrations). */
  history?: readonly ModelMessage[];
  budget?: AgentBudget;
  signal?: AbortSignal;
  trace?: AgentTraceSink;
  /** Told of each call as it settles (a CLI prints it at once, before later approvals are asked). */
  onCall?: (record: CallRecord) => void;
  /** Answers ask-user turns so the run can go on; without it an ask-user turn ends the run. */
  askUser?: (question: string) => Promise<string>;
  /** Monotonic clock in ms (tests inject one). */
  now?: () => number;
}

function refusal(code: 'UNKNOWN_API' | 'INPUT_INVALID', message: string): CallOutcome {
  return { ok: false, error: { code, message }, transactional: false, durationMs: 0, dispatched: false };
}

/** Observation text for a model: results as compact text, errors with their code. */
function observationText(outcome: CallOutcome): string {
  return outcome.ok
    ? contentToText(outcome.content)
    : `error [${outcome.error.code}]: ${outcome.error.message}`;
}

function isRepairable(outcome: CallOutcome): boolean {
  return !outcome.ok && (outcome.error.code === 'INPUT_INVALID' || outcome.error.code === 'UNKNOWN_API');
}

/**
 * The agent loop: model ↔ tools until a final answer, an ask-user turn, a budget, a repeated call,
 * or cancellation. Each turn's calls run in parallel through the toolset (`dispatchCall`); results go
 * back as observations in the protocol's format; every turn, call and the stop are traced. Never
 * throws for model or tool failures: they end the run with a stop reason.
 */
export async function runAgent(opts: RunAgentOptions): Promise<AgentResult> {
  const now = opts.now ?? (() => performance.now());
  const t0 = now();
  const budget = {
    maxSteps: opts.budget?.maxSteps ?? 10,
    maxTokens: opts.budget?.maxTokens ?? Number.POSITIVE_INFINITY,
    maxRepairsPerTool: opts.budget?.maxRepairsPerTool ?? 2,
    maxDecodeFailures: opts.budget?.maxDecodeFailures ?? 2,
    maxIdenticalCalls: opts.budget?.maxIdenticalCalls ?? 2,
  };
  const tools = opts.toolset?.tools ?? [];
  const toolByName = new Map(tools.map((t) => [t.name, t]));
  const { protocol, signal, trace } = opts;
  const opening = protocol.start({ instruction: opts.instruction, tools, history: opts.history ?? [] });
  const messages: ModelMessage[] = [...opening.messages];
  const nativeTools = protocol.nativeTools?.(tools);
  // built once per run: the tools do not change between turns
  const constraint = protocol.constraint?.(tools);

  let usage: TokenUsage = ZERO_USAGE;
  let steps = 0;
  let decodeFailures = 0;
  let decodeStreak = 0;
  let callErrors = 0;
  let repairs = 0;
  let modelMs = 0;
  let toolMs = 0;
  let sentUpTo = 0;
  const calls: CallRecord[] = [];
  const errorsByTool = new Map<string, number>();
  const pendingRepair = new Set<string>();
  const runsOfCall = new Map<string, number>();

  let lastText = '';
  let attempts = 0;
  const faults: string[] = [];
  const finish = (
    reason: StopReason,
    answer: string | null,
    extra: { question?: string; detail?: string; error?: unknown } = {},
  ) => {
    const totalMs = now() - t0;
    trace?.write({
      type: 'stop',
      step: steps,
      reason,
      answer,
      ...(extra.detail ? { detail: extra.detail } : {}),
      usage,
      totalMs,
    });
    const result: AgentResult = {
      stopReason: reason,
      answer,
      ...extra,
      steps,
      usage,
      calls,
      decodeFailures,
      callErrors,
      repairs,
      messages,
      lastText,
      attempts,
      faults,
      timings: { totalMs, modelMs, toolMs, overheadMs: Math.max(0, totalMs - modelMs - toolMs) },
    };
    return result;
  };

  for (;;) {
    if (signal?.aborted) return finish('cancelled', null, { detail: 'cancelled before the next turn' });
    if (steps >= budget.maxSteps)
      return finish('step-budget', null, { detail: `no final answer within ${budget.maxSteps} turns` });
    steps++;
    const request = {
      ...(opening.system !== undefined ? { system: opening.system } : {}),
      messages: [...messages],
      ...(nativeTools && Object.keys(nativeTools).length
        ? { tools: nativeTools, toolChoice: 'auto' as const }
        : {}),
      ...(constraint ? { constraint } : {}),
    };
    const tTurn = now();
    let reply: TurnReply;
    try {
      reply = await opts.turn(request, signal);
    } catch (error) {
      modelMs += now() - tTurn;
      if (signal?.aborted) return finish('cancelled', null, { detail: 'cancelled during a model call' });
      return finish('model-error', null, { detail: (error as Error)?.message ?? String(error), error });
    }
    modelMs += now() - tTurn;
    lastText = reply.text;
    attempts += reply.attempts ?? 1;
    if (reply.faults) faults.push(...reply.faults);
    usage = addUsage(usage, reply.usage);
    const decision: Decision = protocol.parse(reply, tools);
    trace?.write({
      type: 'turn',
      step: steps,
      sent: {
        ...(steps === 1 && opening.system !== undefined ? { system: opening.system } : {}),
        messages: messages.slice(sentUpTo),
      },
      reply: {
        text: reply.text,
        toolCalls: reply.toolCalls.map((c) => ({ id: c.id, name: c.name, input: c.input ?? c.inputText })),
      },
      decision: decision.kind,
      usage: reply.usage,
      latencyMs: reply.latencyMs,
      ...(reply.attempts !== undefined ? { attempts: reply.attempts } : {}),
      ...(reply.faults?.length ? { faults: reply.faults } : {}),
    });
    sentUpTo = messages.length;

    if (decision.kind === 'final') return finish('final', decision.answer);
    if (usage.inputTokens + usage.outputTokens >= budget.maxTokens)
      return finish('token-budget', null, {
        detail: `${usage.inputTokens + usage.outputTokens} tokens used, budget ${budget.maxTokens}`,
      });

    if (decision.kind === 'ask-user') {
      const unanswered = () => {
        trace?.write({ type: 'ask-user', step: steps, question: decision.question, answer: null });
        return finish('ask-user', null, { question: decision.question });
      };
      if (!opts.askUser) return unanswered();
      let answer: string;
      try {
        answer = await opts.askUser(decision.question);
      } catch {
        return unanswered();
      }
      trace?.write({ type: 'ask-user', step: steps, question: decision.question, answer });
      messages.push(...protocol.continueWith(reply, decision, []), { role: 'user', content: answer });
      continue;
    }

    if (decision.kind === 'decode-failure') {
      decodeFailures++;
      decodeStreak++;
      if (decodeStreak > budget.maxDecodeFailures)
        return finish('decode-limit', null, { detail: decision.message });
      trace?.write({
        type: 'repair',
        step: steps,
        kind: 'decode',
        status: 'requested',
        message: decision.message,
      });
      messages.push(...protocol.continueWith(reply, decision, []));
      continue;
    }
    if (decodeStreak > 0) {
      repairs++; // a parseable reply after unparseable ones
      trace?.write({ type: 'repair', step: steps, kind: 'decode', status: 'succeeded' });
    }
    decodeStreak = 0;

    // Repeated identical calls: the model is stuck; stop before running one more time.
    for (const call of decision.calls) {
      if (!call.args) continue;
      const key = `${call.tool}\u0000${stableJson(call.args)}`;
      if ((runsOfCall.get(key) ?? 0) >= budget.maxIdenticalCalls)
        return finish('repeated-call', null, {
          detail: `${call.tool} called again with the same arguments (already run ${budget.maxIdenticalCalls}×)`,
        });
    }

    const tCalls = now();
    const settled = await Promise.all(
      decision.calls.map(async (call): Promise<{ observation: Observation; record: CallRecord }> => {
        const tool = toolByName.get(call.tool);
        const t = now();
        let outcome: CallOutcome;
        if (!tool)
          outcome = refusal(
            'UNKNOWN_API',
            `no tool named "${call.tool}" (tools: ${tools.map((x) => x.name).join(', ') || 'none'})`,
          );
        else if (call.invalid || !call.args)
          outcome = refusal('INPUT_INVALID', call.invalid ?? 'no arguments');
        else {
          const key = `${call.tool}\u0000${stableJson(call.args)}`;
          runsOfCall.set(key, (runsOfCall.get(key) ?? 0) + 1);
          outcome = await opts.toolset!.run({ id: call.id, tool, args: call.args }, signal);
        }
        const text = observationText(outcome);
        const record: CallRecord = {
          step: steps,
          id: call.id,
          tool: call.tool,
          app: tool?.app ?? null,
          api: tool?.api ?? null,
          args: call.args ?? call.rawInput ?? null,
          outcome,
        };
        const { outcome: _, ...where } = record;
        trace?.write({
          type: 'call',
          ...where,
          ok: outcome.ok,
          ...(outcome.ok ? { result: text } : { error: outcome.error }),
          durationMs: now() - t,
        });
        opts.onCall?.(record);
        return { observation: { call, outcome, text }, record };
      }),
    );
    toolMs += now() - tCalls;
    // Records in the order the model proposed the calls (the trace has them in the order they settled).
    for (const s of settled) calls.push(s.record);
    const observations = settled.map((s) => s.observation);

    for (const { call, outcome } of observations) {
      if (outcome.ok) {
        if (pendingRepair.delete(call.tool)) {
          repairs++;
          trace?.write({ type: 'repair', step: steps, kind: 'call', status: 'succeeded', tool: call.tool });
        }
        continue;
      }
      callErrors++;
      if (!isRepairable(outcome)) continue;
      pendingRepair.add(call.tool);
      const n = (errorsByTool.get(call.tool) ?? 0) + 1;
      errorsByTool.set(call.tool, n);
      if (n > budget.maxRepairsPerTool) {
        messages.push(...protocol.continueWith(reply, decision, observations));
        return finish('repair-limit', null, {
          detail: `${n} invalid calls of ${call.tool}: ${outcome.error.message}`,
        });
      }
      trace?.write({
        type: 'repair',
        step: steps,
        kind: 'call',
        status: 'requested',
        tool: call.tool,
        message: `[${outcome.error.code}] ${outcome.error.message}`,
      });
    }
    messages.push(...protocol.continueWith(reply, decision, observations));
    if (signal?.aborted) return finish('cancelled', null, { detail: 'cancelled while tools ran' });
  }
}
