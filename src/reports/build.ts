import { defaultPluginRegistry, type PluginRegistry } from '../plugins/index.js';
import type { ReportSection } from './html.js';
import { renderPage } from './html.js';
import { type FoundTaskReport, taskReportParts } from './parts.js';
import { bundledPublishedDir, type PublishedResults } from './published.js';
import { loadReportRun, type ReportRun, uniqueLabels } from './run.js';
import { commonBlocks } from './sections/common.js';

export interface HtmlReportOptions {
  title?: string;
  /** Published numbers by plugin name (default: each plugin reads its own from `publishedDir`). */
  published?: PublishedResults;
  /** Where plugins read their published numbers (default: the vendored data/published/). */
  publishedDir?: string;
  /** Where each task's report parts come from (default: the registered plugins). */
  plugins?: PluginRegistry;
  /** Extra lines under the title (e.g. tasks `eval all` skipped). */
  notes?: string[];
  /** For the "generated" line (injected in tests). */
  now?: () => Date;
}

/**
 * One self-contained HTML page for runs of one or several tasks: a section per task (in the order
 * of first appearance) with its runs side by side, the published numbers beside them, and, for two
 * or more runs of a task, the spec differences and the samples whose score changed. Each task's
 * section comes from its plugin's report parts; a task without one gets the run facts only.
 */
export async function buildHtmlReport(
  runs: readonly ReportRun[],
  opts: HtmlReportOptions = {},
): Promise<string> {
  const plugins = opts.plugins ?? defaultPluginRegistry;
  // each plugin's published numbers are read once, and only for the tasks shown
  const published = new Map<string, unknown>();
  const publishedOf = (found: FoundTaskReport): unknown => {
    const name = found.plugin.name;
    if (opts.published && Object.hasOwn(opts.published, name)) return opts.published[name];
    if (!published.has(name))
      published.set(name, found.report.published?.(opts.publishedDir ?? bundledPublishedDir()));
    return published.get(name);
  };
  const byTask = new Map<string, ReportRun[]>();
  for (const r of runs) {
    const name = r.summary.spec.task.name;
    byTask.set(name, [...(byTask.get(name) ?? []), r]);
  }
  // Labels need only tell a task's runs apart (its section's columns and legends).
  for (const [name, taskRuns] of byTask) byTask.set(name, uniqueLabels(taskRuns));
  const sections: ReportSection[] = [];
  for (const [task, taskRuns] of byTask) {
    const found = await taskReportParts(task, plugins);
    const blocks = found?.task.section
      ? await found.task.section(taskRuns, publishedOf(found))
      : [
          ...commonBlocks(taskRuns),
          {
            kind: 'note' as const,
            text: `No report layout for task "${task}": run facts and headline metrics only.`,
          },
        ];
    sections.push({ id: `task-${task}`, title: found?.task.title ?? task, blocks });
  }
  const now = (opts.now ?? (() => new Date()))();
  const intro = [
    `${runs.length} run(s) of ${byTask.size} task(s); generated ${now.toISOString()}.`,
    'Rows in grey italics are published numbers (from the papers and their leaderboards), with the split they were measured on.',
    ...(opts.notes ?? []),
  ];
  return renderPage(opts.title ?? 'Apiary evaluation report', intro, sections);
}

/** Reads the run folders and builds the report (see {@link buildHtmlReport}). */
export async function buildHtmlReportFromFolders(
  folders: readonly string[],
  opts: HtmlReportOptions = {},
): Promise<string> {
  const runs: ReportRun[] = [];
  for (const f of folders) runs.push(await loadReportRun(f, undefined, opts.plugins));
  return buildHtmlReport(runs, opts);
}
