import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { formatRunSummary, readResultsFile, summarizeResults } from '../../harness/index.js';
import { defaultPluginRegistry } from '../../plugins/index.js';
import { buildHtmlReportFromFolders } from '../../reports/index.js';
import { ApiaryError, NotFoundError, redactSecrets } from '../../shared/index.js';
import { type AnyTask, defaultTaskRegistry, getTask } from '../../tasks/index.js';
import { parseOutputPath } from '../options.js';
import { printJson, terminalText } from '../output.js';

/**
 * Recomputes a run's summary from its results file, for any registered task (and for results
 * files of run spec v1). The task's data, when still there, gives the sample order; without it
 * the file order is used.
 */
export async function reportRun(run: string, opts: { json?: boolean }): Promise<void> {
  await defaultPluginRegistry.loadTasks();
  const file = run.endsWith('.jsonl') ? resolve(run) : join(resolve(run), 'results.jsonl');
  if (!existsSync(file))
    throw new NotFoundError('file', file, [
      'pass a run folder written by `apiary eval` (it holds results.jsonl) or its results file',
    ]);
  // a known task's records are checked against its output and score schemas
  const contents = readResultsFile(file, (name) =>
    defaultTaskRegistry.has(name) ? defaultTaskRegistry.get(name) : undefined,
  );
  const spec = contents.header?.spec;
  if (!spec) throw new ApiaryError('INPUT_INVALID', `${file}: no header record`);
  const def = getTask(spec.task.name);
  const notes: string[] = [];
  let task: Pick<AnyTask, 'summarize' | 'dataset' | 'formatReport'> = {
    summarize: def.summarize,
    dataset: [],
    ...(def.formatReport ? { formatReport: def.formatReport } : {}),
  };
  if (existsSync(spec.data.path)) {
    try {
      const loaded = await def.load({
        options: spec.task.options,
        solver: spec.solver.name in def.solvers ? spec.solver.name : def.defaultSolver,
        solverOptions: spec.solver.options,
        sampling: {},
        dataDir: spec.data.path,
        seed: spec.seed,
        ...(spec.limit !== null ? { limit: spec.limit } : {}),
      });
      task = loaded.task;
      if (spec.data.sha256 && loaded.dataSource.sha256 !== spec.data.sha256)
        notes.push(`note: the data in ${spec.data.path} changed since the run (its hash differs)`);
    } catch {
      // data unreadable now: report in file order
    }
  }
  const summary = summarizeResults(task, contents, file, {
    metrics: def.metrics,
    ...(def.passed ? { passed: def.passed } : {}),
  });
  const summaryFile = join(dirname(file), 'summary.json');
  // the summary is printed either way: a run read from a read-only place is still reported
  let unwritten: string | undefined;
  try {
    writeFileSync(summaryFile, `${redactSecrets(JSON.stringify(summary, null, 2))}\n`);
  } catch (error) {
    unwritten = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
  if (unwritten)
    process.stderr.write(`note: ${summaryFile} not written (${unwritten}); the summary is printed only\n`);
  if (opts.json) {
    printJson(summary);
    return;
  }
  if (contents.truncatedTail) process.stderr.write('note: ignored a torn last line (interrupted run)\n');
  if (contents.specVersion === 1)
    process.stderr.write('note: results file of run spec v1 (read as v2; it cannot be resumed)\n');
  for (const n of notes) process.stderr.write(`${n}\n`);
  // the summary quotes error texts and sample ids from the results file: printed terminal-safe
  process.stdout.write(
    terminalText(formatRunSummary(summary, task.formatReport ? (r) => task.formatReport!(r) : undefined)),
  );
  const total = spec.size * spec.epochs;
  const missing = total - summary.records;
  if (missing > 0)
    process.stdout.write(`incomplete: ${missing} of ${total} samples not recorded; continue with --resume\n`);
  if (!unwritten) process.stdout.write(`summary: ${summaryFile}\n`);
}

/**
 * Writes one self-contained HTML report over the runs (any tasks; runs of one task side by side).
 * Returns the absolute path written.
 */
export async function writeHtmlReport(
  runs: readonly string[],
  file: string,
  notes: string[] = [],
): Promise<string> {
  // each run's task and its report section come from the registered plugins
  await defaultPluginRegistry.loadTasks();
  const html = await buildHtmlReportFromFolders(runs, { notes });
  const out = resolve(file);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, html);
  return out;
}

export function registerReportCommands(program: Command): void {
  program
    .command('report')
    .description(
      'recompute and print the summary of a run of any task from its results.jsonl; with --html, one ' +
        'self-contained HTML report over one or more runs (tables, charts, published numbers, comparison)',
    )
    .argument('<runs...>', 'run folders (holding results.jsonl) or results files')
    .option('--json', 'machine-readable output')
    .option('--html <file>', 'write one HTML report over all the runs to this file')
    .action(async (runs: string[], flags: { json?: boolean; html?: string }) => {
      if (flags.html) {
        if (flags.json) throw new ApiaryError('USAGE', '--html and --json exclude each other');
        parseOutputPath('--html', flags.html); // before the runs are read (docs/errors.md)
        const out = await writeHtmlReport(runs, flags.html);
        process.stdout.write(`report: ${out}\n`);
        return;
      }
      if (runs.length > 1 && flags.json)
        throw new ApiaryError('USAGE', '--json reports one run; pass one run folder (or use --html)');
      for (const run of runs) await reportRun(run, flags);
    });
}
