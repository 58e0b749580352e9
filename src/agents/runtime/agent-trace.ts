import { appendFileSync } from 'node:fs';
import type { ModelMessage } from 'ai';
import { z } from 'zod';
import type { TokenUsage } from '../../models/index.js';
import type { StopReason } from './types.js';

/**
 * What one sample did, as typed events (docs/harness.md, "Sample events"). `runAgent` writes
 * `turn`, `call`, `repair`, `ask-user` and `stop`; solvers without an agent loop write what they do
 * (`turn` for each model call, `proposal` for a call they propose but do not run, `observation` for
 * what they show the model that no call of theirs produced) and one `stop`. The harness gives every
 * solve a sink and records the events on the sample's results line.
 */

/** Why a run stopped: the agent loop's reasons, or `error` when the solver threw (written by the harness). */
export type TraceStopReason = StopReason | 'error';

/**
 * One line of an agent trace. Every model turn gives a `turn` record, every proposed call a `call`
 * record once it settled (so a cancelled run still closes each call), and the run ends with one `stop`.
 */
export type AgentTraceEvent =
  | {
      type: 'turn';
      step: number;
      /** Messages sent for the first time in this turn (the system text only on step 1). */
      sent: { system?: string; messages: ModelMessage[] };
      reply: { text: string; toolCalls: Array<{ id: string; name: string; input: unknown }> };
      /** How the reply was read: `final`, `calls`, `ask-user`, `decode-failure` (a solver's own word otherwise). */
      decision: string;
      usage: TokenUsage;
      latencyMs: number;
      attempts?: number;
      faults?: string[];
    }
  | {
      type: 'call';
      step: number;
      id: string;
      tool: string;
      app: string | null;
      api: string | null;
      args: unknown;
      ok: boolean;
      /** The observation text (results) or the error. */
      result?: string;
      error?: { code: string; message: string };
      durationMs: number;
    }
  | {
      /** A call a solver proposes without running it (scored against a gold call instead). */
      type: 'proposal';
      step: number;
      id: string;
      tool: string;
      args: unknown;
    }
  | {
      /** Text shown to the model that no call of this run produced (a gold observation, a user's answer). */
      type: 'observation';
      step: number;
      text: string;
      /** The call it answers, when there is one. */
      callId?: string;
    }
  | {
      /**
       * The runtime fed an error back for the model to repair (`requested`: an unparseable reply, or
       * a call refused as INPUT_INVALID/UNKNOWN_API), or the model recovered from one (`succeeded`:
       * counted in the run's `repairs`).
       */
      type: 'repair';
      step: number;
      kind: 'decode' | 'call';
      status: 'requested' | 'succeeded';
      tool?: string;
      message?: string;
    }
  | {
      /** The model asked the user; `answer` is null when nobody answered (the run then stops). */
      type: 'ask-user';
      step: number;
      question: string;
      answer: string | null;
    }
  | {
      type: 'stop';
      step: number;
      reason: TraceStopReason;
      answer: string | null;
      detail?: string;
      usage: TokenUsage;
      totalMs: number;
    };

type AgentTraceEventType = AgentTraceEvent['type'];

const UsageShape = z.object({ inputTokens: z.number().min(0), outputTokens: z.number().min(0) });
const Step = z.number().int().min(0);

/** The stop reasons a trace may hold (`runAgent`'s, plus `error` from the harness). */
const TRACE_STOP_REASONS = [
  'final',
  'ask-user',
  'step-budget',
  'token-budget',
  'cancelled',
  'repeated-call',
  'repair-limit',
  'decode-limit',
  'model-error',
  'error',
] as const satisfies readonly TraceStopReason[];

/**
 * The events as read back from a results file. Message contents are the AI SDK's (checked loosely:
 * a role and content); unknown keys of an event are kept, so a newer writer's extra fields survive.
 */
export const AgentTraceEventSchema: z.ZodType<AgentTraceEvent> = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('turn'),
    step: Step,
    sent: z.object({
      system: z.string().optional(),
      messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })),
    }),
    reply: z.object({
      text: z.string(),
      toolCalls: z.array(z.object({ id: z.string(), name: z.string(), input: z.unknown() })),
    }),
    decision: z.string(),
    usage: UsageShape,
    latencyMs: z.number().min(0),
    attempts: z.number().int().min(0).optional(),
    faults: z.array(z.string()).optional(),
  }),
  z.looseObject({
    type: z.literal('call'),
    step: Step,
    id: z.string(),
    tool: z.string(),
    app: z.string().nullable(),
    api: z.string().nullable(),
    args: z.unknown(),
    ok: z.boolean(),
    result: z.string().optional(),
    error: z.looseObject({ code: z.string(), message: z.string() }).optional(),
    durationMs: z.number().min(0),
  }),
  z.looseObject({
    type: z.literal('proposal'),
    step: Step,
    id: z.string(),
    tool: z.string(),
    args: z.unknown(),
  }),
  z.looseObject({
    type: z.literal('observation'),
    step: Step,
    text: z.string(),
    callId: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal('repair'),
    step: Step,
    kind: z.enum(['decode', 'call']),
    status: z.enum(['requested', 'succeeded']),
    tool: z.string().optional(),
    message: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal('ask-user'),
    step: Step,
    question: z.string(),
    answer: z.string().nullable(),
  }),
  z.looseObject({
    type: z.literal('stop'),
    step: Step,
    reason: z.enum(TRACE_STOP_REASONS),
    answer: z.string().nullable(),
    detail: z.string().optional(),
    usage: UsageShape,
    totalMs: z.number().min(0),
  }),
]) as unknown as z.ZodType<AgentTraceEvent>;

export interface AgentTraceSink {
  write(event: AgentTraceEvent): void;
}

/** Keeps the events in memory (tests; solvers that put the trace in their output). */
export function memoryAgentTrace(): AgentTraceSink & { events: AgentTraceEvent[] } {
  const events: AgentTraceEvent[] = [];
  return { events, write: (e) => void events.push(e) };
}

/** The event types a solver's output `trace` has always held (turn, call, stop). */
const OUTPUT_TRACE_TYPES: ReadonlySet<AgentTraceEventType> = new Set(['turn', 'call', 'stop']);

/**
 * The trace a solver keeps in its output, forwarding every event to `forward` (the sample's event
 * sink). The kept list holds only turns, calls and stops — what outputs recorded before events held —
 * so a recorded output does not change with the richer event log.
 */
export function outputAgentTrace(forward?: AgentTraceSink): AgentTraceSink & { events: AgentTraceEvent[] } {
  const events: AgentTraceEvent[] = [];
  return {
    events,
    write(e) {
      if (OUTPUT_TRACE_TYPES.has(e.type)) events.push(e);
      forward?.write(e);
    },
  };
}

/** Forwards every event but `stop`: a solver that runs the loop once per step writes one stop of its own. */
export function withoutStops(sink: AgentTraceSink): AgentTraceSink {
  return { write: (e) => void (e.type === 'stop' ? undefined : sink.write(e)) };
}

/** Appends one JSON line per event, each with a single write (a killed process leaves whole lines). */
export function jsonlAgentTrace(file: string, extra: Record<string, unknown> = {}): AgentTraceSink {
  return { write: (e) => appendFileSync(file, `${JSON.stringify({ ...extra, ...e })}\n`) };
}
