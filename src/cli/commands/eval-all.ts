import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRunFolder, DEFAULT_RUNS_DIR, runFolderPrefix } from '../../harness/index.js';
import { ApiaryError } from '../../shared/index.js';
import { listTasks, registerBuiltinTasks } from '../../tasks/index.js';
import { EXIT, printJson } from '../output.js';
import { type EvalFlags, runEvalCommand } from './eval.js';
import { ModelRequiredError } from './eval-settings.js';
import { writeHtmlReport } from './report.js';

/**
 * Where each task finds its data under a `--data` root laid out as ../shared/data (appbench/,
 * shortcutsbench/, toolbench/, gta/). Tasks not listed get the root itself.
 */
const EVAL_ALL_DATA_FOLDERS: Readonly<Record<string, string>> = {
  appbench: 'appbench',
  shortcuts: 'shortcutsbench',
  // The ToolBench task reads <root>/toolbench/ itself.
  'toolbench-retrieval': '',
  gta: 'gta',
};

/** Flags that name one task's solver or options: they mean nothing across every task. */
const TASK_SPECIFIC: ReadonlyArray<[keyof EvalFlags, string]> = [
  ['solver', '--solver'],
  ['option', '--option'],
  ['levels', '--levels'],
  ['categories', '--categories'],
  ['prompting', '--prompting'],
  ['shots', '--shots'],
  ['demos', '--demos'],
  ['mode', '--mode'],
];

/** GTA's tool flags: passed to the gta task only. */
const GTA_TOOL_FLAGS: ReadonlyArray<keyof EvalFlags> = [
  'searchCorpus',
  'searchProvider',
  'visionBaseUrl',
  'visionModel',
  'imageBaseUrl',
  'imageModel',
  'embeddingsBaseUrl',
  'embeddingsModel',
  'record',
  'replay',
  'recordMissing',
];
const forTask = (task: string, flags: EvalFlags): EvalFlags =>
  task === 'gta'
    ? flags
    : (Object.fromEntries(
        Object.entries(flags).filter(([k]) => !GTA_TOOL_FLAGS.includes(k as keyof EvalFlags)),
      ) as unknown as EvalFlags);

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
  for (const [key, flag] of TASK_SPECIFIC)
    if (flags[key] !== undefined)
      throw new ApiaryError(
        'USAGE',
        `${flag} names one task's settings; eval all runs every task with its defaults`,
      );
  registerBuiltinTasks();
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
    const data = flags.data ? join(resolve(flags.data), EVAL_ALL_DATA_FOLDERS[def.name] ?? '') : undefined;
    if (!flags.json) process.stderr.write(`\n== ${def.name} → ${folder}\n`);
    const exitBefore = process.exitCode;
    try {
      // With --json, one document for every task is printed at the end, and nothing else on stdout.
      await runEvalCommand(def.name, {
        ...forTask(def.name, flags),
        out: folder,
        ...(flags.json ? { noStdout: true } : {}),
        ...(data ? { data } : {}),
      });
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
