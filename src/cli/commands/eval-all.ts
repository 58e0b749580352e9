import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  createRunFolder,
  DEFAULT_RUNS_DIR,
  type EvaluateResult,
  evaluate,
  runFolderPrefix,
} from '../../harness/index.js';
import { defaultPluginRegistry } from '../../plugins/index.js';
import { ApiaryError } from '../../shared/index.js';
import { listTasks } from '../../tasks/index.js';
import { parseOutputPath } from '../options.js';
import { EXIT, printJson } from '../output.js';
import { type EvalFlags, evalRequest, importPluginFlags, reportEvalResult, tasksOwnFlags } from './eval.js';
import { ModelRequiredError } from './eval-settings.js';
import { writeHtmlReport } from './report.js';

/** Flags that name one task's solver or options: they mean nothing across every task. */
const TASK_SPECIFIC: ReadonlyArray<[keyof EvalFlags, string]> = [
  ['solver', '--solver'],
  ['option', '--option'],
];

/** Where a task finds its data under a `--data` root laid out as ../shared/data (its plugin says). */
function dataFolderOf(task: string): string {
  const plugin = defaultPluginRegistry.pluginOfTask(task);
  return plugin?.tasks?.find((t) => t.name === task)?.dataFolder ?? '';
}

/** The flags one task of `eval all` gets: other tasks' own flags (`inEvalAll: 'own'`) left out. */
const forTask = (task: string, flags: EvalFlags): EvalFlags => {
  const others = new Set(
    tasksOwnFlags()
      .filter((f) => f.task !== task && f.flag.inEvalAll === 'own')
      .map((f) => f.key),
  );
  return Object.fromEntries(Object.entries(flags).filter(([k]) => !others.has(k))) as EvalFlags;
};

interface EvalAllOutcome {
  task: string;
  folder: string;
  status: 'ran' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  reason?: string;
}

/**
 * `apiary eval all`: every registered task with one model (each task's default solver; its default
 * data, or its folder under `--data`), each into `<out>/<task>/`, then one HTML report across them
 * (`<out>/report.html`). A task whose data is missing is skipped and named in the report; a task
 * that fails does not stop the others (exit 3 at the end).
 */
export async function runEvalAll(flags: EvalFlags): Promise<void> {
  await importPluginFlags(flags.plugin);
  const refused = [
    ...TASK_SPECIFIC,
    ...tasksOwnFlags()
      .filter((f) => f.flag.inEvalAll === 'refuse')
      .map((f): [string, string] => [f.key, f.long]),
  ];
  for (const [key, flag] of refused)
    if (flags[key] !== undefined)
      throw new ApiaryError(
        'USAGE',
        `${flag} names one task's settings; eval all runs every task with its defaults`,
      );
  // once, before any task starts: a read-only --out is the command line's fault (USAGE, exit 2)
  parseOutputPath('--out', flags.out, 'directory');
  await defaultPluginRegistry.loadTasks();
  const root = flags.out
    ? resolve(flags.out)
    : createRunFolder(
        resolve(DEFAULT_RUNS_DIR),
        runFolderPrefix('all', 'default', flags.model ?? null),
        new Date(),
      );
  const outcomes: EvalAllOutcome[] = [];
  for (const def of listTasks()) {
    const folder = join(root, def.name);
    const data = flags.data ? join(resolve(flags.data), dataFolderOf(def.name)) : undefined;
    if (!flags.json) process.stderr.write(`\n== ${def.name} → ${folder}\n`);
    const exitBefore = process.exitCode;
    try {
      const request = await evalRequest(def.name, {
        ...forTask(def.name, flags),
        out: folder,
        ...(data ? { data } : {}),
      });
      let result: EvaluateResult;
      try {
        result = await evaluate(request.recipe, request.options);
      } finally {
        request.done();
      }
      // With --json, one document for every task is printed at the end, and nothing else on stdout.
      reportEvalResult(result, request, flags, !flags.json);
      outcomes.push({ task: def.name, folder, status: 'ran' });
    } catch (error) {
      // missing data, or no model for a task that has no model-free solver: skipped, named in the report
      const missingData =
        (error instanceof ApiaryError && error.code === 'NOT_FOUND') || error instanceof ModelRequiredError;
      const reason = error instanceof ApiaryError ? `[${error.code}] ${error.message}` : String(error);
      outcomes.push({ task: def.name, folder, status: missingData ? 'skipped' : 'failed', reason });
      if (!flags.json)
        process.stderr.write(`${missingData ? 'skipped' : 'failed'}: ${def.name}: ${reason}\n`);
      if (!missingData) process.exitCode = EXIT.runtime;
      else process.exitCode = exitBefore;
    }
  }
  const done = outcomes.filter((o) => o.status === 'ran' && existsSync(join(o.folder, 'results.jsonl')));
  const notes = outcomes.filter((o) => o.status !== 'ran').map((o) => `${o.task}: ${o.status} (${o.reason})`);
  const report = done.length
    ? await writeHtmlReport(
        done.map((o) => o.folder),
        join(root, 'report.html'),
        notes,
      )
    : null;
  if (flags.json) {
    printJson({ out: root, report, tasks: outcomes });
    return;
  }
  process.stdout.write('\n');
  for (const o of outcomes)
    process.stdout.write(`${o.task}: ${o.status}${o.reason ? ` (${o.reason})` : ''}\n`);
  if (report) process.stdout.write(`report: ${report}\n`);
  else {
    process.stderr.write('no task ran: nothing to report\n');
    process.exitCode = EXIT.runtime;
  }
}
