import {
  type BenchmarkPlugin,
  defaultPluginRegistry,
  type PluginRegistry,
  type PluginReport,
  type TaskReport,
} from '../plugins/index.js';
import type { Block } from './html.js';
import type { ReportRun } from './run.js';

/** A benchmark's report parts as the report reads them: its runs are `ReportRun`s, its blocks `Block`s. */
export type ReportParts<Published = unknown> = PluginReport<ReportRun, Block, Published>;
/** One task's report parts (title, section, summary, viewer hints). */
export type TaskReportParts<Published = unknown> = TaskReport<ReportRun, Block, Published>;

/** A task's report parts and the plugin they came from. */
export interface FoundTaskReport {
  plugin: BenchmarkPlugin;
  report: ReportParts;
  task: TaskReportParts;
}

/**
 * The report parts of a task: from the plugin that lists the task (its manifest names it; only
 * that plugin's report module is loaded). null when no plugin has parts for it.
 */
export async function taskReportParts(
  taskName: string,
  plugins: PluginRegistry = defaultPluginRegistry,
): Promise<FoundTaskReport | null> {
  for (const plugin of plugins.list()) {
    if (!plugin.report || !plugin.tasks?.some((t) => t.name === taskName)) continue;
    // the one place the contract's type parameters are filled in (see src/plugins/report.ts)
    const report = (await plugin.report()) as ReportParts;
    const task = Object.hasOwn(report.tasks, taskName) ? report.tasks[taskName] : undefined;
    if (task) return { plugin, report, task };
  }
  return null;
}
