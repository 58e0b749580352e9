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
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Path of the MCP endpoint (default `/mcp`). */
  path?: string;
  /**
   * Host names a request's `Host` header may name. Default on a loopback interface: `localhost`,
   * `127.0.0.1` and `[::1]` (a web page that rebinds its own DNS name to 127.0.0.1 is refused);
   * elsewhere any host.
   */
  allowedHosts?: readonly string[];
}

export interface McpHttpServer {
  /** The endpoint URL, e.g. `http://127.0.0.1:8931/mcp`. */
  url: string;
  port: number;
  /** Open sessions. */
  sessions(): number;
  close(): Promise<void>;
}

function sameToken(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '');
  const want = Buffer.from(`Bearer ${token}`);
  return given.length === want.length && timingSafeEqual(given, want);
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

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

/**
 * Serves MCP over Streamable HTTP: each client session (`Mcp-Session-Id`) gets its own server and
 * transport; DELETE ends a session. With a token, requests without the right bearer get 401.
 */
export async function startMcpHttpServer(opts: McpHttpOptions): Promise<McpHttpServer> {
  const path = opts.path ?? '/mcp';
  const host = opts.host ?? '127.0.0.1';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const allowedHosts = opts.allowedHosts
    ? new Set(opts.allowedHosts)
    : LOOPBACK.has(host)
      ? LOOPBACK
      : undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (allowedHosts && !allowedHosts.has(hostName(req.headers.host)))
      return jsonRpcError(res, 403, `host "${req.headers.host}" is not allowed`);
    if (opts.token !== undefined && !sameToken(req.headers.authorization, opts.token))
      return jsonRpcError(res, 401, 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' });
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== path)
      return jsonRpcError(res, 404, `the MCP endpoint is ${path}`);
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (typeof sid === 'string' && !transport) return jsonRpcError(res, 404, `unknown session "${sid}"`);
    if (!transport) {
      if (req.method !== 'POST') return jsonRpcError(res, 400, 'start a session with an initialize POST');
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, created);
        },
      });
      created.onclose = () => {
        if (created.sessionId) sessions.delete(created.sessionId);
      };
      await opts.createServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
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
  });
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    port,
    sessions: () => sessions.size,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
