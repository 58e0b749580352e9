import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { countSideEffects } from '../benchmarks/appbench/apps/sgd-apps.js';
import type { SqliteDatabase } from '../benchmarks/appbench/apps/sgd-database.js';
import { indexCatalog } from '../catalog/index.js';
import { appRegistry, autoApprove, dispatchCall } from '../exec/index.js';
import {
  appbench,
  fixtureDb,
  lotusLeaf,
  reservation,
  simulatedApps,
  toyApps,
  toyCatalog,
} from './__fixtures__/fixtures.js';
import { type McpHttpServer, startMcpHttpServer } from './http.js';
import { importMcpServer } from './import.js';
import { mcpServerFactory } from './serve.js';

const TOKEN = 'test-token-123';
const auth = { Authorization: `Bearer ${TOKEN}` };

async function httpClient(url: string, opts: { headers?: Record<string, string>; approve?: boolean } = {}) {
  const client = new Client(
    { name: 'http-test', version: '1.0.0' },
    { capabilities: opts.approve !== undefined ? { elicitation: { form: {} } } : {} },
  );
  if (opts.approve !== undefined)
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept',
      content: { approve: opts.approve },
    }));
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      opts.headers ? { requestInit: { headers: opts.headers } } : {},
    ),
  );
  return client;
}

describe('MCP over Streamable HTTP', () => {
  let db: SqliteDatabase;
  let http: McpHttpServer;
  let clients: Client[];
  beforeEach(async () => {
    db = fixtureDb();
    clients = [];
    http = await startMcpHttpServer({
      createServer: mcpServerFactory({ catalog: appbench, apps: appRegistry(simulatedApps(db)) }),
      port: 0,
      token: TOKEN,
    });
  });
  afterEach(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await http.close();
    db.close();
  });
  const connect = async (opts: Parameters<typeof httpClient>[1]) => {
    const c = await httpClient(http.url, opts);
    clients.push(c);
    return c;
  };

  it('refuses a client without the bearer token', async () => {
    await expect(httpClient(http.url)).rejects.toThrow(/missing or wrong bearer token/);
    await expect(httpClient(http.url, { headers: { Authorization: 'Bearer wrong' } })).rejects.toThrow(
      /missing or wrong bearer token/,
    );
    expect(http.sessions()).toBe(0);
  });

  it('takes the token in the URL query for clients without custom headers; a wrong one gets 401', async () => {
    const client = await httpClient(`${http.url}?token=${TOKEN}`);
    clients.push(client);
    expect((await client.listTools()).tools).toHaveLength(33);
    expect(http.sessions()).toBe(1);
    const refused = await fetch(`${http.url}?token=wrong-token`, { method: 'POST' });
    expect(refused.status).toBe(401);
    const body = await refused.text();
    expect(JSON.parse(body).error.message).toBe('missing or wrong bearer token (header or ?token=)');
    expect(body).not.toContain('wrong-token');
  });

  it('refuses a Host header that is not loopback (DNS rebinding)', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        http.url,
        {
          method: 'POST',
          headers: { host: `evil.example:${http.port}`, ...auth, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  it('lists and calls tools, one session per client', async () => {
    const a = await connect({ headers: auth });
    const b = await connect({ headers: auth });
    expect(http.sessions()).toBe(2);
    expect((await a.listTools()).tools).toHaveLength(33);
    const result = await b.callTool({
      name: 'Restaurants.findrestaurants',
      arguments: { category: 'Thai', location: 'Springfield', has_seating_outdoors: true },
    });
    expect(result.structuredContent).toEqual({ rows: [lotusLeaf] });
    // Ending a session (DELETE) frees its server.
    await (a.transport as StreamableHTTPClientTransport).terminateSession();
    expect(http.sessions()).toBe(1);
  });

  it('asks the client for approval over its session: accepted runs, declined does not', async () => {
    const no = await connect({ headers: auth, approve: false });
    const refused = await no.callTool({ name: 'Restaurants.reserverestaurant', arguments: reservation });
    expect(refused.isError).toBe(true);
    expect(countSideEffects(db)).toBe(0);
    const yes = await connect({ headers: auth, approve: true });
    const done = await yes.callTool({ name: 'Restaurants.reserverestaurant', arguments: reservation });
    expect(done.isError).toBeUndefined();
    expect(countSideEffects(db)).toBe(1);
  });

  it('imports the served catalog back over HTTP and calls it through dispatchCall', async () => {
    const server = await importMcpServer('apps', { url: http.url, headers: auth });
    try {
      expect(server.apis).toHaveLength(33);
      const find = server.apis.find((a) => a.name === 'Restaurants.findrestaurants')!;
      expect(find).toMatchObject({ id: 'apps.Restaurants.findrestaurants', transactional: false });
      const ctx = {
        catalog: indexCatalog({ name: 'mcp', apps: [server.app], apis: server.apis }),
        apps: appRegistry([server.handler]),
        approve: autoApprove,
      };
      const found = await dispatchCall(
        {
          app: 'apps',
          api: 'Restaurants.findrestaurants',
          args: { category: 'Thai', location: 'Springfield' },
        },
        ctx,
      );
      expect(found.ok && found.raw).toEqual({
        rows: [lotusLeaf, expect.objectContaining({ restaurant_name: 'Basil House' })],
      });
      // Approved here, but the serving side asks its client (Apiary's importer has no elicitation): refused, no effect.
      const reserve = await dispatchCall(
        { app: 'apps', api: 'Restaurants.reserverestaurant', args: reservation },
        ctx,
      );
      expect(reserve.ok).toBe(false);
      expect(!reserve.ok && reserve.error.message).toMatch(/APPROVAL_DENIED: .*no elicitation capability/);
      expect(countSideEffects(db)).toBe(0);
    } finally {
      await server.connection.close();
    }
    expect(http.sessions()).toBe(0);
  });
});

describe('cancellation over HTTP', () => {
  it('a client abort reaches the handler through dispatchCall', async () => {
    const { handlers, state } = toyApps();
    const http = await startMcpHttpServer({
      createServer: mcpServerFactory({
        catalog: toyCatalog,
        apps: appRegistry(handlers),
        progressIntervalMs: 10,
      }),
      port: 0,
    });
    const client = await httpClient(http.url);
    try {
      const ctrl = new AbortController();
      const call = client.callTool({ name: 'Slow.wait', arguments: { ms: 5000 } }, undefined, {
        signal: ctrl.signal,
        onprogress: () => ctrl.abort(new Error('stop')),
      });
      await expect(call).rejects.toThrow('stop');
      await vi.waitFor(() => expect(state.endings).toEqual(['aborted']));
    } finally {
      await client.close();
      await http.close();
    }
  });
});

describe('an imported HTTP server that restarts', () => {
  it('fails the call that finds it gone with a typed error, then reconnects to the new server', async () => {
    const { handlers } = toyApps();
    const factory = mcpServerFactory({ catalog: toyCatalog, apps: appRegistry(handlers) });
    const first = await startMcpHttpServer({ createServer: factory, port: 0 });
    const server = await importMcpServer('toy', { url: first.url });
    const ctx = {
      catalog: indexCatalog({ name: 'mcp', apps: [server.app], apis: server.apis }),
      apps: appRegistry([server.handler]),
    };
    const call = () => dispatchCall({ app: 'toy', api: 'Slow.wait', args: { ms: 1 } }, ctx);
    try {
      expect((await call()).ok).toBe(true);
      await first.close();
      const second = await startMcpHttpServer({ createServer: factory, port: first.port });
      try {
        const lost = await call();
        expect(!lost.ok && lost.error.code).toBe('TOOL_FAILED');
        expect(!lost.ok && lost.error.message).toMatch(
          /^MCP server "toy" \(http:.*\) went away during tools\/call "Slow.wait"/,
        );
        const again = await call();
        expect(again.ok && again.raw).toEqual({ waited: 1 });
        expect(server.connection.connects).toBe(2);
      } finally {
        await second.close();
      }
    } finally {
      await server.connection.close();
    }
  });
});
