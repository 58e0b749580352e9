import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import pc from 'picocolors';
import {
  type AskResult,
  askAgent,
  type CallRecord,
  catalogToolset,
  jsonlAgentTrace,
  modelTurns,
} from '../../agents/index.js';
import { indexCatalog, type loadCatalog } from '../../catalog/index.js';
import { appRegistry } from '../../exec/index.js';
import { checkModelEndpoint, createLocalModel, resolveModelSetup } from '../../models/index.js';
import type { PluginGoldPlans } from '../../plugins/index.js';
import {
  buildRetrievalIndex,
  buildRetriever,
  catalogCorpus,
  corpusHash,
  createDemoSelector,
  type DemoSelector,
  loadWordVectors,
  RETRIEVER_KINDS,
  WordVectorEmbedder,
} from '../../retrieval/index.js';
import { ApiaryError } from '../../shared/index.js';
import { parseApprover } from '../approve-option.js';
import { type LocalModelFlags, localModelOption, localModelOptions } from '../local-model-options.js';
import { parseChoice, parseInteger, parseNumber, parseOutputPath } from '../options.js';
import { EXIT, printJson, terminalText } from '../output.js';
import { cliPlugins } from '../program.js';
import { INDEXED_KINDS, openCliIndex, retrieverModelLoaders } from '../retrieval-index.js';
import {
  allowDirHelp,
  CONNECT_TIMEOUT_HELP,
  collectOption,
  executableCatalog,
  executableCatalogs,
} from './mcp.js';

interface AskFlags extends LocalModelFlags {
  catalog: string;
  data?: string;
  db?: string;
  servers?: string;
  connectTimeoutMs?: string;
  topK: string;
  maxSteps: string;
  approve?: string;
  trace?: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  config?: string;
  date?: string;
  demos?: string;
  demoThreshold: string;
  retriever: string;
  retrieverModel?: string;
  /** --retriever-index FILE, or false for --no-retriever-index. */
  retrieverIndex?: string | boolean;
  json?: boolean;
  allowDir?: string[];
  /** Commander's negation of --no-endpoint-check. */
  endpointCheck?: boolean;
}

/**
 * Per request of the endpoint check: a dead endpoint is reported within 5 s of the start (the
 * model's own retries took 17 s to give up), a live one answers `GET /models` in milliseconds.
 */
const ASK_ENDPOINT_CHECK_MS = 3000;

/**
 * TPTU-v2's demo selector over a plugin's gold plans (offline word vectors; task demos above Δ,
 * else API demos).
 */
async function demoSelectorFrom(
  source: PluginGoldPlans,
  dir: string,
  threshold: number,
  catalog: ReturnType<typeof loadCatalog>,
): Promise<DemoSelector> {
  const gold = await source.load();
  const tasks = gold.tasks(dir, catalog);
  const embedder = new WordVectorEmbedder(loadWordVectors().table);
  return createDemoSelector({ embedder, ...gold.demoKnowledgeBase(tasks, catalog), threshold, k: 3 });
}

/** A call's line; the model chose its tool and arguments, the app wrote its error. */
function callLine(c: CallRecord): string {
  const args = c.args && typeof c.args === 'object' ? JSON.stringify(c.args) : String(c.args ?? '');
  const head = terminalText(`${c.app ?? '?'}.${c.api ?? c.tool}(${args})`);
  if (c.outcome.ok) {
    const raw = c.outcome.raw;
    const what = Array.isArray(raw) ? `${raw.length} row(s)` : 'ok';
    return `  ${pc.green('✓')} step ${c.step} ${head} → ${what}${c.outcome.transactional ? ' (approved side effect)' : ''}`;
  }
  return `  ${pc.red('✗')} step ${c.step} ${head} [${reportedCode(c.outcome.error.code)}] ${terminalText(c.outcome.error.message)}`;
}

/**
 * The code `ask` reports for a failed call: a refused approval is PERMISSION_DENIED, the code of
 * docs/errors.md that `run` reports for the same refused booking (the message says "not approved").
 */
const reportedCode = (code: string) => (code === 'APPROVAL_DENIED' ? 'PERMISSION_DENIED' : code);

export function registerAskCommand(program: Command): void {
  const plugins = cliPlugins();
  const executable = executableCatalogs(plugins);
  const demoSources = plugins.flatMap((p) => (p.goldPlans ? [p.goldPlans] : []));
  program
    .command('ask')
    .description(
      'do something with a catalog: retrieve its APIs, run the tool loop against its executable apps, print the answer (TPTU-v2 end to end)',
    )
    .argument('<request>', 'what you want done, in plain words')
    .option(
      '--catalog <name>',
      `catalog with executable apps (${executable.all.join(' | ')})`,
      executable.simulated[0],
    )
    .option('--data <dir>', 'data folder (catalog files)')
    .option(
      '--db <file>',
      'simulated-app database (default: built by `apiary apps build-db`, else the bundled subset)',
    )
    .option(
      '--servers <config.json>',
      'act through the tools of MCP servers ({"mcpServers": …}) instead of the simulated apps',
    )
    .option('--connect-timeout-ms <ms>', CONNECT_TIMEOUT_HELP)
    .option('--retriever <kind>', `API retriever (${RETRIEVER_KINDS.join(' | ')})`, 'bm25')
    .option(
      '--retriever-model <file>',
      'trained retriever model (from `apiary retrieve train`) for trained kinds, or a dense encoder for dense kinds',
    )
    .option(
      '--retriever-index <file>',
      'retrieval index file (default: built on first use in the user cache folder, for the BM25 kinds and ranked)',
    )
    .option('--no-retriever-index', 'index the catalog in memory, without an index file')
    .option('--top-k <n>', 'APIs retrieved and offered to the model', '8')
    .option('--max-steps <n>', 'model turns at most', '10')
    .option(
      '--approve <mode>',
      'transactional calls: ask (on a terminal) | auto | deny (default: ask on a TTY, else deny)',
    )
    .option(
      '--date <yyyy-mm-dd>',
      "the current date given to the model (default: the date the simulated apps' data is set on, else today)",
    )
    .option(
      '--demos <dir>',
      `${demoSources.map((s) => s.label).join(' or ')} data folder whose gold plans serve as worked examples (TPTU-v2 demo selector)`,
    )
    .option(
      '--demo-threshold <Δ>',
      'cosine similarity a task demo needs; below it API-level demos are used',
      '0.8',
    )
    .option('--allow-dir <dir>', allowDirHelp(plugins), collectOption)
    .option('--trace <file>', 'append the run trace (turns, calls, stop) as JSON lines')
    .option(
      '--model <id>',
      'model name, or gguf:PATH for a local GGUF file run in process (or APIARY_MODEL / apiary.config.json)',
    )
    .option('--base-url <url>', 'OpenAI-compatible endpoint ending in /v1 (or APIARY_BASE_URL)')
    .option('--api-key-env <name>', 'environment variable holding the API key')
    .option('--config <file>', 'model config file')
    .addOption(localModelOption('threads'))
    .addOption(localModelOption('ctx-size'))
    .addOption(localModelOption('gpu-layers'))
    .addOption(localModelOption('constrain'))
    .option('--no-endpoint-check', 'skip the request to <base-url>/models made before anything starts')
    .option('--json', 'machine-readable result')
    .action(async (request: string, flags: AskFlags) => {
      if (!request.trim())
        throw new ApiaryError('USAGE', 'the request is empty: say in plain words what you want done');
      // a catalog file is checked when it is opened (one imported from OpenAPI runs over HTTP)
      if (!flags.servers && !executable.all.includes(flags.catalog) && !existsSync(flags.catalog))
        throw new ApiaryError(
          'USAGE',
          `catalog "${flags.catalog}" has no executable apps here (executable: ${executable.all.join(', ')}), or a catalog file imported from OpenAPI`,
        );
      // an output is checked before any work (docs/errors.md): the trace is appended as the run goes
      parseOutputPath('--trace', flags.trace);
      const topK = parseInteger('--top-k', flags.topK, { min: 1 });
      const maxSteps = parseInteger('--max-steps', flags.maxSteps, { min: 1 });
      const kind = parseChoice('--retriever', flags.retriever, RETRIEVER_KINDS);
      const setup = resolveModelSetup({
        ...(flags.baseUrl ? { baseURL: flags.baseUrl } : {}),
        ...(flags.model ? { model: flags.model } : {}),
        ...(flags.apiKeyEnv ? { apiKeyEnv: flags.apiKeyEnv } : {}),
        ...(flags.config ? { configFile: flags.config } : {}),
        local: localModelOptions(flags),
      });
      if (!setup)
        throw new ApiaryError(
          'USAGE',
          'apiary ask needs a model: pass --base-url URL --model NAME (any OpenAI-compatible endpoint: vLLM, Ollama, llama.cpp server, hosted APIs), set APIARY_BASE_URL and APIARY_MODEL, or write them to apiary.config.json',
        );
      const approver = parseApprover(flags.approve);
      const threshold = parseNumber('--demo-threshold', flags.demoThreshold, { min: -1, max: 1 });
      // as `eval` does: a dead endpoint is one coded line before any server starts or index loads
      // a local model has no endpoint: it is loaded once here instead, so a bad file is one coded line too
      if (flags.endpointCheck !== false && setup.local) await createLocalModel(setup.local).load();
      else if (flags.endpointCheck !== false)
        await checkModelEndpoint(
          {
            baseURL: setup.baseURL,
            modelId: setup.modelId,
            ...(setup.apiKey ? { apiKey: setup.apiKey } : {}),
          },
          { timeoutMs: ASK_ENDPOINT_CHECK_MS },
        );
      const exec = await executableCatalog(flags);
      const catalog = exec.catalog;
      const apps = appRegistry(exec.handlers);
      const index = indexCatalog(catalog);
      // Imported servers are running from here on: close them if the set-up fails.
      const prepare = async () => {
        const demos =
          flags.demos && demoSources[0]
            ? await demoSelectorFrom(demoSources[0], flags.demos, threshold, catalog)
            : undefined;
        const corpus = catalogCorpus(catalog);
        const catalogHash = corpusHash(corpus);
        const opened =
          flags.retrieverIndex !== false && INDEXED_KINDS.has(kind)
            ? openCliIndex({
                ...(typeof flags.retrieverIndex === 'string' ? { path: flags.retrieverIndex } : {}),
                catalog: flags.catalog,
                catalogHash,
                corpus: () => corpus,
                build: (c, onStep) => buildRetrievalIndex(c, { catalog: flags.catalog, catalogHash, onStep }),
                quiet: Boolean(flags.json),
                silent: Boolean(flags.json),
              })
            : undefined;
        const retriever = await buildRetriever(kind, corpus, {
          ...(opened
            ? {
                indexes: opened.index.indexes,
                ...(opened.index.plain ? { plain: opened.index.plain } : {}),
                ...(opened.index.ranker && !flags.retrieverModel ? { ranker: opened.index.ranker } : {}),
              }
            : {}),
          table: () => loadWordVectors().table,
          ...retrieverModelLoaders(kind, '--retriever-model', flags.retrieverModel),
        });
        return { demos, retriever };
      };
      const { demos, retriever } = await prepare().catch(async (error: unknown) => {
        await exec.close();
        throw error;
      });
      const ac = new AbortController();
      const onSigint = () => {
        if (ac.signal.aborted) process.exit(130);
        process.stderr.write('\ninterrupted: stopping the agent (Ctrl-C again to quit now)\n');
        ac.abort(new Error('interrupted'));
      };
      process.on('SIGINT', onSigint);
      let result: AskResult;
      // a missing folder of the checked --trace path is created, as `run` does
      if (flags.trace) mkdirSync(dirname(resolve(flags.trace)), { recursive: true });
      try {
        result = await askAgent({
          request,
          catalog,
          retriever,
          topK,
          ...(demos ? { demos } : {}),
          toolset: (apis) => catalogToolset(apis, { catalog: index, apps, approve: approver.approve }),
          turn: modelTurns(setup.model, { settings: setup.sampling }),
          context: `Today is ${flags.date ?? exec.currentDate ?? new Date().toISOString().slice(0, 10)}.`,
          budget: { maxSteps },
          signal: ac.signal,
          ...(flags.trace ? { trace: jsonlAgentTrace(flags.trace) } : {}),
          // printed as they happen: on a terminal a booking's approval is asked after the lines
          // of what was retrieved and done so far
          ...(flags.json
            ? {}
            : {
                onRetrieved: (ids: string[]) =>
                  process.stdout.write(`${pc.dim(`retrieved: ${terminalText(ids.join(', '))}`)}\n`),
                onCall: (c: CallRecord) => process.stdout.write(`${callLine(c)}\n`),
              }),
        });
      } finally {
        process.off('SIGINT', onSigint);
        await exec.close();
      }
      if (flags.json) {
        printJson({
          answer: result.answer,
          stopReason: result.stopReason,
          ...(result.question ? { question: result.question } : {}),
          ...(result.detail ? { detail: result.detail } : {}),
          retrieved: result.retrieved,
          ...(result.demoLevel ? { demos: result.demoLevel } : {}),
          calls: result.calls.map((c) => ({
            step: c.step,
            app: c.app,
            api: c.api,
            args: c.args,
            ok: c.outcome.ok,
            ...(c.outcome.ok
              ? { result: c.outcome.raw }
              : { error: { ...c.outcome.error, code: reportedCode(c.outcome.error.code) } }),
          })),
          steps: result.steps,
          usage: result.usage,
        });
      } else {
        // the model's own words: shown as text, whatever escape sequences they hold
        if (result.stopReason === 'final') process.stdout.write(`\n${terminalText(result.answer ?? '')}\n`);
        else if (result.stopReason === 'ask-user')
          process.stdout.write(`\nthe agent asks: ${terminalText(result.question ?? '')}\n`);
        else
          process.stdout.write(
            `\nstopped: ${result.stopReason}${result.detail ? ` (${terminalText(result.detail)})` : ''}\n`,
          );
        process.stdout.write(
          pc.dim(
            `${result.steps} turn(s), ${result.calls.length} call(s), ${result.usage.inputTokens}+${result.usage.outputTokens} tokens\n`,
          ),
        );
      }
      if (result.stopReason === 'cancelled') process.exitCode = 130;
      else if (result.stopReason !== 'final' && result.stopReason !== 'ask-user')
        process.exitCode = EXIT.runtime;
      // a refused booking is PERMISSION_DENIED, exit 3, as in `run` (docs/errors.md)
      else if (result.calls.some((c) => !c.outcome.ok && c.outcome.error.code === 'APPROVAL_DENIED'))
        process.exitCode = EXIT.runtime;
      const unanswered = approver.unansweredError();
      if (unanswered) throw unanswered;
    });
}
