import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import pc from 'picocolors';
import { type Catalog, loadCatalog } from '../../catalog/index.js';
import {
  type AskProvider,
  askUserOnTerminal,
  assertTraceFile,
  type ExecutionResult,
  executePlan,
  jsonlTrace,
  readTrace,
  repairTrace,
  type StepResult,
  scriptedAnswers,
  systemInputs,
  type TraceEvent,
} from '../../exec/index.js';
import { ApiaryError, NotFoundError, readJsonFile } from '../../shared/index.js';
import { parseApprover } from '../approve-option.js';
import { parseExistingFile, parseInteger, parseList, parseOutputPath } from '../options.js';
import { EXIT, printJson, terminalText } from '../output.js';
import { readNonEmptyPlanFile } from '../plan-file.js';
import { planFileHelp, runDescription, simulatedApps } from '../plugin-help.js';
import { cliPlugins } from '../program.js';
import { executableCatalog } from './mcp.js';

interface RunFlags {
  catalog: string;
  data?: string;
  grant?: string;
  approve?: string;
  trace?: string;
  resume?: boolean;
  answers?: string;
  db?: string;
  servers?: string;
  sharedInput?: string;
  concurrency: string;
  timeout: string;
  retries: string;
  json?: boolean;
}

/** `--answers FILE`: a JSON object (keys "<step>.<arg>", "<app>.<api>.<arg>", "<arg>" or the prompt) or a list. */
function answersFrom(file: string): AskProvider {
  const json = readJsonFile(file);
  if (Array.isArray(json)) return scriptedAnswers(json.map(String));
  if (json && typeof json === 'object')
    return scriptedAnswers(Object.fromEntries(Object.entries(json).map(([k, v]) => [k, String(v)])));
  throw new ApiaryError('INPUT_INVALID', `${file}: answers must be a JSON object or a list of strings`);
}

/** A step's line; its names, arguments, outputs and error text come from the plan and the apps. */
function stepLine(s: StepResult): string {
  const call = terminalText(
    `${s.app}.${s.api}(${Object.entries(s.args ?? {})
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ')})`,
  );
  const id = terminalText(s.id);
  if (s.status === 'succeeded' && s.empty)
    return `${pc.yellow('∅')} ${id} ${call} → no matching row (empty result)${s.resumed ? ' (reused from the trace)' : ''}`;
  if (s.status === 'succeeded')
    return `${pc.green('✓')} ${id} ${call} → ${terminalText(JSON.stringify(s.outputs ?? {}))}${s.resumed ? ' (reused from the trace)' : ''}`;
  const mark = s.status === 'refused' ? pc.red('⊘') : s.status === 'cancelled' ? pc.yellow('-') : pc.red('✗');
  return `${mark} ${id} ${s.args ? call : terminalText(`${s.app}.${s.api}`)} ${s.status} [${s.error?.code}] ${terminalText(s.error?.message ?? '')}`;
}

/** Exit status of a run stopped by Ctrl-C (128 + SIGINT). */
const EXIT_INTERRUPTED = 130;

function exitCodeOf(result: ExecutionResult): number {
  if (result.status === 'succeeded') return EXIT.ok;
  return result.status === 'refused' ? EXIT.failed : EXIT.runtime;
}

export function registerRunCommands(program: Command): void {
  const plugins = cliPlugins();
  const apps = simulatedApps(plugins);
  program
    .command('run')
    .description(runDescription(plugins))
    .argument('<plan>', planFileHelp(plugins, 'name'))
    .option('-c, --catalog <name|file>', 'catalog the plan is written against', apps?.catalogs[0])
    .option('--data <dir>', 'benchmark data folder for the catalog')
    .option('--grant <apps>', 'comma-separated app ids the run may call (default: every app)')
    .option(
      '--approve <mode>',
      'transactional calls: auto | ask | deny (default: ask on a terminal, else deny)',
    )
    .option(
      '--trace <file>',
      'append a JSONL trace (an existing trace is repaired first; missing folders are created)',
    )
    .option('--resume', 'continue the last run of --trace: finished calls are reused, not repeated')
    .option('--answers <file>', "JSON answers to the plan's questions to the user (object or list)")
    .option(
      '--db <file>',
      `${apps?.label ?? 'simulated-app database'} (default: the built one, else the bundled subset)`,
    )
    .option(
      '--servers <config.json>',
      'run the plan against the tools of MCP servers ({"mcpServers": …}); app ids are the server names',
    )
    .option('--shared-input <text>', 'value of the shared_input system input')
    .option('--concurrency <n>', 'steps in flight at once', '8')
    .option('--timeout <ms>', 'per-call time limit', '30000')
    .option('--retries <n>', 'retries of failed non-transactional calls', '2')
    .option('--json', 'machine-readable output')
    .action(async (file: string, flags: RunFlags) => {
      const plan = readNonEmptyPlanFile(file);
      const grant = parseList('--grant', flags.grant);
      const checkGrant = (catalog: Catalog) => {
        const unknown = grant?.filter((id) => !catalog.apps.some((a) => a.id === id)) ?? [];
        if (unknown.length)
          throw new NotFoundError(
            'app in --grant',
            unknown.join(', '),
            catalog.apps.map((a) => a.id),
          );
      };
      // With --servers the plan runs against the imported servers (catalog and handlers),
      // connected once every flag is checked.
      const fileCatalog = flags.servers ? undefined : loadCatalog(flags.catalog, { dataDir: flags.data });
      if (fileCatalog) checkGrant(fileCatalog);
      const approver = parseApprover(flags.approve);
      const ask = flags.answers
        ? answersFrom(parseExistingFile('--answers', flags.answers))
        : process.stdin.isTTY
          ? askUserOnTerminal()
          : undefined;
      const concurrency = parseInteger('--concurrency', flags.concurrency, { min: 1 });
      const stepTimeoutMs = parseInteger('--timeout', flags.timeout, { min: 1 });
      const retries = parseInteger('--retries', flags.retries, { min: 0 });
      if (flags.resume && !flags.trace) throw new ApiaryError('USAGE', '--resume needs --trace FILE');
      // The trace is checked before any call: a path we can write, and an earlier trace or nothing
      // (appending a run to someone's notes would corrupt both). Missing folders are created.
      if (parseOutputPath('--trace', flags.trace)) {
        assertTraceFile(flags.trace!);
        mkdirSync(dirname(flags.trace!), { recursive: true });
      }
      let repaired = 0;
      if (flags.trace && existsSync(flags.trace)) repaired = repairTrace(flags.trace).appended.length;
      let resume: { runId: string; events: TraceEvent[] } | undefined;
      if (flags.resume) {
        const events = existsSync(flags.trace!) ? readTrace(flags.trace!) : [];
        const last = events.at(-1);
        if (!last) throw new ApiaryError('USAGE', `--resume: ${flags.trace} holds no earlier run`);
        resume = { runId: last.run, events };
      }
      // a catalog imported from OpenAPI runs over HTTP, like imported MCP servers
      const overHttp =
        !flags.servers && fileCatalog!.apps.length > 0 && fileCatalog!.apps.every((a) => a.http);
      const imported = flags.servers || overHttp ? await executableCatalog(flags) : undefined;
      const catalog = imported?.catalog ?? fileCatalog!;
      if (imported)
        try {
          checkGrant(catalog);
        } catch (error) {
          await imported.close();
          throw error;
        }
      if (!imported && !apps) {
        throw new ApiaryError('USAGE', 'no plugin provides simulated apps: pass --servers FILE');
      }
      const opened = imported ? undefined : (await apps!.load()).open(flags.db);
      const source = imported?.source ?? opened!.source;
      const ctrl = new AbortController();
      const onSigint = () => {
        if (ctrl.signal.aborted) process.exit(EXIT_INTERRUPTED); // the second Ctrl-C: at once
        process.stderr.write(
          '\ninterrupted: no new step starts; the calls in flight finish or abort (Ctrl-C again to quit now)\n',
        );
        ctrl.abort();
      };
      process.on('SIGINT', onSigint);
      let result: ExecutionResult;
      try {
        result = await executePlan(plan, {
          catalog,
          handlers: imported?.handlers ?? opened!.handlers(catalog),
          grant,
          approve: approver.approve,
          inputs: { ask, system: systemInputs({ sharedInput: flags.sharedInput }) },
          concurrency,
          stepTimeoutMs,
          retries,
          signal: ctrl.signal,
          trace: flags.trace ? jsonlTrace(flags.trace) : undefined,
          resume,
        });
      } finally {
        process.off('SIGINT', onSigint);
        opened?.close();
        await imported?.close();
      }
      if (flags.json) printJson({ file, database: source, repairedTraceRecords: repaired, ...result });
      else {
        if (repaired)
          process.stderr.write(`${flags.trace}: closed ${repaired} call(s) left open by an earlier run\n`);
        if (resume)
          process.stderr.write(
            `resumed run ${resume.runId}: ${result.steps.filter((s) => s.resumed).length} finished call(s) reused\n`,
          );
        for (const s of result.steps) process.stdout.write(`${stepLine(s)}\n`);
        for (const i of result.issues)
          process.stdout.write(
            `  ${terminalText(`${i.step ?? '-'}${i.field ? `.${i.field}` : ''}: ${i.code}: ${i.message}`)}\n`,
          );
        const ok = result.steps.filter((s) => s.status === 'succeeded').length;
        const empty = result.steps.filter((s) => s.empty).length;
        process.stdout.write(
          `${result.status === 'succeeded' ? pc.green(result.status) : pc.red(result.status)}: ${ok}/${result.steps.length} steps succeeded${empty ? ` (${empty} with an empty result)` : ''} in ${result.elapsedMs} ms (apps: ${source}${imported ? '' : ' database'})\n`,
        );
        process.stdout.write(`outputs: ${terminalText(JSON.stringify(result.outputs, null, 2))}\n`);
      }
      process.exitCode = ctrl.signal.aborted ? EXIT_INTERRUPTED : exitCodeOf(result);
      const unanswered = approver.unansweredError();
      if (unanswered) throw unanswered;
    });
}
