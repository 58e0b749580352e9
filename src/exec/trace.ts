import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { InputInvalidError, parseJsonWithinDepth, readTextFile, redactSecrets } from '../shared/index.js';

const TRACE_EVENTS = ['start', 'end', 'error', 'refused', 'interrupted'] as const;

/**
 * One line of a run's trace. Every `start` (one per attempt) is followed by exactly one
 * `end`, `error` or `interrupted` of the same run, step and attempt; `refused` is written for
 * a step that was never dispatched. `repairTrace` restores that invariant after a crash.
 */
const TraceEventSchema = z.object({
  event: z.enum(TRACE_EVENTS),
  run: z.string(),
  /** ISO-8601 timestamp from the run's clock. */
  time: z.string(),
  step: z.string(),
  app: z.string(),
  api: z.string(),
  attempt: z.number().int().min(1).optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  /** The step's named outputs (and the raw result, `end` only). */
  outputs: z.record(z.string(), z.unknown()).optional(),
  result: z.unknown().optional(),
  /** `end` of a call that returned no row (a search that matched nothing). */
  empty: z.literal(true).optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export type TraceEvent = z.infer<typeof TraceEventSchema>;

export interface TraceSink {
  write(event: TraceEvent): void;
}

/** Keeps events in memory (tests, programmatic inspection). */
export function memoryTrace(): TraceSink & { events: TraceEvent[] } {
  const events: TraceEvent[] = [];
  return {
    events,
    write(e) {
      events.push(e);
    },
  };
}

/**
 * Appends one JSON line per event to `file`; each line is written with one `write` call and
 * handed to the OS before `write` returns (a killed process loses nothing it wrote). API keys
 * are taken out of the line first (`redactSecrets`: a result may quote one).
 * `fsync: true` also forces it to disk (survives power loss, slower).
 */
export function jsonlTrace(file: string, opts: { fsync?: boolean } = {}): TraceSink {
  return {
    write(event) {
      const line = redactSecrets(`${JSON.stringify(event)}\n`);
      if (!opts.fsync) {
        appendFileSync(file, line);
        return;
      }
      const fd = openSync(file, 'a');
      try {
        writeSync(fd, line);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    },
  };
}

export interface TraceRepair {
  /** `interrupted` records appended (one per started attempt that had no end). */
  appended: TraceEvent[];
  /** Lines that were not valid trace events (e.g. a line cut by a crash), by 1-based line number. */
  skippedLines: number[];
}

/**
 * Closes a trace left by a crashed or killed run: appends an `interrupted` record for every
 * started attempt with no `end`/`error`/`interrupted`. Safe to run twice (the second run appends
 * nothing). A missing file is an empty trace.
 */
export function repairTrace(file: string, deps: { now?: () => number } = {}): TraceRepair {
  if (!existsSync(file)) return { appended: [], skippedLines: [] };
  const text = readTextFile(file);
  const open = new Map<string, TraceEvent>();
  const skippedLines: number[] = [];
  const key = (e: TraceEvent) => `${e.run}\u0000${e.step}\u0000${e.attempt ?? 1}`;
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      // a line nested too deep is skipped like any other unreadable line
      json = parseJsonWithinDepth(line, { file: 'trace', record: i + 1 });
    } catch {
      skippedLines.push(i + 1);
      return;
    }
    const parsed = TraceEventSchema.safeParse(json);
    if (!parsed.success) {
      skippedLines.push(i + 1);
      return;
    }
    const e = parsed.data;
    if (e.event === 'start') open.set(key(e), e);
    else if (e.event !== 'refused') open.delete(key(e));
  });
  const time = new Date((deps.now ?? Date.now)()).toISOString();
  const appended: TraceEvent[] = [...open.values()].map((s) => ({
    event: 'interrupted',
    run: s.run,
    time,
    step: s.step,
    app: s.app,
    api: s.api,
    ...(s.attempt !== undefined ? { attempt: s.attempt } : {}),
    error: { code: 'INTERRUPTED', message: 'the run ended (crash or kill) before this call finished' },
  }));
  if (appended.length) {
    // A crash can leave the last line without its newline: never glue a record onto it.
    const prefix = text.length > 0 && !text.endsWith('\n') ? '\n' : '';
    appendFileSync(file, prefix + appended.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }
  return { appended, skippedLines };
}

/** Reads a JSONL trace (invalid lines are skipped). */
export function readTrace(file: string): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const line of readTextFile(file).split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = TraceEventSchema.safeParse(JSON.parse(line));
      if (parsed.success) out.push(parsed.data);
    } catch {
      // cut line
    }
  }
  return out;
}

/**
 * Refuses to append a run to a file that is not a trace (notes, a plan, another tool's log): its
 * first non-blank line must be a trace event. A missing or empty file is fine; a later cut line is
 * left to `repairTrace`. Reads only the start of the file.
 */
export function assertTraceFile(file: string): void {
  if (!existsSync(file)) return;
  const fd = openSync(file, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(64 * 1024);
    head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
  const lines = head.split('\n');
  const index = lines.findIndex((l) => l.trim() !== '');
  if (index < 0) return;
  const line = lines[index]!;
  // A first line longer than the head is checked whole.
  const first = index === lines.length - 1 ? readTextFile(file).split('\n')[index]! : line;
  let ok = false;
  try {
    ok = TraceEventSchema.safeParse(JSON.parse(first)).success;
  } catch {
    ok = false;
  }
  if (!ok)
    throw new InputInvalidError(
      { file },
      `line ${index + 1}: not a trace event; --trace appends to an earlier trace only: pick a new file`,
    );
}
