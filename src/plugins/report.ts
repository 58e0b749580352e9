/**
 * What a benchmark adds to the HTML report and the trace viewer: per task, its report section, how
 * the report summarises its scores when not as the task does, and what the viewer shows of a
 * sample's output and score. Loaded only by `apiary report --html` and `apiary view`.
 *
 * The report's own types (its runs and blocks, in src/reports) sit above this layer, so the
 * contract names them as type parameters: a benchmark declares its parts as
 * `ReportParts<Published>` of src/reports (`PluginReport<ReportRun, Block, Published>`), which
 * reads them back as that type. With the defaults every instance is a `PluginReport`.
 */
export interface PluginReport<Run = unknown, Block = unknown, Published = unknown> {
  /**
   * Reads the benchmark's published numbers (the papers' tables, vendored as files under
   * data/published/); its sections get them back. `dir` is that folder.
   */
  published?(dir: string): Published;
  /** Report parts of the plugin's tasks, by task name. */
  readonly tasks: Readonly<Record<string, TaskReport<Run, Block, Published>>>;
}

/** One task's report parts; every field but the title is optional. */
export interface TaskReport<Run = unknown, Block = unknown, Published = unknown> {
  /** The report section's heading: `GTA`. */
  readonly title: string;
  /**
   * The task's section: the papers' tables and charts over its runs (side by side), with the
   * published numbers beside them. Without it the section shows run facts and headline metrics.
   */
  section?(runs: readonly Run[], published: Published): Promise<Block[]>;
  /** How reports summarise the task's per-sample scores, when not as the task itself does. */
  readonly summary?: ReportSummary;
  /** What the viewer shows of a sample besides its events. */
  readonly viewer?: ViewerHints;
}

/** Per-sample scores → a run's report and its headline metrics (the task definition's shape). */
export interface ReportSummary {
  summarize(scores: readonly unknown[]): unknown;
  metrics(report: never): Record<string, number>;
  passed?(score: never): boolean;
}

/**
 * Hints for the viewer. A sample's events (model turns, tool calls, stop) are shown the same for
 * every task; these say what of its task-specific output and score is worth a look.
 */
export interface ViewerHints {
  /** The sample's answer as text (its plan, its final reply), shown first; null when it has none. */
  answer?(output: unknown): string | null;
  /** Top-level output fields left out of the output shown (they repeat the events). */
  readonly hiddenOutputFields?: readonly string[];
  /** Facts of a score worth a line each (`gold tools: …`), shown beside its metrics. */
  scoreFacts?(score: unknown): ReadonlyArray<readonly [label: string, value: string]>;
}
