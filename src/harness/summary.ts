import Table from 'cli-table3';
import type { AnyTask } from '../tasks/index.js';
import { type ResultsFileContents, readResultsFile, type SampleLine } from './results-file.js';
import type { RunSpec } from './run-spec.js';

export interface CategoryCounts {
  samples: number;
  errors: number;
}

/** A run's summary, recomputed from every record of its results file (resumed runs included). */
export interface RunSummary {
  spec: RunSpec;
  resultsFile: string;
  /** Distinct samples recorded (a repeated id counts once: its first record). */
  samples: number;
  /** Samples recorded with an error (no output). */
  errors: number;
  /** Repeated records of an id that were ignored. */
  duplicates: number;
  byCategory: Record<string, CategoryCounts>;
  usage: { inputTokens: number; outputTokens: number };
  modelCalls: number;
  /** Per-sample wall time (ms): mean, median and 95th percentile. */
  latencyMs: { mean: number; p50: number; p95: number };
  /** The task's own report (`task.summarize` over the recorded scores). */
  report: unknown;
}

/** The distinct sample records of a file, ordered by the dataset (unknown ids last, in file order). */
export function distinctSamples(
  samples: readonly SampleLine[],
  order?: readonly string[],
): { lines: SampleLine[]; duplicates: number } {
  const seen = new Map<string, SampleLine>();
  let duplicates = 0;
  for (const s of samples) {
    if (seen.has(s.id)) duplicates++;
    else seen.set(s.id, s);
  }
  const lines = [...seen.values()];
  if (order) {
    const rank = new Map(order.map((id, i) => [id, i]));
    const r = (id: string) => rank.get(id) ?? Number.MAX_SAFE_INTEGER;
    lines.sort((a, b) => r(a.id) - r(b.id));
  }
  return { lines, duplicates };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, idx)]!;
}

export function summarizeResults(
  task: Pick<AnyTask, 'summarize' | 'dataset'>,
  contents: ResultsFileContents,
  resultsFile: string,
): RunSummary {
  if (!contents.header) throw new Error(`${resultsFile}: no header record`);
  const { lines, duplicates } = distinctSamples(
    contents.samples,
    task.dataset.map((s) => s.id),
  );
  const byCategory: Record<string, CategoryCounts> = {};
  let errors = 0;
  let modelCalls = 0;
  const usage = { inputTokens: 0, outputTokens: 0 };
  for (const l of lines) {
    const cat = l.category ?? '-';
    byCategory[cat] ??= { samples: 0, errors: 0 };
    const c = byCategory[cat];
    c.samples++;
    if (l.error !== null) {
      c.errors++;
      errors++;
    }
    modelCalls += l.modelCalls;
    usage.inputTokens += l.usage?.inputTokens ?? 0;
    usage.outputTokens += l.usage?.outputTokens ?? 0;
  }
  const durations = lines.map((l) => l.durationMs).sort((a, b) => a - b);
  const mean = durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length : 0;
  return {
    spec: contents.header.spec,
    resultsFile,
    samples: lines.length,
    errors,
    duplicates,
    byCategory,
    usage,
    modelCalls,
    latencyMs: {
      mean: round(mean),
      p50: round(percentile(durations, 50)),
      p95: round(percentile(durations, 95)),
    },
    report: task.summarize(lines.map((l) => l.score)),
  };
}

const round = (x: number) => Math.round(x * 10) / 10;

/** The run facts as a table, followed by the task's own report. */
export function formatRunSummary(summary: RunSummary, formatReport?: (report: unknown) => string): string {
  const s = summary.spec;
  const table = new Table({
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  const model = s.solver.model
    ? `${s.solver.model.id}${s.solver.model.baseUrl ? ` @ ${s.solver.model.baseUrl}` : ''}`
    : 'none';
  table.push(
    { task: `${s.task.name} v${s.task.version}` },
    {
      agent: `${s.solver.agent}${s.solver.prompting ? ` (${s.solver.prompting})` : ''}, ${s.solver.shots}-shot`,
    },
    { model },
    { seed: String(s.seed) },
    {
      samples: `${summary.samples}${summary.duplicates ? ` (${summary.duplicates} duplicate records ignored)` : ''}`,
    },
    { errors: String(summary.errors) },
    { 'model calls': String(summary.modelCalls) },
    { tokens: `${summary.usage.inputTokens} in / ${summary.usage.outputTokens} out` },
    {
      'latency ms': `mean ${summary.latencyMs.mean}, p50 ${summary.latencyMs.p50}, p95 ${summary.latencyMs.p95}`,
    },
  );
  let out = `${table.toString()}\n`;
  if (formatReport) out += `${formatReport(summary.report)}\n`;
  return out;
}

/** Reads a results file and recomputes its summary (e.g. to re-report a finished or stopped run). */
export function summarizeResultsFile(
  task: Pick<AnyTask, 'summarize' | 'dataset'>,
  resultsFile: string,
): RunSummary {
  return summarizeResults(task, readResultsFile(resultsFile), resultsFile);
}
