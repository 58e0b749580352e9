import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ApiaryError } from '../shared/index.js';

export interface McpHttpOptions {
  /** Makes one MCP server per session (`mcpServerFactory`). */
  createServer: () => Server;
  /** 0 picks a free port. */
  port: number;
  /** Interface to listen on (default 127.0.0.1: loopback only). */
  host?: string;
  /**
   * When set, every request needs `Authorization: Bearer <token>`, or, for clients that cannot set
   * headers, the endpoint URL with `?token=<token>`.
   */
  token?: string;
  /** Path of the MCP endpoint (default `/mcp`). */
  path?: string;
  /**
   * Host names a request's `Host` header may name. Default on a loopback interface: `localhost`,
   * `127.0.0.1` and `[::1]` (a web page that rebinds its own DNS name to 127.0.0.1 is refused);
   * elsewhere any host.
   */
  allowedHosts?: readonly string[];
  /**
   * Browser origins (`scheme://host[:port]`) whose requests are served, besides loopback pages
   * (`http(s)://localhost|127.0.0.1|[::1]` on any port), which are always allowed. A request with
   * any other `Origin` gets 403 (the MCP spec's DNS-rebinding defence); requests without `Origin`
   * (programs, not browsers) pass.
   */
  allowedOrigins?: readonly string[];
  /** Sessions open at once at most (default 100); an `initialize` beyond it gets 503. */
  maxSessions?: number;
  /** A session without a request for this long is closed and freed (default 10 minutes). */
  sessionIdleMs?: number;
}

/** Sessions open at once at most, by default. */
const DEFAULT_MAX_SESSIONS = 100;
/** Idle time after which a session is closed, by default (10 minutes). */
const DEFAULT_SESSION_IDLE_MS = 10 * 60_000;

export interface McpHttpServer {
  /** The endpoint URL, e.g. `http://127.0.0.1:8931/mcp`. */
  url: string;
  port: number;
  /** Open sessions. */
  sessions(): number;
  close(): Promise<void>;
}

/** Compared in constant time, so the answer's timing says nothing about the token. */
function sameSecret(given: string | null | undefined, want: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The bearer header, or the `token` query parameter (clients without custom headers). */
function authorized(req: IncomingMessage, url: URL, token: string): boolean {
  return (
    sameSecret(req.headers.authorization, `Bearer ${token}`) ||
    sameSecret(url.searchParams.get('token'), token)
  );
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** `Origin` values of pages served from this machine (any port, http or https). */
function isLoopbackOrigin(origin: URL): boolean {
  return (origin.protocol === 'http:' || origin.protocol === 'https:') && LOOPBACK.has(origin.hostname);
}

/** The `scheme://host[:port]` form of an origin, or undefined for `null` and other non-URLs. */
function originOf(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** The host name of a `Host` header (`example.org:8080` → `example.org`, `[::1]:80` → `[::1]`). */
function hostName(header: string | undefined): string {
  if (!header) return '';
  return header.startsWith('[') ? header.slice(0, header.indexOf(']') + 1) : header.split(':')[0]!;
}

function jsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** One client session: its server and transport, and when it last had a request. */
interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
  lastActive: number;
  /** POST and DELETE requests of the session still open (a running call): a busy session is not idle. */
  open: number;
}

/**
 * Serves MCP over Streamable HTTP: each client session (`Mcp-Session-Id`) gets its own server and
 * transport; DELETE ends a session, and so does `sessionIdleMs` without a request. At most
 * `maxSessions` are open; a new `initialize` beyond that is refused with 503 (the open sessions
 * keep working; refusing, unlike evicting, never ends another client's session). With a token,
 * requests without the right bearer get 401; a foreign `Host` or `Origin` gets 403.
 */
export async function startMcpHttpServer(opts: McpHttpOptions): Promise<McpHttpServer> {
  const path = opts.path ?? '/mcp';
  const host = opts.host ?? '127.0.0.1';
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const sessions = new Map<string, Session>();
  /** `initialize` requests in progress: they count against the limit before their session exists. */
  let starting = 0;
  const allowedHosts = opts.allowedHosts
    ? new Set(opts.allowedHosts)
    : LOOPBACK.has(host)
      ? LOOPBACK
      : undefined;
  const allowedOrigins = new Set(
    (opts.allowedOrigins ?? []).map((o) => {
      const url = originOf(o);
      if (!url || url.origin === 'null')
        throw new ApiaryError('USAGE', `allowed origin "${o}" is not scheme://host[:port]`);
      return url.origin;
    }),
  );
  const originAllowed = (header: string | undefined): boolean => {
    if (header === undefined) return true;
    const origin = originOf(header);
    return origin !== undefined && (isLoopbackOrigin(origin) || allowedOrigins.has(origin.origin));
  };

  const endSession = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    // Closing the server closes its transport: streams end, pending requests are answered.
    session.server.close().catch(() => {});
  };
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions)
        if (session.open === 0 && now - session.lastActive >= idleMs) endSession(id);
    },
    Math.max(10, Math.min(idleMs / 2, 60_000)),
  );
  sweep.unref();

  /** Marks the session busy until the response ends, then idle from that moment. */
  const track = (session: Session, res: ServerResponse) => {
    session.open += 1;
    session.lastActive = Date.now();
    res.once('close', () => {
      session.open -= 1;
      session.lastActive = Date.now();
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (allowedHosts && !allowedHosts.has(hostName(req.headers.host)))
      return jsonRpcError(res, 403, `host "${req.headers.host}" is not allowed`);
    if (!originAllowed(req.headers.origin))
      return jsonRpcError(res, 403, `origin "${req.headers.origin}" is not allowed`);
    // The URL may carry the token: it is read here and never written to a message or a log.
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (opts.token !== undefined && !authorized(req, url, opts.token))
      return jsonRpcError(res, 401, 'missing or wrong bearer token (header or ?token=)', {
        'www-authenticate': 'Bearer',
      });
    if (url.pathname !== path) return jsonRpcError(res, 404, `the MCP endpoint is ${path}`);
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const session = sessions.get(sid);
      if (!session) return jsonRpcError(res, 404, `unknown session "${sid}"`);
      // A GET stream only waits for server messages: it may stay open, but it keeps nothing alive.
      if (req.method !== 'GET') track(session, res);
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return jsonRpcError(res, 400, 'start a session with an initialize POST');
    if (sessions.size + starting >= maxSessions)
      return jsonRpcError(
        res,
        503,
        `too many sessions: ${maxSessions} are open (the limit); end one (DELETE) or retry after idle ones close (${Math.round(idleMs / 1000)} s without a request)`,
        { 'retry-after': String(Math.max(1, Math.round(idleMs / 2000))) },
      );
    starting += 1;
    try {
      const server = opts.createServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { server, transport, lastActive: Date.now(), open: 0 });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res);
      // Not an initialize (or a failed one): no session was made, nothing is kept.
      if (!transport.sessionId || !sessions.has(transport.sessionId)) await server.close().catch(() => {});
    } finally {
      starting -= 1;
    }
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) jsonRpcError(res, 500, `internal error: ${(error as Error)?.message ?? error}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error) =>
      reject(
        new ApiaryError('USAGE', `cannot listen on ${host}:${opts.port}: ${error.message}`, { cause: error }),
      ),
    );
    http.listen(opts.port, host, () => resolve());
  }).catch((error) => {
    clearInterval(sweep);
    throw error;
  });
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    port,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweep);
      await Promise.allSettled([...sessions.values()].map((s) => s.server.close()));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
