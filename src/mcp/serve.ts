import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type Api,
  apiInputJsonSchema,
  type Catalog,
  type CatalogIndex,
  indexCatalog,
} from '../catalog/index.js';
import {
  type AppRegistry,
  type ApprovalHandler,
  type ApprovalRequest,
  type CallOutcome,
  type CallRequest,
  dispatchCall,
  isTransactionalCall,
} from '../exec/index.js';
import { buildRetriever, catalogCorpus, type Retriever } from '../retrieval/index.js';
import { MAX_JSON_DEPTH, valueDepthExceeds } from '../shared/index.js';
import { callErrorToToolResult, contentToToolResult } from './content.js';
import { strictArgumentProblem } from './strict-arguments.js';

export type McpServeMode = 'tools' | 'search';

export interface McpServeOptions {
  catalog: Catalog;
  /** The executable apps; only APIs of apps with a handler (and granted) are offered. */
  apps: AppRegistry;
  /** `tools`: one MCP tool per API; `search`: `search_apis` + `call_api` (default `tools`). */
  mode?: McpServeMode;
  /** App ids clients may call (default: every app with a handler). */
  grant?: ReadonlySet<string>;
  /**
   * Decides transactional calls. Default `elicit`: ask the client through MCP elicitation, and refuse
   * (nothing runs) when the client has no elicitation capability.
   */
  approve?: 'elicit' | ApprovalHandler;
  /** Ranks APIs for `search_apis` (default: BM25 over the catalog, built on first search). */
  retriever?: Retriever;
  /** Time limit of one call in ms (dispatchCall's default when absent). */
  timeoutMs?: number;
  /** How often a running call reports progress to a client that asked for it (default 1000 ms). */
  progressIntervalMs?: number;
  /** Server name and version announced to clients. */
  name?: string;
  version?: string;
}

const SEARCH_TOOL = 'search_apis';
const CALL_TOOL = 'call_api';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A name MCP clients accept (`[A-Za-z0-9_.-]`, at most 128 characters), unique in `taken`. */
function mcpToolName(api: Api, taken: Set<string>): string {
  const base = api.id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120) || 'api';
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/** What the server knows once, shared by all its sessions: callable APIs, tool names, the retriever. */
interface Offer {
  index: CatalogIndex;
  callable: Api[];
  byToolName: Map<string, Api>;
  tools: Tool[];
  retriever: () => Promise<Retriever>;
}

function isCallable(api: Api, opts: McpServeOptions): boolean {
  return opts.apps.has(api.app) && (!opts.grant || opts.grant.has(api.app));
}

function toolOf(api: Api, name: string, index: CatalogIndex, apps: AppRegistry): Tool {
  const transactional = isTransactionalCall(api, apps.get(api.app));
  const app = index.app(api.app);
  return {
    name,
    title: `${app?.name ?? api.app}: ${api.name}`,
    description: `${api.description}${transactional ? ' (transactional: asks for approval)' : ''}`,
    inputSchema: apiInputJsonSchema(api) as Tool['inputSchema'],
    annotations: { readOnlyHint: !transactional, destructiveHint: transactional, openWorldHint: false },
  };
}

function searchTools(): Tool[] {
  return [
    {
      name: SEARCH_TOOL,
      title: 'Search APIs',
      description:
        'Find the APIs that fit a task, best first. Each hit gives the API id to pass to call_api and its input schema.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'what the API should do, in plain words' },
          limit: { type: 'integer', minimum: 1, maximum: 50, description: 'hits at most (default 10)' },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: CALL_TOOL,
      title: 'Call an API',
      description:
        'Call one API found with search_apis, by its id, with arguments that fit its input schema. Transactional APIs ask for approval.',
      inputSchema: {
        type: 'object',
        properties: {
          api: { type: 'string', description: 'the API id from search_apis (e.g. "Rents.getcarsavailable")' },
          arguments: { type: 'object', description: 'the API arguments', additionalProperties: true },
        },
        required: ['api'],
      },
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
    },
  ];
}

function prepareOffer(opts: McpServeOptions): Offer {
  const index = indexCatalog(opts.catalog);
  const callable = opts.catalog.apis.filter((a) => isCallable(a, opts));
  const byToolName = new Map<string, Api>();
  const taken = new Set<string>();
  const tools: Tool[] = [];
  if ((opts.mode ?? 'tools') === 'tools')
    for (const api of callable) {
      const name = mcpToolName(api, taken);
      byToolName.set(name, api);
      tools.push(toolOf(api, name, index, opts.apps));
    }
  else tools.push(...searchTools());
  let retriever: Promise<Retriever> | undefined;
  return {
    index,
    callable,
    byToolName,
    tools,

    retriever: () => {
      retriever ??= opts.retriever
        ? Promise.resolve(opts.retriever)
        : buildRetriever('bm25', catalogCorpus(opts.catalog));
      return retriever;
    },
  };
}

/** One line naming a call, e.g. `Payment.makepayment(amount=12, receiver="Ann")`. */
function callLine(request: ApprovalRequest): string {
  const args = Object.entries(request.args).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `${request.app}.${request.api}(${args.join(', ')})`;
}

/** Asks the client through elicitation; a client that cannot be asked gets a refusal (nothing runs). */
function elicitingApprover(server: Server, extra: Extra): ApprovalHandler {
  return async (request) => {
    const elicitation = server.getClientCapabilities()?.elicitation;
    // A client that declares only URL-mode elicitation cannot answer a form.
    if (!elicitation || (elicitation.url && !elicitation.form))
      return {
        approved: false,
        reason:
          'this MCP client cannot be asked for approval (it has no elicitation capability), so transactional calls are refused',
      };
    const answer = await server.elicitInput(
      {
        mode: 'form',
        message: `Allow transactional call ${callLine(request)}? ${request.description}`,
        requestedSchema: {
          type: 'object',
          properties: { approve: { type: 'boolean', title: 'Approve', description: 'run this call' } },
          required: ['approve'],
        },
      },
      { relatedRequestId: extra.requestId, signal: extra.signal },
    );
    if (answer.action === 'accept' && answer.content?.approve === true) return { approved: true };
    return {
      approved: false,
      reason:
        answer.action === 'accept'
          ? 'the client answered no'
          : `the client ${answer.action === 'decline' ? 'declined' : 'cancelled'} the approval`,
    };
  };
}

/**
 * Sends `notifications/progress` every `intervalMs` while a call runs, when the client gave a
 * progress token (a simulated app or a tool has no finer progress to report than "still running").
 */
function progressReporter(extra: Extra, what: string, intervalMs: number): () => void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => {};
  const t0 = Date.now();
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: ticks,
          message: `${what} running for ${Date.now() - t0} ms`,
        },
      })
      .catch(() => {});
  }, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}

/** A tool argument that must be an object (`arguments` of call_api, or a tool's own arguments). */
function argsObject(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return {};
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The MCP spec lists an unknown tool as a protocol error (`-32602`, invalid params), not a tool
 * result: the client asked for something the server never offered.
 */
const unknownTool = (name: string, offers = ''): Error =>
  invalidParams(`Unknown tool: ${JSON.stringify(name)}${offers}`);

/**
 * A JSON-RPC "invalid params" error. Not the SDK's `McpError`, whose message already starts with
 * "MCP error -32602:", which the client would then prefix a second time.
 */
function invalidParams(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}

const invalid = (message: string): CallToolResult =>
  callErrorToToolResult({ code: 'INPUT_INVALID', message });

/**
 * A factory of MCP servers over one catalog: each session (stdio, one HTTP session, an in-memory
 * pair) gets its own `Server`, all sharing the prepared tool list and retriever. Every call goes
 * through `dispatchCall`: catalog lookup, argument checks, the app's permission scope, approval of
 * transactional calls (elicitation), the time limit and the request's cancellation signal.
 */
export function mcpServerFactory(opts: McpServeOptions): () => Server {
  const offer = prepareOffer(opts);
  const progressMs = opts.progressIntervalMs ?? 1000;
  return () => {
    const server = new Server(
      { name: opts.name ?? `apiary-${opts.catalog.name}`, version: opts.version ?? '0.1.0' },
      { capabilities: { tools: { listChanged: false } } },
    );
    const dispatch = async (
      api: Api,
      args: Record<string, unknown>,
      extra: Extra,
    ): Promise<CallToolResult> => {
      // JSON types as the schema says (dispatchCall alone would take 5 for a string parameter);
      // a value nested too deep is refused first, with the one message dispatchCall gives it
      if (valueDepthExceeds(args, MAX_JSON_DEPTH))
        return invalid(`invalid arguments for ${api.id}: nested deeper than ${MAX_JSON_DEPTH} levels`);
      const problem = strictArgumentProblem(api, args);
      if (problem) return invalid(problem);
      const call: CallRequest = { app: api.app, api: api.name, args };
      const stop = progressReporter(extra, api.id, progressMs);
      let outcome: CallOutcome;
      try {
        outcome = await dispatchCall(call, {
          catalog: offer.index,
          apps: opts.apps,
          ...(opts.grant ? { grant: opts.grant } : {}),
          approve:
            opts.approve && opts.approve !== 'elicit' ? opts.approve : elicitingApprover(server, extra),
          ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
          signal: extra.signal,
        });
      } finally {
        stop();
      }
      return outcome.ok ? contentToToolResult(outcome.content) : callErrorToToolResult(outcome.error);
    };

    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      // One page holds every tool, so this server never hands out a cursor: any cursor is invalid.
      if (request.params?.cursor !== undefined)
        throw invalidParams(
          `invalid cursor ${JSON.stringify(request.params.cursor)}: this server lists every tool on one page`,
        );
      return { tools: offer.tools };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name } = request.params;
      const args = request.params.arguments ?? {};
      if ((opts.mode ?? 'tools') === 'tools') {
        const api = offer.byToolName.get(name);
        if (!api) throw unknownTool(name);
        return dispatch(api, args, extra);
      }
      if (name === SEARCH_TOOL) return searchApis(offer, opts, args);
      if (name === CALL_TOOL) {
        if (typeof args.api !== 'string') return invalid('call_api needs "api": the API id from search_apis');
        const api = offer.index.apiById(args.api);
        const callArgs = argsObject(args.arguments);
        if (!callArgs) return invalid('call_api: "arguments" must be an object');
        if (!api) {
          // dispatchCall names close APIs when the id splits as `<app>.<api>`.
          const dot = args.api.indexOf('.');
          const probe = {
            app: dot > 0 ? args.api.slice(0, dot) : args.api,
            api: args.api.slice(dot + 1),
            args: callArgs,
          };
          const outcome = await dispatchCall(probe, {
            catalog: offer.index,
            apps: opts.apps,
            grant: new Set(),
          });
          return callErrorToToolResult(
            !outcome.ok && outcome.error.code === 'UNKNOWN_API'
              ? outcome.error
              : { code: 'UNKNOWN_API', message: `no API "${args.api}"` },
          );
        }
        return dispatch(api, callArgs, extra);
      }
      throw unknownTool(name, ` (this server offers ${SEARCH_TOOL} and ${CALL_TOOL})`);
    });
    return server;
  };
}

async function searchApis(
  offer: Offer,
  opts: McpServeOptions,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  if (typeof args.query !== 'string' || !args.query.trim())
    return invalid('search_apis needs a non-empty "query"');
  // Strict JSON types, as the schema says: "5" is not an integer.
  const limit = args.limit === undefined ? 10 : args.limit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 50)
    return invalid(`search_apis: "limit" must be an integer from 1 to 50, got ${JSON.stringify(args.limit)}`);
  const retriever = await offer.retriever();
  const apis = opts.catalog.apis;
  // Hits of apps the client may not call are dropped, so ask for more than `limit`.
  const want = offer.callable.length === apis.length ? limit : Math.min(apis.length, limit * 4);
  const hits = await retriever.search(args.query, want);
  const rows = hits
    .map((h) => apis[h.doc])
    .filter((api): api is Api => api !== undefined && isCallable(api, opts))
    .slice(0, limit)
    .map((api) => ({
      api: api.id,
      app: api.app,
      description: api.description,
      transactional: isTransactionalCall(api, opts.apps.get(api.app)),
      inputSchema: apiInputJsonSchema(api),
    }));
  return contentToToolResult([{ type: 'rows', rows }]);
}
