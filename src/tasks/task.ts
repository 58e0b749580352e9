/**
 * The generic evaluation contract, in the spirit of Inspect AI: a task is a dataset, a solver
 * (./solver.ts: a function over one sample's state) and a scorer, plus a summary over all scores. The harness
 * (src/harness) runs any task with bounded concurrency, records each sample on one JSONL line and
 * recomputes the summary from the recorded scores, so scores must be JSON-serialisable.
 *
 * A `TaskDefinition` is what the registry (./registry.ts) holds: how to load a task by name from
 * options, a solver choice and a model, plus the task's headline metrics.
 */

import type { LanguageModel } from 'ai';
import type { z } from 'zod';
import type { AgentTraceSink } from '../agents/index.js';
import type { SamplingSettings, TokenUsage } from '../models/index.js';
import type { ModelEndpointFlags, RecordMode } from '../tools/index.js';
import type { SolverDefinition, SolverState } from './solver.js';

/** How a task's tool calls are recorded or replayed (`--record-tools`); tasks own the tool settings. */
export { RECORD_MODES } from '../tools/index.js';

/** Anything a task evaluates: a stable id (used to resume) and an optional category for breakdowns. */
export interface TaskSample {
  readonly id: string;
  readonly category?: string;
}

export interface SolveContext {
  /** Run seed: drives any sampling the solver does (few-shot demos, tie breaks). */
  seed: number;
  /** Which repetition of the sample this is (1-based; see `--epochs`). */
  epoch?: number;
  /** Aborted when the run is cancelled (Ctrl-C); a solver should stop promptly. */
  signal?: AbortSignal;
  /**
   * Where the solver writes what the sample did (docs/harness.md, "Sample events"): an agent loop
   * takes it as its trace; a solver without one writes its model turns, the calls it proposes or
   * runs, and one stop. The harness always gives one and records the events on the sample's line.
   */
  events?: AgentTraceSink;
}

/** What a solver returns: the output (recorded and scored) plus cost accounting. */
export interface Solved<Output> {
  output: Output;
  usage?: TokenUsage;
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
  // method signatures (not `Solver`/`Scorer` properties) so any task is an `AnyTask`
  /** A `Solver`: turns a sample's state into one with an output (`solveSample` runs it from a fresh state). */
  solver(state: SolverState<S, Output>, ctx: SolveContext): Promise<SolverState<S, Output>>;
  /**
   * A `Scorer`: the same sample and outcome always give the same JSON-serialisable score. May be
   * async (a scorer that runs code or asks a judge); the harness awaits it.
   */
  scorer(sample: S, outcome: Outcome<Output>): Score | Promise<Score>;
  /** Aggregates per-sample scores (as read back from the results file) into a report. */
  summarize(scores: readonly Score[]): Report;
  /** Human-readable rendering of the report (a table). */
  formatReport?(report: Report): string;
}

/** Any task, for code that only moves samples and scores around. */
// biome-ignore lint/suspicious/noExplicitAny: the harness is generic over every task's types
export type AnyTask = Task<TaskSample, any, any, any>;

/** Options are a zod object: its defaults are the task's defaults, its issues name the option. */
// biome-ignore lint/suspicious/noExplicitAny: any object shape
export type OptionsSchema = z.ZodObject<any>;

/** Limits of each model call, passed through to LLM solvers (not part of the run spec). */
export interface ModelCallLimits {
  timeoutMs?: number;
  maxRetries?: number;
  baseDelayMs?: number;
}

export interface TaskLoadContext {
  /** Validated task options (defaults filled in). */
  options: Record<string, unknown>;
  solver: string;
  /** Validated options of that solver (defaults filled in). */
  solverOptions: Record<string, unknown>;
  /** The model, when the solver uses one and one is configured. */
  model?: LanguageModel;
  /** The effective sampling settings (flags > env/config > the task's defaults). */
  sampling: SamplingSettings;
  /** `--data`: the task decides what it means (a folder of benchmark files). */
  dataDir?: string;
  seed: number;
  /** First N samples of each category (the task says what a category is), all when absent. */
  limit?: number;
  modelCalls?: ModelCallLimits;
  signal?: AbortSignal;
  /** The run folder (tasks keep artefacts there, e.g. the images tools drew, one folder per sample). */
  runDir?: string;
  /** Executable tools: their configuration, a recording to replay, the embeddings endpoint. */
  tools?: TaskToolSettings;
}

/**
 * The tools' settings as the core sees them: opaque, except for the model endpoints some tools call
 * (a vision-language model, an image model), whose keys the queue strips before a recipe leaves
 * the machine. Each task that builds tools reads its own fields (and checks them).
 */
export interface ToolsConfig {
  vision?: ModelEndpointFlags;
  image?: ModelEndpointFlags;
}

/** How a task that runs real tools builds them (the `eval` flags shared with `apiary tools call`). */
export interface TaskToolSettings {
  /** The tools' own settings (sandbox, search provider, endpoints): the task that builds the tools reads them. */
  config?: ToolsConfig;
  /** Record or replay every tool call in this folder. */
  recording?: { dir: string; mode: RecordMode };
  /** The embeddings endpoint of similarity scores (answers and images compared by meaning). */
  embeddings?: ModelEndpointFlags;
}

export interface LoadedTask {
  task: AnyTask;
  /** What was read: a folder or file and the SHA-256 of the data files' content. */
  dataSource: { path: string; sha256: string };
  /** Lines worth showing the user (where the data came from, how many samples). */
  notes?: string[];
  /** Frees what the task keeps for its samples (tool workers); the caller calls it once the run ends. */
  dispose?: () => Promise<void>;
  /** Lines worth showing once the run ended (e.g. a tool recording's hits and misses). */
  finalNotes?: () => string[];
}

/** A registered task: everything `apiary eval <name>` needs. */
// biome-ignore lint/suspicious/noExplicitAny: each task has its own report, score and output types
export interface TaskDefinition<Report = any, Score = any, Output = any> {
  name: string;
  description: string;
  version: string;
  options: OptionsSchema;
  /** The registered solvers by name (each entry's `name` is its key); `load` builds the chosen one. */
  solvers: Readonly<Record<string, SolverDefinition>>;
  defaultSolver: string;
  /** Solver used when none is asked for and no model is configured (AppBench: the baseline). */
  noModelSolver?: string;
  /** This task's default sampling (used where flags, env and config say nothing). */
  sampling?: SamplingSettings;
  load(ctx: TaskLoadContext): Promise<LoadedTask>;
  /** Aggregates scores without loading data (for `apiary report` when the data is gone). */
  summarize(scores: readonly Score[]): Report;
  formatReport?(report: Report): string;
  /** Headline numbers of a report, computed per epoch for mean ± CI. */
  metrics(report: Report): Record<string, number>;
  /** For pass/fail tasks: whether one sample passed (gives pass^k and pass@k over epochs). */
  passed?(score: Score): boolean;
  /**
   * The shape of a recorded `output` (null, the failed-sample value, is always accepted): the
   * results reader checks every record of this task against it and names the file, line and field.
   */
  outputSchema?: z.ZodType<Output>;
  /** The shape of a recorded `score`, checked the same way. */
  scoreSchema?: z.ZodType<Score>;
}
