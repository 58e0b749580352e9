import { appendFileSync } from 'node:fs';
import type { ModelMessage } from 'ai';
import type { TokenUsage } from '../../models/index.js';
import type { StopReason } from './types.js';

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
      type: 'stop';
      step: number;
      reason: StopReason;
      answer: string | null;
      detail?: string;
      usage: TokenUsage;
      totalMs: number;
    };

export interface AgentTraceSink {
  write(event: AgentTraceEvent): void;
}

/** Keeps the events in memory (tests; solvers that put the trace in their output). */
export function memoryAgentTrace(): AgentTraceSink & { events: AgentTraceEvent[] } {
  const events: AgentTraceEvent[] = [];
  return { events, write: (e) => void events.push(e) };
}

/** Appends one JSON line per event, each with a single write (a killed process leaves whole lines). */
export function jsonlAgentTrace(file: string, extra: Record<string, unknown> = {}): AgentTraceSink {
  return { write: (e) => appendFileSync(file, `${JSON.stringify({ ...extra, ...e })}\n`) };
}
