import { isInfrastructureError, type SampleLine } from '../harness/index.js';
import type { TaskDefinition } from '../tasks/index.js';

/**
 * The kinds of trouble a record can show: the model endpoint failed (`infra`), the solver gave no
 * output for another reason (`solver`), a model reply could not be decoded (`decode`), or a tool
 * call came back with an error (`tool`). One record may show several.
 */
export const SAMPLE_ERROR_KINDS = ['infra', 'solver', 'decode', 'tool'] as const;
export type SampleErrorKind = (typeof SAMPLE_ERROR_KINDS)[number];

interface AgentFacts {
  decodeFailures?: unknown;
  callErrors?: unknown;
}
interface TraceFact {
  type?: unknown;
  decision?: unknown;
  ok?: unknown;
}

const eventList = (value: unknown): TraceFact[] =>
  Array.isArray(value) ? (value as TraceFact[]).filter((e) => e && typeof e === 'object') : [];

/**
 * What the agent runtime left of a sample: the record's events, and what tool-loop solvers kept
 * in their output (its summary; its trace, in records written before events).
 */
function agentParts(output: unknown, events: unknown): { agent: AgentFacts | null; trace: TraceFact[] } {
  const o =
    output !== null && typeof output === 'object' ? (output as { agent?: unknown; trace?: unknown }) : {};
  const agent = o.agent !== null && typeof o.agent === 'object' ? (o.agent as AgentFacts) : null;
  return { agent, trace: Array.isArray(events) ? eventList(events) : eventList(o.trace) };
}

/** The kinds of trouble a record shows; `events` as written in the record (absent in older files). */
export function sampleErrorKinds(
  line: Pick<SampleLine, 'error' | 'output'> & { events?: unknown },
): SampleErrorKind[] {
  const kinds: SampleErrorKind[] = [];
  if (line.error !== null) kinds.push(isInfrastructureError(line.error) ? 'infra' : 'solver');
  const { agent, trace } = agentParts(line.output, line.events);
  const positive = (x: unknown) => typeof x === 'number' && x > 0;
  if (
    positive(agent?.decodeFailures) ||
    trace.some((e) => e.type === 'turn' && e.decision === 'decode-failure')
  )
    kinds.push('decode');
  if (positive(agent?.callErrors) || trace.some((e) => e.type === 'call' && e.ok === false))
    kinds.push('tool');
  return kinds;
}

/** How the viewer reads one sample's score: its headline numbers and whether it passed. */
export interface SampleScoring {
  /** The task's headline metrics on this one sample (finite numbers only). */
  metrics(score: unknown): Record<string, number>;
  /** null when the task has no pass/fail. */
  passed(score: unknown): boolean | null;
}

const finiteOnly = (m: Record<string, number>) =>
  Object.fromEntries(Object.entries(m).filter(([, v]) => typeof v === 'number' && Number.isFinite(v)));

/**
 * A sample's metrics are the task's own headline metrics over a report of that one sample (so
 * AppBench gives its official and corrected F1s and success); without a task definition a bare
 * numeric score is shown as `score`.
 */
export function scoringFor(def?: Pick<TaskDefinition, 'summarize' | 'metrics' | 'passed'>): SampleScoring {
  if (!def)
    return {
      metrics: (score): Record<string, number> =>
        typeof score === 'number' && Number.isFinite(score) ? { score } : {},
      passed: () => null,
    };
  return {
    metrics(score) {
      try {
        return finiteOnly(def.metrics(def.summarize([score])));
      } catch {
        return {}; // a score this task version cannot read (e.g. a null score of a failed record)
      }
    },
    passed(score) {
      if (!def.passed) return null;
      try {
        return def.passed(score) === true;
      } catch {
        return false;
      }
    },
  };
}
