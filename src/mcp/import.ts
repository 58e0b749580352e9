import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AppCallContext, AppCallResult, AppHandler } from '../apps/index.js';
import type { Api, App, Catalog } from '../catalog/index.js';
import { ApiaryError, InputInvalidError, NotFoundError } from '../shared/index.js';
import { McpConnection, type McpConnectionOptions, McpServerError } from './connection.js';
import { toolResultText, toolResultToAppResult } from './content.js';
import { jsonSchemaToParameters } from './json-schema-params.js';
import { McpServerNameSchema, type McpServerSpec, type McpServersConfig } from './servers-config.js';

export interface McpImportOptions extends McpConnectionOptions {
  /** Where images and audio returned by imported tools are written (default: a folder in the OS temp dir). */
  outputDir?: string;
}

/** One imported server: its app, its APIs, the tools it could not import, and its handler. */
export interface ImportedMcpServer {
  name: string;
  app: App;
  apis: Api[];
  /** Tools left out because their input schema has no Apiary equivalent (each names the tool and field). */
  problems: InputInvalidError[];
  handler: AppHandler;
  connection: McpConnection;
}

/** The owner identity of an imported server's app: only its own handler may run its tools. */
const mcpOwner = (server: string): string => `mcp:${server}`;

/**
 * A tool changes state unless the server says it is read-only (MCP's default for
 * `destructiveHint` is true), so imported tools ask for approval unless marked `readOnlyHint`.
 */
const isReadOnlyTool = (tool: Tool): boolean => tool.annotations?.readOnlyHint === true;

function apiOf(server: string, tool: Tool): Api {
  return {
    id: `${server}.${tool.name}`,
    app: server,
    name: tool.name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
    transactional: !isReadOnlyTool(tool),
    parameters: jsonSchemaToParameters(tool.inputSchema, { server, tool: tool.name }),
    outputs: [],
  };
}

let callCount = 0;

/** Forwards calls of the server's app to the server, under the server's own owner identity. */
function forwardingHandler(
  server: string,
  connection: McpConnection,
  tools: Set<string>,
  outputDir: string,
): AppHandler {
  const owner = mcpOwner(server);
  return {
    appId: server,
    owner,
    async call(api: string, args: Record<string, unknown>, ctx: AppCallContext): Promise<AppCallResult> {
      if (ctx.caller !== owner)
        throw new ApiaryError(
          'PERMISSION_DENIED',
          `${server}: call to "${api}" refused: caller "${ctx.caller}" is not the app's owner "${owner}"`,
        );
      if (!tools.has(api)) throw new NotFoundError(`tool of MCP server ${server}`, api, [...tools]);
      const result = await connection.callTool(api, args, ctx.signal);
      if (result.isError)
        throw new McpServerError(
          server,
          'tool-error',
          `${server}.${api} failed: ${toolResultText(result) || 'no message'}`,
        );
      return toolResultToAppResult(result, { outputDir, fileStem: `${server}-${api}-${++callCount}` });
    },
  };
}

/**
 * Connects to one MCP server and imports its tools as one app (`<server>`, owner `mcp:<server>`)
 * with one API per tool (`<server>.<tool>`). Tools whose schema cannot be converted are left out
 * and reported in `problems`; a server that cannot be reached throws `McpServerError`.
 */
export async function importMcpServer(
  name: string,
  spec: McpServerSpec,
  opts: McpImportOptions = {},
): Promise<ImportedMcpServer> {
  const checked = McpServerNameSchema.safeParse(name);
  if (!checked.success)
    throw new InputInvalidError(
      { file: 'MCP servers', record: name, field: 'name' },
      checked.error.issues[0]!.message,
    );
  const connection = new McpConnection(name, spec, opts);
  let tools: Tool[];
  try {
    tools = await connection.listTools();
  } catch (error) {
    await connection.close();
    throw error;
  }
  const apis: Api[] = [];
  const problems: InputInvalidError[] = [];
  for (const tool of tools)
    try {
      apis.push(apiOf(name, tool));
    } catch (error) {
      if (!(error instanceof InputInvalidError)) throw error;
      problems.push(error);
    }
  const client = await connection.connect();
  const info = client.getServerVersion();
  const app: App = {
    id: name,
    name: info?.title ?? info?.name ?? name,
    description: client.getInstructions()?.slice(0, 500) ?? `MCP server ${name}`,
    owner: mcpOwner(name),
    category: 'mcp',
  };
  const outputDir = opts.outputDir ?? join(tmpdir(), `apiary-mcp-${process.pid}`);
  const handler = forwardingHandler(name, connection, new Set(apis.map((a) => a.name)), outputDir);
  return { name, app, apis, problems, handler, connection };
}

/** Servers imported together as one catalog. */
export interface McpImport {
  catalog: Catalog;
  servers: ImportedMcpServer[];
  handlers: AppHandler[];
  /** Servers that could not be imported (unreachable, crashed while listing). */
  failures: Array<{ server: string; error: Error }>;
  close(): Promise<void>;
}

/**
 * Imports every server of a `mcpServers` config (in parallel) into one catalog. A server that
 * fails is reported in `failures`, the others are still imported.
 */
export async function importMcpServers(
  config: McpServersConfig,
  opts: McpImportOptions & { catalogName?: string } = {},
): Promise<McpImport> {
  const entries = Object.entries(config.mcpServers);
  const settled = await Promise.allSettled(entries.map(([name, spec]) => importMcpServer(name, spec, opts)));
  const servers: ImportedMcpServer[] = [];
  const failures: McpImport['failures'] = [];
  settled.forEach((s, i) => {
    if (s.status === 'fulfilled') servers.push(s.value);
    else
      failures.push({
        server: entries[i]![0],
        error: s.reason instanceof Error ? s.reason : new Error(String(s.reason)),
      });
  });
  return {
    catalog: {
      name: opts.catalogName ?? 'mcp',
      apps: servers.map((s) => s.app),
      apis: servers.flatMap((s) => s.apis),
    },
    servers,
    handlers: servers.map((s) => s.handler),
    failures,
    close: async () => {
      await Promise.allSettled(servers.map((s) => s.connection.close()));
    },
  };
}
