import { z } from 'zod';
import type { ViewerHints } from '../plugins/index.js';

/**
 * What the page shows of one sample record beyond its list entry: its events as a timeline, and
 * what its task's viewer hints pick out of its output and score. The events are the runtime's
 * (`AgentTraceEvent` of src/agents: model turns, tool calls, the stop; more kinds to come): read
 * here defensively, since a results file may come from an older or newer apiary than this one.
 */

const UsageSchema = z.object({ inputTokens: z.number(), outputTokens: z.number() });

/*
 * Each known kind is checked for the fields the page reads (the rest passes through as written):
 * an event of a known type without them is shown raw, like an event of a type this viewer does
 * not know.
 */
const TurnSchema = z.object({
  type: z.literal('turn'),
  step: z.number(),
  sent: z
    .object({
      system: z.string().optional(),
      messages: z.array(z.object({ role: z.string(), content: z.unknown() })),
    })
    .optional(),
  reply: z.object({
    text: z.string(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), input: z.unknown() })),
  }),
  decision: z.string(),
  usage: UsageSchema.optional(),
});
const CallSchema = z
  .object({
    type: z.literal('call'),
    step: z.number(),
    tool: z.string(),
    app: z.string().nullable().optional(),
    api: z.string().nullable().optional(),
    args: z.unknown(),
    ok: z.boolean(),
    result: z.string().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .refine((c) => c.ok || c.error !== undefined, 'a failed call names its error');
const StopSchema = z.object({
  type: z.literal('stop'),
  step: z.number(),
  reason: z.string(),
  answer: z.string().nullable(),
  usage: UsageSchema.optional(),
});

const KNOWN = { turn: TurnSchema, call: CallSchema, stop: StopSchema } as const;
export type TimelineKind = keyof typeof KNOWN;

/** One event as the page renders it: a known kind it draws, or any other value shown as JSON. */
export type TimelineItem =
  | { kind: TimelineKind; event: Record<string, unknown> }
  | { kind: 'other'; label: string; event: unknown };

/**
 * A sample's timeline: `events` of the record; for records written before events, the trace
 * tool-loop solvers kept in their output (`output.trace`, the same events); else none.
 */
export interface SampleTimeline {
  source: 'events' | 'output.trace';
  items: TimelineItem[];
}

/** The record's events as timeline items; null when it has none to show (absent or not a list). */
export function sampleTimeline(record: { events?: unknown; output?: unknown }): SampleTimeline | null {
  if (Array.isArray(record.events)) return { source: 'events', items: record.events.map(timelineItem) };
  const trace = (record.output as { trace?: unknown } | null)?.trace;
  if (Array.isArray(trace)) return { source: 'output.trace', items: trace.map(timelineItem) };
  return null;
}

export function timelineItem(event: unknown): TimelineItem {
  const type = (event as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && Object.hasOwn(KNOWN, type)) {
    const kind = type as TimelineKind;
    if (KNOWN[kind].safeParse(event).success) return { kind, event: event as Record<string, unknown> };
    return { kind: 'other', label: `${type} (not in the shape this viewer reads)`, event };
  }
  return { kind: 'other', label: typeof type === 'string' ? type : 'event', event };
}

/** What a task's hints make of one record; a hint that throws on an unexpected shape adds nothing. */
export interface SampleHintsView {
  /** Top-level output fields not shown (they repeat the events). */
  hiddenOutputFields: string[];
  answer: string | null;
  scoreFacts: Array<[string, string]>;
}

function attempt<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

export function sampleHintsView(
  record: { output?: unknown; score?: unknown },
  hints: ViewerHints = {},
  timeline: SampleTimeline | null = null,
): SampleHintsView {
  const hidden = new Set(hints.hiddenOutputFields ?? []);
  if (timeline?.source === 'output.trace') hidden.add('trace');
  const answer = hints.answer ? attempt(() => hints.answer!(record.output), null) : null;
  const facts = hints.scoreFacts ? attempt(() => hints.scoreFacts!(record.score), []) : [];
  return {
    hiddenOutputFields: [...hidden],
    answer: typeof answer === 'string' ? answer : null,
    scoreFacts: facts
      .filter((f) => typeof f[0] === 'string' && typeof f[1] === 'string')
      .map(([label, value]) => [label, value]),
  };
}
