import { appBenchSection } from '../benchmarks/appbench/report-section.js';
import { gtaSection } from '../benchmarks/gta/report-section.js';
import { shortcutsSection } from '../benchmarks/shortcutsbench/report-section.js';
import { toolBenchSection } from '../benchmarks/toolbench/report-section.js';
import type { Block, ReportSection } from './html.js';
import { renderPage } from './html.js';
import { loadPublishedResults, type PublishedResults } from './published.js';
import { loadReportRun, type ReportRun, uniqueLabels } from './run.js';
import { commonBlocks } from './sections/common.js';

type SectionBuilder = (runs: readonly ReportRun[], published: PublishedResults) => Promise<Block[]>;

/** Each task's section: the papers' tables and charts. Tasks not listed get the run facts only. */
const SECTIONS: Record<string, { title: string; build: SectionBuilder }> = {
  appbench: { title: 'AppBench / MetaBench', build: appBenchSection },
  shortcuts: { title: 'ShortcutsBench', build: shortcutsSection },
  gta: { title: 'GTA', build: gtaSection },
  'toolbench-retrieval': { title: 'ToolBench retrieval', build: (runs) => toolBenchSection(runs) },
};

export interface HtmlReportOptions {
  title?: string;
  /** Published numbers (default: the vendored data/published/). */
  published?: PublishedResults;
  /** Extra lines under the title (e.g. tasks `eval all` skipped). */
  notes?: string[];
  /** For the "generated" line (injected in tests). */
  now?: () => Date;
}

/**
 * One self-contained HTML page for runs of one or several tasks: a section per task (in the order
 * of first appearance) with its runs side by side, the published numbers beside them, and, for two
 * or more runs of a task, the spec differences and the samples whose score changed.
 */
export async function buildHtmlReport(
  runs: readonly ReportRun[],
  opts: HtmlReportOptions = {},
): Promise<string> {
  const published = opts.published ?? loadPublishedResults();
  const byTask = new Map<string, ReportRun[]>();
  for (const r of runs) {
    const name = r.summary.spec.task.name;
    byTask.set(name, [...(byTask.get(name) ?? []), r]);
  }
  // Labels need only tell a task's runs apart (its section's columns and legends).
  for (const [name, taskRuns] of byTask) byTask.set(name, uniqueLabels(taskRuns));
  const sections: ReportSection[] = [];
  for (const [task, taskRuns] of byTask) {
    const def = SECTIONS[task];
    const blocks = def
      ? await def.build(taskRuns, published)
      : [
          ...commonBlocks(taskRuns),
          {
            kind: 'note' as const,
            text: `No report layout for task "${task}": run facts and headline metrics only.`,
          },
        ];
    sections.push({ id: `task-${task}`, title: def?.title ?? task, blocks });
  }
  const now = (opts.now ?? (() => new Date()))();
  const intro = [
    `${runs.length} run(s) of ${byTask.size} task(s); generated ${now.toISOString()}.`,
    'Rows in grey italics are published numbers (from the papers and the GTA leaderboard), with the split they were measured on.',
    ...(opts.notes ?? []),
  ];
  return renderPage(opts.title ?? 'Apiary evaluation report', intro, sections);
}

/** Reads the run folders and builds the report (see {@link buildHtmlReport}). */
export async function buildHtmlReportFromFolders(
  folders: readonly string[],
  opts: HtmlReportOptions = {},
): Promise<string> {
  return buildHtmlReport(
    folders.map((f) => loadReportRun(f)),
    opts,
  );
}
