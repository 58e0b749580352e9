import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { AppCallContext, AppCallResult, AppHandler } from '../apps/index.js';
import type { Api, App, Catalog } from '../catalog/index.js';
import { ApiaryError, InputInvalidError, NotFoundError } from '../shared/index.js';
import {
  DEFAULT_CONNECT_TIMEOUT_MS,
  McpConnection,
  type McpConnectionOptions,
  McpServerError,
} from './connection.js';
import { MediaFolder, toolResultText, toolResultToAppResult } from './content.js';
import { jsonSchemaToParameters } from './json-schema-params.js';
import {
  type AutoApprovePolicy,
  isStdioSpec,
  McpServerNameSchema,
  type McpServerSpec,
  type McpServersConfig,
} from './servers-config.js';

export interface McpImportOptions extends McpConnectionOptions {
  /**
   * Where images, audio and binary resources returned by imported tools are written (default: a
   * fresh folder in the OS temp dir). Either way the files are deleted when the import is closed.
   */
  outputDir?: string;
  /** Which tools run without approval when the server's entry does not say (default `read-only`). */
  autoApprove?: AutoApprovePolicy;
  /**
   * Told when a server starts (with the time it is given) and when its tools are listed: a cold
   * `npx -y` server can take most of a minute, and the CLI says which one it is waiting for.
   */
  onProgress?: (event: McpImportProgress) => void;
}

/** A step of importing one server (`McpImportOptions.onProgress`). */
export type McpImportProgress =
  | { server: string; phase: 'starting'; where: string; timeoutMs: number }
  | { server: string; phase: 'ready'; tools: number; ms: number };

/** One imported server: its app, its APIs, the tools it could not import, and its handler. */
export interface ImportedMcpServer {
  name: string;
  app: App;
  apis: Api[];
  /** Tools left out because their input schema has no Apiary equivalent (each names the tool and field). */
  problems: InputInvalidError[];
  handler: AppHandler;
  connection: McpConnection;
  /** Closes the connection and deletes the media files its results were written to. */
  close(): Promise<void>;
}

/** The owner identity of an imported server's app: only its own handler may run its tools. */
const mcpOwner = (server: string): string => `mcp:${server}`;

/**
 * Does the tool run without approval under the policy? A tool changes state unless the server
 * says it is read-only, and a change destroys unless it says `destructiveHint: false` (MCP's
 * defaults), so an unannotated tool always asks, except under `all`.
 */
function runsWithoutApproval(tool: Tool, policy: AutoApprovePolicy): boolean {
  const readOnly = tool.annotations?.readOnlyHint === true;
  switch (policy) {
    case 'none':
      return false;
    case 'read-only':
      return readOnly;
    case 'non-destructive':
      return readOnly || tool.annotations?.destructiveHint === false;
    case 'all':
      return true;
  }
}

function apiOf(server: string, tool: Tool, policy: AutoApprovePolicy): Api {
  return {
    id: `${server}.${tool.name}`,
    app: server,
    name: tool.name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? '',
    transactional: !runsWithoutApproval(tool, policy),
    parameters: jsonSchemaToParameters(tool.inputSchema, { server, tool: tool.name }),
    outputs: [],
  };
}

/** The error messages of the SDK's validator name the value `data`: call it by what it is. */
const argumentsMessage = (ajvText: string): string =>
  ajvText
    .replace(/\bdata\/([^\s,]+)/g, (_, path: string) => `"${path.replaceAll('/', '.')}"`)
    .replace(/\bdata\b/g, 'the arguments');

/**
 * Checks arguments against each tool's own input schema before they are sent (compiled on first
 * use): what the catalog's parameter types cannot say (nested objects' required fields, patterns
 * in lists, …) is still refused here, as `INPUT_INVALID`, which agents repair. A schema the
 * validator cannot compile is left to the server.
 */
function argumentsChecker(server: string, tools: readonly Tool[]) {
  const validator = new AjvJsonSchemaValidator();
  const schemas = new Map(tools.map((t) => [t.name, t.inputSchema]));
  const compiled = new Map<string, ((args: unknown) => string | undefined) | undefined>();
  return (tool: string, args: Record<string, unknown>): void => {
    if (!compiled.has(tool)) {
      let check: ((args: unknown) => string | undefined) | undefined;
      try {
        const validate = validator.getValidator(
          schemas.get(tool) as Parameters<typeof validator.getValidator>[0],
        );
        check = (value) => {
          const result = validate(value);
          return result.valid ? undefined : result.errorMessage;
        };
      } catch {
        check = undefined;
      }
      compiled.set(tool, check);
    }
    const problem = compiled.get(tool)?.(args);
    if (problem)
      throw new ApiaryError(
        'INPUT_INVALID',
        `invalid arguments for ${server}.${tool} (its input schema): ${argumentsMessage(problem)}`,
      );
  };
}

/** Forwards calls of the server's app to the server, under the server's own owner identity. */
function forwardingHandler(
  server: string,
  connection: McpConnection,
  tools: readonly Tool[],
  media: MediaFolder,
): AppHandler {
  const owner = mcpOwner(server);
  const names = new Set(tools.map((t) => t.name));
  const checkArguments = argumentsChecker(server, tools);
  return {
    appId: server,
    owner,
    async call(api: string, args: Record<string, unknown>, ctx: AppCallContext): Promise<AppCallResult> {
      if (ctx.caller !== owner)
        throw new ApiaryError(
          'PERMISSION_DENIED',
          `${server}: call to "${api}" refused: caller "${ctx.caller}" is not the app's owner "${owner}"`,
        );
      if (!names.has(api)) throw new NotFoundError(`tool of MCP server ${server}`, api, [...names]);
      checkArguments(api, args);
      const result = await connection.callTool(api, args, ctx.signal);
      if (result.isError)
        throw new McpServerError(
          server,
          'tool-error',
          `${server}.${api} failed: ${toolResultText(result) || 'no message'}`,
        );
      return toolResultToAppResult(result, media, `${server}-${api}`);
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
  const timeoutMs = spec.connectTimeoutMs ?? opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const connection = new McpConnection(name, spec, { ...opts, connectTimeoutMs: timeoutMs });
  const policy = spec.autoApprove ?? opts.autoApprove ?? 'read-only';
  const where = isStdioSpec(spec) ? [spec.command, ...spec.args].join(' ') : spec.url;
  opts.onProgress?.({ server: name, phase: 'starting', where, timeoutMs });
  const started = Date.now();
  let tools: Tool[];
  try {
    tools = await connection.listTools();
  } catch (error) {
    await connection.close();
    throw error;
  }
  opts.onProgress?.({ server: name, phase: 'ready', tools: tools.length, ms: Date.now() - started });
  const apis: Api[] = [];
  const imported: Tool[] = [];
  const problems: InputInvalidError[] = [];
  for (const tool of tools)
    try {
      apis.push(apiOf(name, tool, policy));
      imported.push(tool);
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
  const media = new MediaFolder(opts.outputDir);
  const handler = forwardingHandler(name, connection, imported, media);
  return { name, app, apis, problems, handler, connection, close: () => closeImported(connection, media) };
}

async function closeImported(connection: McpConnection, media: MediaFolder): Promise<void> {
  try {
    await connection.close();
  } finally {
    media.remove();
  }
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
      await Promise.allSettled(servers.map((s) => s.close()));
    },
  };
}
