import Table from 'cli-table3';
import { costOf } from '../models/index.js';
import { InputInvalidError } from '../shared/index.js';
import type { AnyTask } from '../tasks/index.js';
import { type MetricEstimate, meanWithCi, type PassRates, passRates } from './epoch-stats.js';
import { type ResultsFileContents, readResultsFile, type SampleLine } from './results-file.js';
import type { RunSpec } from './run-spec.js';

export interface CategoryCounts {
  /** Records of the category (samples × epochs run). */
  samples: number;
  errors: number;
}

/** A run's summary, recomputed from every record of its results file (resumed runs included). */
export interface RunSummary {
  spec: RunSpec;
  resultsFile: string;
  /** Distinct samples recorded (in any epoch). */
  samples: number;
  /** Distinct (sample, epoch) records; equals `samples` with one epoch. */
  records: number;
  /** Records with an error (no output). */
  errors: number;
  /** Of those, records whose error is the model endpoint's (failed call after retries, no answer). */
  infrastructureErrors: number;
  /** Repeated records of a (sample, epoch) pair that were ignored (the first one counts). */
  duplicates: number;
  byCategory: Record<string, CategoryCounts>;
  usage: { inputTokens: number; outputTokens: number };
  modelCalls: number;
  /** Dollars, when the run has a price: the total and the mean per record. */
  cost: { total: number; perSample: number } | null;
  /** Per-record wall time (ms): mean, median and 95th percentile. */
  latencyMs: { mean: number; p50: number; p95: number };
  /**
   * The task's headline metrics computed on each epoch, as mean ± 95% CI over `epochsUsed` (the
   * epochs holding every sample; all epochs with records when none is complete).
   */
  headline: Record<string, MetricEstimate>;
  epochsUsed: number[];
  /** pass^k and pass@k over the k epochs of the spec, for tasks that define pass/fail. */
  pass: PassRates | null;
  /** The task's own report (`task.summarize` over every record, all epochs pooled). */
  report: unknown;
  /** Records without events (written before sample events existed); absent when there are none. */
  recordedBeforeEvents?: number;
}

/** What the summary needs from a task definition beyond the task itself. */
export interface SummaryMetrics {
  // biome-ignore lint/suspicious/noExplicitAny: any task's report
  metrics?: (report: any) => Record<string, number>;
  // biome-ignore lint/suspicious/noExplicitAny: any task's score
  passed?: (score: any) => boolean;
}

/** How the harness records an endpoint failure: `CODE: message` (see run-eval's errorMessage). */
const INFRASTRUCTURE_ERROR = /^(MODEL_CALL_FAILED|MODEL_UNREACHABLE): /;

/** Whether a recorded sample error is the model endpoint's (failed call after retries, no answer). */
export const isInfrastructureError = (error: string): boolean => INFRASTRUCTURE_ERROR.test(error);

const recordKey = (l: Pick<SampleLine, 'id' | 'epoch'>) => `${l.epoch}\u0000${l.id}`;

/**
 * The distinct (sample, epoch) records of a file, ordered by epoch then by the dataset (unknown
 * ids last, in file order). A repeated pair keeps its first record and counts as a duplicate.
 */
export function distinctSamples(
  samples: readonly SampleLine[],
  order?: readonly string[],
): { lines: SampleLine[]; duplicates: number } {
  const seen = new Map<string, SampleLine>();
  let duplicates = 0;
  for (const s of samples) {
    const key = recordKey(s);
    if (seen.has(key)) duplicates++;
    else seen.set(key, s);
  }
  const lines = [...seen.values()];
  // Sort keys computed once per line, not per comparison (summaries of 40,000-record runs).
  const rank = new Map((order ?? []).map((id, i) => [id, i]));
  const epochOf = new Float64Array(lines.length);
  const rankOf = new Float64Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    epochOf[i] = lines[i]!.epoch;
    rankOf[i] = rank.get(lines[i]!.id) ?? Number.MAX_SAFE_INTEGER;
  }
  const byOrder = Array.from(lines, (_, i) => i).sort(
    (a, b) => epochOf[a]! - epochOf[b]! || rankOf[a]! - rankOf[b]! || a - b,
  );
  return { lines: byOrder.map((i) => lines[i]!), duplicates };
}

function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, idx)]!;
}

/** Epochs that hold every sample seen in the file; all epochs with records when none does. */
function epochsToUse(lines: readonly SampleLine[], ids: ReadonlySet<string>): number[] {
  // one epoch (most runs): it holds every sample seen
  if (lines.every((l) => l.epoch === lines[0]!.epoch)) return lines.length ? [lines[0]!.epoch] : [];
  const perEpoch = new Map<number, Set<string>>();
  for (const l of lines) {
    const s = perEpoch.get(l.epoch) ?? new Set<string>();
    perEpoch.set(l.epoch, s);
    s.add(l.id);
  }
  const epochs = [...perEpoch.keys()].sort((a, b) => a - b);
  const complete = epochs.filter((e) => perEpoch.get(e)!.size === ids.size);
  return complete.length ? complete : epochs;
}

export function summarizeResults(
  task: Pick<AnyTask, 'summarize' | 'dataset'>,
  contents: ResultsFileContents,
  resultsFile: string,
  extra: SummaryMetrics = {},
): RunSummary {
  if (!contents.header)
    throw new InputInvalidError(
      { file: resultsFile, record: 1 },
      'no header record; a results file starts with the run spec written by `apiary eval`',
    );
  const spec = contents.header.spec;
  const { lines, duplicates } = distinctSamples(
    contents.samples,
    task.dataset.map((s) => s.id),
  );
  const byCategory: Record<string, CategoryCounts> = {};
  let errors = 0;
  let infrastructureErrors = 0;
  let modelCalls = 0;
  let recordedBeforeEvents = 0;
  const usage = { inputTokens: 0, outputTokens: 0 };
  for (const l of lines) {
    const cat = l.category ?? '-';
    byCategory[cat] ??= { samples: 0, errors: 0 };
    const c = byCategory[cat];
    c.samples++;
    if (l.error !== null) {
      c.errors++;
      errors++;
      if (isInfrastructureError(l.error)) infrastructureErrors++;
    }
    modelCalls += l.modelCalls;
    if (l.events === undefined) recordedBeforeEvents++;
    usage.inputTokens += l.usage?.inputTokens ?? 0;
    usage.outputTokens += l.usage?.outputTokens ?? 0;
  }
  const durations = Float64Array.from(lines, (l) => l.durationMs).sort();
  const mean = durations.length ? durations.reduce((a, b) => a + b, 0) / durations.length : 0;
  const total = spec.price ? costOf(usage, spec.price) : null;

  const ids = new Set(lines.map((l) => l.id));
  const epochsUsed = epochsToUse(lines, ids);
  const headline: Record<string, MetricEstimate> = {};
  if (extra.metrics) {
    const perEpoch = epochsUsed.map((e) =>
      extra.metrics!(task.summarize(lines.filter((l) => l.epoch === e).map((l) => l.score))),
    );
    for (const name of Object.keys(perEpoch[0] ?? {}))
      headline[name] = meanWithCi(perEpoch.map((m) => m[name] ?? Number.NaN));
  }
  let pass: PassRates | null = null;
  if (extra.passed) {
    const results = new Map<string, Map<number, boolean>>();
    for (const l of lines) {
      const m = results.get(l.id) ?? new Map<number, boolean>();
      results.set(l.id, m);
      m.set(l.epoch, l.error === null && extra.passed(l.score));
    }
    pass = passRates(results, spec.epochs);
  }
  return {
    spec,
    resultsFile,
    samples: ids.size,
    records: lines.length,
    errors,
    infrastructureErrors,
    duplicates,
    byCategory,
    usage,
    modelCalls,
    cost: total === null ? null : { total, perSample: lines.length ? total / lines.length : 0 },
    latencyMs: {
      mean: round(mean),
      p50: round(percentile(durations, 50)),
      p95: round(percentile(durations, 95)),
    },
    headline,
    epochsUsed,
    pass,
    report: task.summarize(lines.map((l) => l.score)),
    ...(recordedBeforeEvents ? { recordedBeforeEvents } : {}),
  };
}

const round = (x: number) => Math.round(x * 10) / 10;

/** `$0.0135`: four significant digits. */
export function formatDollars(x: number): string {
  return `$${Number(x.toPrecision(4))}`;
}

/** `shots=2, demos=random` (null options left out). */
function formatOptions(options: Record<string, unknown>): string {
  return Object.entries(options)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
    .join(', ');
}

const fmtMetric = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(4));

/** The run facts as a table, the headline metrics over epochs, then the task's own report. */
export function formatRunSummary(summary: RunSummary, formatReport?: (report: unknown) => string): string {
  const s = summary.spec;
  const table = new Table({
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  const model = s.model ? `${s.model.id}${s.model.baseUrl ? ` @ ${s.model.baseUrl}` : ''}` : 'none';
  const options = formatOptions(s.solver.options);
  const rows: Array<Record<string, string>> = [
    { task: `${s.task.name} v${s.task.version}` },
    { solver: `${s.solver.name}${options ? ` (${options})` : ''}` },
    { model },
  ];
  if (s.sampling) {
    const { temperature, topP, maxOutputTokens } = s.sampling;
    rows.push({
      sampling: `temperature ${temperature ?? '-'}, top_p ${topP ?? 'omitted'}, max tokens ${maxOutputTokens ?? '-'}`,
    });
  }
  rows.push({ seed: String(s.seed) });
  const dup = summary.duplicates ? ` (${summary.duplicates} duplicate records ignored)` : '';
  if (s.epochs > 1) {
    rows.push({ epochs: String(s.epochs) });
    rows.push({ samples: `${summary.samples} × ${s.epochs} epochs: ${summary.records} records${dup}` });
  } else rows.push({ samples: `${summary.samples}${dup}` });
  rows.push(
    { errors: String(summary.errors) },
    ...(summary.infrastructureErrors
      ? [{ 'infrastructure errors': `${summary.infrastructureErrors} (the model endpoint failed)` }]
      : []),
    { 'model calls': String(summary.modelCalls) },
    ...(summary.recordedBeforeEvents
      ? [{ events: `none on ${summary.recordedBeforeEvents} records (recorded before events)` }]
      : []),
    { tokens: `${summary.usage.inputTokens} in / ${summary.usage.outputTokens} out` },
  );
  if (summary.cost)
    rows.push({
      cost: `${formatDollars(summary.cost.total)} (${formatDollars(summary.cost.perSample)} per sample)`,
    });
  rows.push({
    'latency ms': `mean ${summary.latencyMs.mean}, p50 ${summary.latencyMs.p50}, p95 ${summary.latencyMs.p95}`,
  });
  table.push(...rows);
  let out = `${table.toString()}\n`;
  if (s.epochs > 1 && Object.keys(summary.headline).length) {
    const names = Object.keys(summary.headline);
    const width = Math.max(6, ...names.map((n) => n.length));
    out += `\nHeadline metrics over epochs ${summary.epochsUsed.join(', ')} (mean ± 95% CI, Student t)\n`;
    for (const n of names) {
      const m = summary.headline[n]!;
      const ci = m.ci95 === null ? '' : ` ± ${fmtMetric(m.ci95)}`;
      out += `${n.padEnd(width)}  ${fmtMetric(m.mean)}${ci}   (per epoch: ${m.perEpoch.map(fmtMetric).join(', ')})\n`;
    }
  }
  if (summary.pass && s.epochs > 1)
    out += `pass^${summary.pass.k} ${fmtMetric(summary.pass.passHatK)}, pass@${summary.pass.k} ${fmtMetric(
      summary.pass.passAtK,
    )} (over ${summary.pass.samples} samples run in all ${summary.pass.k} epochs)\n`;
  if (formatReport) out += `${formatReport(summary.report)}\n`;
  return out;
}

/** Reads a results file and recomputes its summary (e.g. to re-report a finished or stopped run). */
export function summarizeResultsFile(
  task: Pick<AnyTask, 'summarize' | 'dataset'>,
  resultsFile: string,
  extra: SummaryMetrics = {},
): RunSummary {
  return summarizeResults(task, readResultsFile(resultsFile), resultsFile, extra);
}
