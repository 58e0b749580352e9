/**
 * The generic evaluation contract, in the spirit of Inspect AI: a task names a dataset, a solver
 * that turns one sample into an output, a pure scorer and a summary over all scores. The harness
 * (src/harness) runs any task with bounded concurrency, records each sample on one JSONL line and
 * recomputes the summary from the recorded scores, so scores must be JSON-serialisable.
 */

/** Anything a task evaluates: a stable id (used to resume) and an optional category for breakdowns. */
export interface TaskSample {
  readonly id: string;
  readonly category?: string;
}

/** Token counts of one sample, summed over all model calls made for it. */
export interface TaskUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface SolveContext {
  /** Run seed: drives any sampling the solver does (few-shot demos, tie breaks). */
  seed: number;
  /** Aborted when the run is cancelled (Ctrl-C); a solver should stop promptly. */
  signal?: AbortSignal;
}

/** What a solver returns: the output (recorded and scored) plus cost accounting. */
export interface Solved<Output> {
  output: Output;
  usage?: TaskUsage;
  /** Model calls made for this sample (0 for a no-model baseline). */
  modelCalls?: number;
}

/** The scorer's input: the solver's output, or the error that prevented one. */
export type Outcome<Output> = { output: Output; error?: undefined } | { output: null; error: string };

export interface Task<S extends TaskSample, Output, Score, Report = unknown> {
  /** Stable task name, e.g. `appbench`; recorded in the run spec. */
  readonly name: string;
  /** Bumped whenever scoring or prompting changes the meaning of a result. */
  readonly version: string;
  /** The loaded samples, in dataset order. */
  readonly dataset: readonly S[];
  solve(sample: S, ctx: SolveContext): Promise<Solved<Output>>;
  /** Pure: the same sample and outcome always give the same JSON-serialisable score. */
  score(sample: S, outcome: Outcome<Output>): Score | Promise<Score>;
  /** Aggregates per-sample scores (as read back from the results file) into a report. */
  summarize(scores: readonly Score[]): Report;
  /** Human-readable rendering of the report (a table). */
  formatReport?(report: Report): string;
}

/** Any task, for code that only moves samples and scores around. */
// biome-ignore lint/suspicious/noExplicitAny: the harness is generic over every task's types
export type AnyTask = Task<TaskSample, any, any, any>;
