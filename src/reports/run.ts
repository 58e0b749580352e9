import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  distinctSamples,
  type RunSummary,
  readResultsFile,
  type SampleLine,
  summarizeResults,
} from '../harness/index.js';
import { defaultPluginRegistry, type PluginRegistry, type ReportSummary } from '../plugins/index.js';
import { ApiaryError } from '../shared/index.js';
import { defaultTaskRegistry, type TaskRegistry } from '../tasks/index.js';
import { taskReportParts } from './parts.js';

/** A run as the report sees it: its spec and summary, and its distinct (sample, epoch) records. */
export interface ReportRun {
  /** The run folder (or the results file's folder). */
  folder: string;
  /** Short name shown in column heads and legends (model and solver; made unique by the caller). */
  label: string;
  summary: RunSummary;
  lines: SampleLine[];
  /** The results file ended in a torn line (an interrupted run); it is not counted. */
  truncatedTail: boolean;
}

/** What a report needs of a task: how to summarise its scores and its headline metrics. */
type ReportTaskDefinition = ReportSummary;

/**
 * How a run's scores are summarised: as its plugin's report parts say when they have their own
 * summary (its section reads that shape, from the same per-sample scores the task records), else
 * as the task does; else not at all (the report shows the run facts only).
 */
async function definitionFor(
  name: string,
  registry: TaskRegistry,
  plugins: PluginRegistry,
): Promise<ReportTaskDefinition | null> {
  const own = (await taskReportParts(name, plugins))?.task.summary;
  if (own) return own;
  if (registry.has(name)) return registry.get(name) as ReportTaskDefinition;
  return null;
}

/** Reads a run folder (or results file) and summarises it with its task's definition. */
export async function loadReportRun(
  run: string,
  registry: TaskRegistry = defaultTaskRegistry,
  plugins: PluginRegistry = defaultPluginRegistry,
): Promise<ReportRun> {
  await plugins.loadTasks(registry);
  const file = run.endsWith('.jsonl') ? resolve(run) : join(resolve(run), 'results.jsonl');
  if (!existsSync(file)) throw new ApiaryError('NOT_FOUND', `no results file at ${file}`);
  const contents = readResultsFile(file);
  const spec = contents.header?.spec;
  if (!spec) throw new ApiaryError('INPUT_INVALID', `${file}: no header record`);
  const def = await definitionFor(spec.task.name, registry, plugins);
  const summary = summarizeResults(
    { summarize: def ? (s) => def.summarize(s) : () => null, dataset: [] },
    contents,
    file,
    def
      ? {
          metrics: (r) => def.metrics(r as never),
          ...(def.passed ? { passed: (s) => def.passed!(s as never) } : {}),
        }
      : {},
  );
  const { lines } = distinctSamples(contents.samples);
  const folder = dirname(file);
  return {
    folder,
    label: `${spec.model?.id ?? 'no model'} · ${spec.solver.name}`,
    summary,
    lines,
    truncatedTail: contents.truncatedTail,
  };
}

/** Labels made unique: runs sharing a label get their folder name appended. */
export function uniqueLabels(runs: readonly ReportRun[]): ReportRun[] {
  const count = new Map<string, number>();
  for (const r of runs) count.set(r.label, (count.get(r.label) ?? 0) + 1);
  return runs.map((r) =>
    count.get(r.label)! > 1 ? { ...r, label: `${r.label} (${basename(r.folder)})` } : r,
  );
}
