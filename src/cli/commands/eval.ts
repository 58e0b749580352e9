import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  baselineAgent,
  flatAgent,
  hierarchicalAgent,
  type PlanningAgent,
  sameAppDemos,
} from '../../agents/index.js';
import { loadCatalog } from '../../catalog/index.js';
import {
  buildRunSpec,
  createProgressReporter,
  formatRunSummary,
  gitRevision,
  packageRoot,
  packageVersion,
  progressModeFor,
  readResultsFile,
  runEval,
  summarizeResults,
} from '../../harness/index.js';
import { createResponseCache, resolveModelSetup } from '../../models/index.js';
import { ApiaryError } from '../../shared/index.js';
import {
  APPBENCH_CATEGORIES,
  type AppBenchCategory,
  type AppBenchSample,
  appBenchGoldReply,
  appBenchTask,
  findAppBenchData,
  loadAppBenchDataset,
  seededDemoPicker,
} from '../../tasks/index.js';
import { EXIT, printJson } from '../output.js';

interface EvalAppBenchFlags {
  data?: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  config?: string;
  prompting: string;
  shots: string;
  demos: string;
  out?: string;
  concurrency: string;
  resume?: boolean;
  overwrite?: boolean;
  limit?: string;
  categories?: string;
  seed: string;
  timeoutMs?: string;
  retries?: string;
  retryDelayMs?: string;
  cache?: string | boolean;
  json?: boolean;
}

function intFlag(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new ApiaryError('USAGE', `--${name} must be an integer ≥ ${min}, got "${value}"`);
  return n;
}

function parseCategories(value: string | undefined): AppBenchCategory[] | undefined {
  if (!value) return undefined;
  const cats = value
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter(Boolean);
  for (const c of cats)
    if (!(APPBENCH_CATEGORIES as readonly string[]).includes(c))
      throw new ApiaryError('USAGE', `unknown category "${c}" in --categories (ss, sm, ms, mm)`);
  return [...new Set(cats)] as AppBenchCategory[];
}

/** The bundled hand-written sample set (examples/appbench-mini), so a fresh clone can run. */
export function bundledAppBenchMini(): string | undefined {
  const root = packageRoot();
  const dir = root ? join(root, 'examples', 'appbench-mini') : undefined;
  return dir && existsSync(dir) ? dir : undefined;
}

/** --data, else the data `apiary data pull appbench` stored, else the bundled appbench-mini. */
function resolveAppBenchData(explicit: string | undefined): { dir: string; origin: string } {
  if (explicit) return { dir: resolve(explicit), origin: 'given with --data' };
  const pulled = findAppBenchData();
  if (pulled) return { dir: pulled, origin: 'pulled official data' };
  const mini = bundledAppBenchMini();
  if (mini)
    return {
      dir: mini,
      origin: 'bundled examples/appbench-mini (8 hand-written records; pass --data for the real set)',
    };
  throw new ApiaryError(
    'NOT_FOUND',
    'no AppBench data: pass --data DIR (a folder with test_*.json or dev_*.json)',
  );
}

const slug = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');

export function registerEvalCommands(program: Command): void {
  const evalCmd = program.command('eval').description('run benchmarks end to end (resumable, JSONL results)');

  evalCmd
    .command('appbench')
    .description(
      'plan every AppBench instruction with an agent and score it (official + corrected); ' +
        'without a model the no-LLM baseline agent runs',
    )
    .option(
      '--data <dir>',
      'folder with test_{ss,sm,ms,mm}.json or dev_*.json (default: pulled data, else examples/appbench-mini)',
    )
    .option('--model <id>', 'model name (or APIARY_MODEL / apiary.config.json)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint ending in /v1 (or APIARY_BASE_URL)')
    .option('--api-key-env <name>', 'environment variable holding the API key')
    .option('--config <file>', 'model config file (default ./apiary.config.json when present)')
    .option('--prompting <mode>', 'flat | hierarchical', 'flat')
    .option(
      '--shots <k>',
      'k demonstrations per instruction, taken from the other samples (gold replies)',
      '0',
    )
    .option('--demos <how>', 'same-app (the paper: demos sharing a likely App) | random (seeded)', 'same-app')
    .option(
      '--out <dir>',
      'run folder for results.jsonl and summary.json (default .apiary/runs/appbench-<agent>-<model>-k<shots>-s<seed>)',
    )
    .option('--concurrency <n>', 'samples in flight', '4')
    .option('--resume', 'continue the run folder: skip samples already recorded')
    .option('--overwrite', 'discard existing results in the run folder')
    .option('--limit <n>', 'first N records of each category')
    .option('--categories <list>', 'comma-separated subset of ss,sm,ms,mm')
    .option('--seed <n>', 'seed for run order and demo sampling', '0')
    .option('--timeout-ms <ms>', 'per-attempt model timeout (default 120000)')
    .option('--retries <n>', 'retries per model call after the first attempt (default 4)')
    .option('--retry-delay-ms <ms>', 'first retry backoff, doubled per retry (default 1000)')
    .option('--cache [dir]', 'reuse identical model calls from a response cache (default dir: user cache)')
    .option('--json', 'machine-readable output (no progress display)')
    .action(async (flags: EvalAppBenchFlags) => {
      const prompting = flags.prompting;
      if (prompting !== 'flat' && prompting !== 'hierarchical')
        throw new ApiaryError('USAGE', `--prompting must be flat or hierarchical, got "${prompting}"`);
      if (flags.resume && flags.overwrite)
        throw new ApiaryError('USAGE', '--resume and --overwrite exclude each other');
      const shots = intFlag('shots', flags.shots, 0) ?? 0;
      if (flags.demos !== 'same-app' && flags.demos !== 'random')
        throw new ApiaryError('USAGE', `--demos must be same-app or random, got "${flags.demos}"`);
      const concurrency = intFlag('concurrency', flags.concurrency, 1) ?? 4;
      const limit = intFlag('limit', flags.limit, 0);
      const seed = intFlag('seed', flags.seed, 0) ?? 0;
      const categories = parseCategories(flags.categories);
      const timeoutMs = intFlag('timeout-ms', flags.timeoutMs, 1);
      const maxRetries = intFlag('retries', flags.retries, 0);
      const baseDelayMs = intFlag('retry-delay-ms', flags.retryDelayMs, 0);
      const note = (msg: string) => {
        if (!flags.json) process.stderr.write(`${msg}\n`);
      };

      const data = resolveAppBenchData(flags.data);
      const dataset = loadAppBenchDataset(data.dir, {
        ...(categories ? { categories } : {}),
        ...(limit !== undefined ? { limit } : {}),
      });
      const catalog = loadCatalog('appbench');
      const setup = resolveModelSetup({
        ...(flags.baseUrl ? { baseURL: flags.baseUrl } : {}),
        ...(flags.model ? { model: flags.model } : {}),
        ...(flags.apiKeyEnv ? { apiKeyEnv: flags.apiKeyEnv } : {}),
        ...(flags.config ? { configFile: flags.config } : {}),
      });
      const cache =
        setup && flags.cache
          ? createResponseCache(typeof flags.cache === 'string' ? { dir: resolve(flags.cache) } : {})
          : undefined;
      let agent: PlanningAgent;
      if (!setup) {
        agent = baselineAgent();
        note(
          'no model configured: running the baseline agent (no LLM calls). Pass --model/--base-url, or set APIARY_MODEL/APIARY_BASE_URL, for a model run.',
        );
      } else {
        const llm = {
          model: cache ? cache.wrap(setup.model) : setup.model,
          settings: setup.sampling,
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(maxRetries !== undefined ? { maxRetries } : {}),
          ...(baseDelayMs !== undefined ? { baseDelayMs } : {}),
          ...(shots > 0
            ? {
                demos:
                  flags.demos === 'random'
                    ? seededDemoPicker(dataset.samples, shots, seed)
                    : sameAppDemos(
                        dataset.samples.map((s) => ({
                          id: s.id,
                          instruction: s.record.input,
                          reply: appBenchGoldReply(s.record),
                          apps: s.record.output.used_app,
                        })),
                        shots,
                        { catalog },
                      ),
              }
            : {}),
        };
        agent = prompting === 'hierarchical' ? hierarchicalAgent(llm) : flatAgent(llm);
      }
      const task = appBenchTask({ samples: dataset.samples, catalog, agent });
      const agentName = setup ? prompting : agent.name;
      const spec = buildRunSpec(
        {
          task: { name: task.name, version: task.version },
          solver: {
            agent: agentName,
            model: setup ? { id: setup.modelId, baseUrl: setup.baseURL, args: { ...setup.sampling } } : null,
            prompting: setup ? prompting : null,
            shots: setup ? shots : 0,
            demos: setup && shots > 0 ? flags.demos : null,
          },
          dataset: {
            source: data.dir,
            categories: categories ?? null,
            limit: limit ?? null,
            size: dataset.samples.length,
          },
          seed,
          concurrency,
        },
        { now: () => new Date(), gitRevision, packageVersion },
      );
      const outDir = resolve(
        flags.out ??
          join(
            '.apiary',
            'runs',
            slug(`appbench-${agentName}-${setup ? setup.modelId : 'nomodel'}-k${spec.solver.shots}-s${seed}`),
          ),
      );
      const outFile = join(outDir, 'results.jsonl');
      note(
        `data: ${data.dir} (${data.origin}; ${dataset.prefix}_*.json, ${dataset.samples.length} samples in ${dataset.categories.join(', ')})`,
      );
      note(`results: ${outFile}${flags.resume ? ' (resuming)' : ''}`);

      const ac = new AbortController();
      const onSigint = () => {
        if (ac.signal.aborted) process.exit(130);
        process.stderr.write('\ninterrupted: finishing the samples in flight (Ctrl-C again to quit now)\n');
        ac.abort();
      };
      process.on('SIGINT', onSigint);
      const reporter = createProgressReporter({
        label: 'appbench',
        mode: progressModeFor(process.stderr, Boolean(flags.json)),
      });
      let result: Awaited<ReturnType<typeof runEval>>;
      try {
        result = await runEval({
          task,
          spec,
          concurrency,
          outFile,
          resume: Boolean(flags.resume),
          overwrite: Boolean(flags.overwrite),
          onProgress: (p) => reporter.update(p),
          signal: ac.signal,
        });
      } finally {
        reporter.stop();
        process.off('SIGINT', onSigint);
      }
      const { summary } = result;
      if (flags.json) {
        printJson({
          resultsFile: result.resultsFile,
          summaryFile: result.summaryFile,
          ran: result.ran,
          skipped: result.skipped,
          aborted: result.aborted,
          repairedTail: result.repairedTail,
          elapsedMs: Math.round(result.elapsedMs),
          ...(cache ? { cache: { dir: cache.dir, ...cache.stats } } : {}),
          summary,
        });
      } else {
        if (result.repairedTail) note('dropped a torn last line left by an interrupted run');
        if (result.skipped)
          note(`resumed: ${result.skipped} samples were already recorded, ${result.ran} run now`);
        process.stdout.write(formatRunSummary(summary, (r) => task.formatReport!(r as never)));
        process.stdout.write(`results: ${result.resultsFile}\nsummary: ${result.summaryFile}\n`);
        if (!setup) process.stdout.write('agent: baseline (no model configured)\n');
        if (cache)
          process.stdout.write(
            `response cache: ${cache.stats.hits} hits, ${cache.stats.misses} misses (${cache.dir})\n`,
          );
      }
      if (result.aborted) {
        process.stderr.write(
          `stopped early: ${summary.samples} of ${dataset.samples.length} samples recorded; rerun with --resume to finish\n`,
        );
        process.exitCode = EXIT.runtime;
      }
    });

  evalCmd
    .command('report')
    .description(
      'recompute and print the summary of a run from its results.jsonl (e.g. after an interruption)',
    )
    .argument('<run>', 'run folder (holding results.jsonl) or the results file itself')
    .option('--json', 'machine-readable output')
    .action((run: string, flags: { json?: boolean }) => {
      const file = run.endsWith('.jsonl') ? resolve(run) : join(resolve(run), 'results.jsonl');
      if (!existsSync(file)) throw new ApiaryError('NOT_FOUND', `no results file at ${file}`);
      const contents = readResultsFile(file);
      const spec = contents.header?.spec;
      if (!spec) throw new ApiaryError('INPUT_INVALID', `${file}: no header record`);
      if (spec.task.name !== 'appbench')
        throw new ApiaryError(
          'USAGE',
          `${file}: task "${spec.task.name}" has no report here (known: appbench)`,
        );
      // The dataset gives the sample order; without it the file order is used.
      let samples: AppBenchSample[] = [];
      if (existsSync(spec.dataset.source)) {
        try {
          samples = loadAppBenchDataset(spec.dataset.source, {
            ...(spec.dataset.categories ? { categories: spec.dataset.categories as AppBenchCategory[] } : {}),
            ...(spec.dataset.limit !== null ? { limit: spec.dataset.limit } : {}),
          }).samples;
        } catch {
          samples = [];
        }
      }
      const task = appBenchTask({ samples, catalog: loadCatalog('appbench'), agent: baselineAgent() });
      const summary = summarizeResults(task, contents, file);
      const summaryFile = join(dirname(file), 'summary.json');
      writeFileSync(summaryFile, `${JSON.stringify(summary, null, 2)}\n`);
      if (flags.json) printJson(summary);
      else {
        if (contents.truncatedTail)
          process.stderr.write('note: ignored a torn last line (interrupted run)\n');
        process.stdout.write(formatRunSummary(summary, (r) => task.formatReport!(r as never)));
        const missing = spec.dataset.size - summary.samples;
        if (missing > 0)
          process.stdout.write(
            `incomplete: ${missing} of ${spec.dataset.size} samples not recorded; continue with --resume\n`,
          );
        process.stdout.write(`summary: ${summaryFile}\n`);
      }
    });
}
