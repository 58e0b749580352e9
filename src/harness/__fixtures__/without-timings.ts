/** Wall times measured inside the agent (its trace) differ between any two runs: zeroed, the rest compared as is. */
const TIMINGS = new Set(['latencyMs', 'totalMs', 'durationMs']);

export function withoutTimings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      TIMINGS.has(k) && typeof v === 'number' ? 0 : withoutTimings(v),
    ]),
  );
}
