import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { AppHandler } from '../../apps/index.js';
import { type Catalog, loadCatalog } from '../../catalog/index.js';
import { appRegistry, autoApprove, denyAll } from '../../exec/index.js';
import type { McpImport } from '../../mcp/index.js';
import type { BenchmarkPlugin } from '../../plugins/index.js';
import { buildRetriever, catalogCorpus, loadWordVectors, RETRIEVER_KINDS } from '../../retrieval/index.js';
import { ApiaryError, registerSecret } from '../../shared/index.js';
import { printMcpProgress } from '../mcp-progress.js';
import { parseChoice, parseExistingFile, parseInteger, parseList, usageError } from '../options.js';
import { terminalText } from '../output.js';
import { simulatedApps, toolsets } from '../plugin-help.js';
import { cliPlugins } from '../program.js';
import { retrieverModelLoaders } from '../retrieval-index.js';

/** The MCP domain, loaded when a command needs it (the SDK adds ~0.2 s to every CLI start otherwise). */
const loadMcp = () => import('../../mcp/index.js');

/**
 * Catalogs whose APIs run here without --servers: those of the plugins' simulated apps (the first
 * is the commands' default `--catalog`), then those of their tool sets.
 */
export function executableCatalogs(plugins: readonly BenchmarkPlugin[] = cliPlugins()): {
  simulated: readonly string[];
  tools: readonly string[];
  all: readonly string[];
} {
  const simulated = simulatedApps(plugins)?.catalogs ?? [];
  const tools = toolsets(plugins).map((t) => t.catalog);
  return { simulated, tools, all: [...simulated, ...tools] };
}

/** A catalog with executable apps: simulated (SGD database) or imported MCP servers. */
export interface ExecutableCatalog {
  catalog: Catalog;
  handlers: AppHandler[];
  /** Where the apps run (`SGD database (bundled)`, `2 MCP server(s)`). */
  source: string;
  /** The day simulated apps' data is set on, when it is not today (`PluginApps.currentDate`). */
  currentDate?: string;
  close(): Promise<void>;
}

function warnImport(imported: McpImport): void {
  for (const f of imported.failures)
    process.stderr.write(
      `warning: MCP server "${terminalText(f.server)}" not imported: ${terminalText(f.error.message)}\n`,
    );
  for (const s of imported.servers)
    for (const p of s.problems) process.stderr.write(`warning: tool left out: ${terminalText(p.message)}\n`);
}

/** `--allow-dir DIR` (repeatable): folders whose files tools may read from their file arguments. */
function parseAllowDirs(dirs: readonly string[] | undefined): string[] {
  return (dirs ?? []).map((dir) => {
    if (!dir || !existsSync(dir) || !statSync(dir).isDirectory())
      throw usageError('--allow-dir', 'an existing folder', dir);
    return dir;
  });
}

/** `--connect-timeout-ms`, shared by the commands that take `--servers`. */
export const CONNECT_TIMEOUT_HELP =
  'with --servers: time to start, connect and list each MCP server, in ms (default 60000, enough for a cold `npx -y`; a server\'s "connectTimeoutMs" in the config wins)';

/** Repeatable string options of commander (`--allow-dir a --allow-dir b`). */
export const collectOption = (value: string, previous: string[] = []) => [...previous, value];

export function allowDirHelp(plugins: readonly BenchmarkPlugin[]): string {
  return `with --catalog ${executableCatalogs(plugins).tools.join(' | ')}: a folder whose files the tools may read (image arguments from the model or the MCP client); repeatable. The tools output folder is always readable, nothing else is`;
}

/**
 * A catalog file whose apps all run over HTTP (`apiary catalog import openapi --out FILE`), or
 * undefined for anything else (a catalog name, a file of other apps).
 */
function importedHttpCatalog(catalog: string, data?: string): Catalog | undefined {
  if (!existsSync(catalog) || !statSync(catalog).isFile()) return undefined;
  const loaded = loadCatalog(catalog, data ? { dataDir: data } : {});
  return loaded.apps.length > 0 && loaded.apps.every((a) => a.http) ? loaded : undefined;
}

/**
 * `--servers FILE` (imported MCP servers), `--catalog FILE` (a catalog imported from OpenAPI, run over HTTP) or `--catalog NAME` (a plugin's simulated apps or tool
 * set): the catalog and handlers `apiary ask`, `apiary run` and `apiary mcp serve` execute through
 * dispatchCall. Tools read files only in their output folder and `allowDir`.
 */
export async function executableCatalog(flags: {
  catalog: string;
  data?: string;
  db?: string;
  servers?: string;
  allowDir?: string[];
  /** `--connect-timeout-ms`: time to start and list each imported server (a servers.json entry's own field wins). */
  connectTimeoutMs?: string;
}): Promise<ExecutableCatalog> {
  const plugins = cliPlugins();
  const sets = toolsets(plugins);
  const toolset = flags.servers ? undefined : sets.find((t) => t.catalog === flags.catalog);
  if (flags.allowDir?.length && !toolset)
    throw new ApiaryError(
      'USAGE',
      `--allow-dir grants folders to ${sets.map((t) => `${t.label}'s`).join(' and ')} tools: use it with --catalog ${sets.map((t) => t.catalog).join(' or ')} (imported MCP servers read files on their own)`,
    );
  if (flags.servers) {
    const { importMcpServers, readMcpServersConfig } = await loadMcp();
    const config = readMcpServersConfig(parseExistingFile('--servers', flags.servers));
    const imported = await importMcpServers(config, {
      onProgress: printMcpProgress,
      ...(flags.connectTimeoutMs === undefined
        ? {}
        : { connectTimeoutMs: parseInteger('--connect-timeout-ms', flags.connectTimeoutMs, { min: 1 }) }),
    });
    warnImport(imported);
    if (!imported.servers.length)
      throw new ApiaryError('NETWORK', `no MCP server of ${flags.servers} could be imported`);
    return {
      catalog: imported.catalog,
      handlers: imported.handlers,
      source: `${imported.servers.length} MCP server(s)`,
      close: imported.close,
    };
  }
  const executable = executableCatalogs(plugins).all;
  const httpCatalog = executable.includes(flags.catalog)
    ? undefined
    : importedHttpCatalog(flags.catalog, flags.data);
  if (httpCatalog) {
    const { openApiHandlers } = await import('../../openapi/index.js');
    const http = openApiHandlers(httpCatalog);
    return {
      catalog: httpCatalog,
      handlers: http.handlers,
      source: `${httpCatalog.apps.length} HTTP app(s) (${httpCatalog.apps.map((a) => a.http!.baseUrl).join(', ')})`,
      close: async () => http.close(),
    };
  }
  if (!executable.includes(flags.catalog))
    throw new ApiaryError(
      'USAGE',
      `catalog "${flags.catalog}" has no executable apps here (executable: ${executable.join(', ')}, or imported MCP servers with --servers FILE)`,
    );
  if (toolset) {
    // The tools, configured from the environment (see `apiary tools list`); images go to a temp
    // folder. Their file arguments come from a model or an MCP client: only granted folders are read.
    const readable = parseAllowDirs(flags.allowDir);
    const tools = (await toolset.load()).open();
    const outputDir = mkdtempSync(join(tmpdir(), 'apiary-tools-'));
    return {
      catalog: loadCatalog(toolset.catalog, flags.data ? { dataDir: flags.data } : {}),
      handlers: tools.handlers({ outputDir, readable }),
      source: `${toolset.label} tools (outputs in ${outputDir})`,
      close: () => tools.close(),
    };
  }
  const apps = simulatedApps(plugins)!;
  const catalog = loadCatalog(flags.catalog, flags.data ? { dataDir: flags.data } : {});
  const opened = (await apps.load()).open(flags.db);
  return {
    catalog,
    handlers: opened.handlers(catalog),
    source: `${apps.label} (${opened.source})`,
    ...(apps.currentDate ? { currentDate: apps.currentDate } : {}),
    close: async () => {
      opened.close();
    },
  };
}

interface ServeFlags {
  catalog: string;
  data?: string;
  db?: string;
  servers?: string;
  stdio?: boolean;
  http?: string;
  host: string;
  mode?: string;
  grant?: string;
  approve: string;
  retriever: string;
  retrieverModel?: string;
  timeout: string;
  tokenEnv: string;
  allowDir?: string[];
  allowOrigin?: string[];
  maxSessions: string;
  sessionIdle: string;
  connectTimeoutMs?: string;
}

const SERVE_APPROVALS = ['elicit', 'auto', 'deny'] as const;

/** Resolves when the process is asked to stop (Ctrl-C, SIGTERM) or `closed` fires. */
function untilStopped(closed?: (stop: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    closed?.(stop);
  });
}

async function serve(flags: ServeFlags): Promise<void> {
  if (flags.stdio && flags.http !== undefined)
    throw new ApiaryError('USAGE', 'pass --stdio or --http PORT, not both');
  const port =
    flags.http === undefined ? undefined : parseInteger('--http', flags.http, { min: 0, max: 65535 });
  const mode = parseChoice('--mode', flags.mode ?? (flags.servers ? 'search' : 'tools'), [
    'tools',
    'search',
  ] as const);
  const approval = parseChoice('--approve', flags.approve, SERVE_APPROVALS);
  const timeoutMs = parseInteger('--timeout', flags.timeout, { min: 1 });
  const maxSessions = parseInteger('--max-sessions', flags.maxSessions, { min: 1 });
  const sessionIdleMs = parseInteger('--session-idle', flags.sessionIdle, { min: 1 }) * 1000;
  const allowedOrigins = (flags.allowOrigin ?? []).map((origin) => {
    const url = URL.canParse(origin) ? new URL(origin) : undefined;
    if (!url || url.origin === 'null' || !/^https?:$/.test(url.protocol))
      throw usageError('--allow-origin', 'an origin like https://app.example:8080', origin);
    return url.origin;
  });
  const kind = parseChoice('--retriever', flags.retriever, RETRIEVER_KINDS);
  const token = process.env[flags.tokenEnv] || undefined;
  registerSecret(token);
  const { mcpServerFactory, startMcpHttpServer } = await loadMcp();
  const exec = await executableCatalog(flags);
  try {
    const grant = parseList('--grant', flags.grant);
    const retriever =
      mode === 'search'
        ? await buildRetriever(kind, catalogCorpus(exec.catalog), {
            table: () => loadWordVectors().table,
            ...retrieverModelLoaders(kind, '--retriever-model', flags.retrieverModel),
          })
        : undefined;
    const factory = mcpServerFactory({
      catalog: exec.catalog,
      apps: appRegistry(exec.handlers),
      mode,
      ...(grant ? { grant: new Set(grant) } : {}),
      approve: approval === 'elicit' ? 'elicit' : approval === 'auto' ? autoApprove : denyAll,
      ...(retriever ? { retriever } : {}),
      timeoutMs,
    });
    const what = `${exec.catalog.name} (${exec.catalog.apis.length} APIs, ${mode} mode, apps: ${exec.source})`;
    if (port !== undefined) {
      const http = await startMcpHttpServer({
        createServer: factory,
        port,
        host: flags.host,
        ...(token ? { token } : {}),
        allowedOrigins,
        maxSessions,
        sessionIdleMs,
      });
      process.stderr.write(
        `apiary MCP server: ${what} at ${http.url}${token ? ` (bearer token from $${flags.tokenEnv})` : ''}\n`,
      );
      await untilStopped();
      await http.close();
    } else {
      // stdout carries the protocol: everything else goes to stderr.
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const server = factory();
      const transport = new StdioServerTransport();
      await server.connect(transport);
      process.stderr.write(`apiary MCP server: ${what} on stdio\n`);
      await untilStopped((stop) => {
        process.stdin.once('end', stop);
        transport.onclose = stop;
      });
      await server.close().catch(() => {});
    }
  } finally {
    await exec.close();
  }
}

export function registerMcpCommands(program: Command): void {
  const plugins = cliPlugins();
  const { simulated } = executableCatalogs(plugins);
  const mcp = program.command('mcp').description('Model Context Protocol: serve catalogs to MCP clients');
  mcp
    .command('serve')
    .description(
      "serve a catalog's executable APIs to MCP clients (stdio or Streamable HTTP), or many imported MCP servers as one",
    )
    .option('-c, --catalog <name>', `catalog with executable apps (${simulated.join(' | ')})`, simulated[0])
    .option('--data <dir>', 'data folder (catalog files)')
    .option('--db <file>', 'simulated-app database (default: the built one, else the bundled subset)')
    .option(
      '--servers <config.json>',
      'import the MCP servers of a {"mcpServers": …} config and serve them as one',
    )
    .option('--connect-timeout-ms <ms>', CONNECT_TIMEOUT_HELP)
    .option('--stdio', 'speak MCP on stdin/stdout (the default)')
    .option('--http <port>', 'serve Streamable HTTP on this port (0: any free port) at /mcp')
    .option('--host <host>', 'interface for --http', '127.0.0.1')
    .option(
      '--mode <mode>',
      'tools: one tool per API | search: search_apis + call_api (default with --servers)',
    )
    .option('--grant <apps>', 'comma-separated app ids clients may call (default: every app)')
    .option('--approve <mode>', 'transactional calls: elicit (ask the client) | auto | deny', 'elicit')
    .option('--retriever <kind>', `ranking of search_apis (${RETRIEVER_KINDS.join(' | ')})`, 'bm25')
    .option(
      '--retriever-model <file>',
      'trained retriever model for trained kinds, or a dense encoder for dense kinds',
    )
    .option('--timeout <ms>', 'time limit of one call', '30000')
    .option('--allow-dir <dir>', allowDirHelp(plugins), collectOption)
    .option(
      '--allow-origin <origin>',
      'with --http: a browser origin (scheme://host[:port]) allowed besides localhost pages; other Origin headers get 403; repeatable',
      collectOption,
    )
    .option('--max-sessions <n>', 'with --http: sessions open at once at most (more get 503)', '100')
    .option(
      '--session-idle <s>',
      'with --http: close a session after this many seconds without a request',
      '600',
    )
    .option(
      '--token-env <name>',
      'with --http: require "Authorization: Bearer $NAME" (or ?token=$NAME in the URL) when that variable is set',
      'APIARY_MCP_TOKEN',
    )
    .action(serve);
}
