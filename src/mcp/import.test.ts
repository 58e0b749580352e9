import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { indexCatalog } from '../catalog/index.js';
import { type AppRegistry, appRegistry, autoApprove, type CallOutcome, dispatchCall } from '../exec/index.js';
import { InputInvalidError } from '../shared/index.js';
import { connectInMemory } from './__fixtures__/fixtures.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, McpServerError } from './connection.js';
import {
  type ImportedMcpServer,
  importMcpServer,
  importMcpServers,
  type McpImportProgress,
} from './import.js';

const fixture = join(import.meta.dirname, '__fixtures__/misbehaving-server.mjs');
const spec = { command: process.execPath, args: [fixture] };

function context(server: ImportedMcpServer, extra: { timeoutMs?: number; grant?: Set<string> } = {}) {
  const catalog = indexCatalog({ name: 't', apps: [server.app], apis: server.apis });
  const apps: AppRegistry = appRegistry([server.handler]);
  return { catalog, apps, ...extra };
}

const errorOf = (o: CallOutcome) => (o.ok ? undefined : o.error);

describe('importing a misbehaving MCP server (stdio)', () => {
  let odd: ImportedMcpServer;
  beforeAll(async () => {
    odd = await importMcpServer('odd', spec, { maxResultBytes: 100_000 });
  });
  afterAll(() => odd.connection.close());

  it('imports its tools as one app; the unconvertible schema is a problem naming the tool and field', () => {
    expect(odd.app).toEqual({
      id: 'odd',
      name: 'misbehaving',
      description: 'MCP server odd',
      owner: 'mcp:odd',
      category: 'mcp',
    });
    expect(odd.apis.map((a) => `${a.id}${a.transactional ? ' (transactional)' : ''}`)).toEqual([
      'odd.echo',
      'odd.write_note (transactional)',
      'odd.stats',
      'odd.slow',
      'odd.crash',
      'odd.huge',
      'odd.picture',
    ]);
    expect(odd.apis[0]!.parameters).toEqual([
      { name: 'text', type: { kind: 'primitive', name: 'string' }, required: true },
    ]);
    expect(odd.problems).toHaveLength(1);
    expect(odd.problems[0]).toBeInstanceOf(InputInvalidError);
    expect(odd.problems[0]!.message).toBe(
      'MCP server "odd": record bad_schema: field "target": "allOf" schemas are not supported',
    );
  });

  it('calls a tool through dispatchCall', async () => {
    const outcome = await dispatchCall({ app: 'odd', api: 'echo', args: { text: 'hello' } }, context(odd));
    expect(outcome.ok && outcome.content).toEqual([{ type: 'text', text: 'hello' }]);
  });

  it('a tool without a read-only hint needs approval: denied, the server never sees the call', async () => {
    const denied = await dispatchCall({ app: 'odd', api: 'write_note', args: { note: 'x' } }, context(odd));
    expect(errorOf(denied)?.code).toBe('APPROVAL_DENIED');
    const stats = await dispatchCall({ app: 'odd', api: 'stats', args: {} }, context(odd));
    expect(stats.ok && stats.raw).toEqual({ writes: 0, cancelled: 0 });
    const approved = await dispatchCall(
      { app: 'odd', api: 'write_note', args: { note: 'x' } },
      { ...context(odd), approve: autoApprove },
    );
    expect(approved.ok && approved.raw).toEqual({ written: 1 });
  });

  it('runs only under its own permission scope', async () => {
    const outcome = await dispatchCall(
      { app: 'odd', api: 'echo', args: { text: 'x' } },
      context(odd, { grant: new Set(['other']) }),
    );
    expect(errorOf(outcome)).toEqual({
      code: 'PERMISSION_DENIED',
      message: 'app "odd" is not granted to this run (granted: other)',
    });
  });

  it('a slow tool times out and is cancelled on the server, which keeps serving', async () => {
    const outcome = await dispatchCall(
      { app: 'odd', api: 'slow', args: { ms: 5000 } },
      context(odd, { timeoutMs: 100 }),
    );
    expect(errorOf(outcome)).toEqual({ code: 'TIMEOUT', message: 'no answer within 100 ms' });
    await vi.waitFor(async () => {
      const stats = await dispatchCall({ app: 'odd', api: 'stats', args: {} }, context(odd));
      expect(stats.ok && stats.raw).toMatchObject({ cancelled: 1 });
    });
  });

  it('a huge result is refused with a typed error', async () => {
    const outcome = await dispatchCall({ app: 'odd', api: 'huge', args: { bytes: 150_000 } }, context(odd));
    expect(errorOf(outcome)?.code).toBe('TOOL_FAILED');
    expect(errorOf(outcome)?.message).toMatch(
      /: the result of "huge" is 1500\d\d bytes, above the 100000-byte limit$/,
    );
  });

  it('a message above the transport limit closes the connection with a typed error; the next call reconnects', async () => {
    const outcome = await dispatchCall({ app: 'odd', api: 'huge', args: { bytes: 300_000 } }, context(odd));
    expect(errorOf(outcome)?.message).toMatch(
      /sent a message above the size limit during tools\/call "huge", so the connection was closed .*: ReadBuffer exceeded maximum size of 200000 bytes$/,
    );
    const after = await dispatchCall({ app: 'odd', api: 'echo', args: { text: 'again' } }, context(odd));
    expect(after.ok && after.content).toEqual([{ type: 'text', text: 'again' }]);
  });

  it('an image result is written to a file', async () => {
    const outcome = await dispatchCall({ app: 'odd', api: 'picture', args: {} }, context(odd));
    const part = outcome.ok ? outcome.content[0] : undefined;
    expect(part).toMatchObject({ type: 'image', mediaType: 'image/png' });
    expect(readFileSync((part as { path: string }).path, 'utf8')).toBe('PNGDATA');
  });

  it('an unknown tool names the known ones', async () => {
    const outcome = await odd.handler.call('nope', {}, { caller: 'mcp:odd' }).catch((e: Error) => e.message);
    expect(outcome).toMatch(/nope/);
  });
});

describe('a crashing MCP server', () => {
  it('fails the call in flight with a typed error, then reconnects on the next call', async () => {
    const crashy = await importMcpServer('crashy', spec);
    try {
      const crashed = await dispatchCall({ app: 'crashy', api: 'crash', args: {} }, context(crashy));
      expect(errorOf(crashed)?.code).toBe('TOOL_FAILED');
      expect(errorOf(crashed)?.message).toMatch(
        /^MCP server "crashy" \(.*\) went away during tools\/call "crash"/,
      );
      const after = await dispatchCall(
        { app: 'crashy', api: 'echo', args: { text: 'back' } },
        context(crashy),
      );
      expect(after.ok && after.content).toEqual([{ type: 'text', text: 'back' }]);
      expect(crashy.connection.connects).toBe(2);
    } finally {
      await crashy.connection.close();
    }
  });

  it('a server that never answers the handshake is unreachable after the connect time limit', async () => {
    const error = await importMcpServer(
      'mute',
      { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
      { connectTimeoutMs: 300 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpServerError);
    expect((error as McpServerError).failure).toBe('unreachable');
    expect((error as Error).message).toMatch(
      /^MCP server "mute" \(.*\) could not be reached: MCP error -32001: Request timed out/,
    );
  });

  it('a slow-starting server (2 s, like a cold `npx -y`) fails under a 1 s limit and imports under 3 s; progress is told', async () => {
    const slow = { command: process.execPath, args: [join(fixture, '../slow-start-server.mjs'), '2000'] };
    const events: McpImportProgress[] = [];
    const t0 = Date.now();
    const error = await importMcpServer('slow', slow, {
      connectTimeoutMs: 1000,
      onProgress: (e) => events.push(e),
    }).catch((e: unknown) => e);
    expect((error as McpServerError).failure).toBe('unreachable');
    expect((error as Error).message).toMatch(
      /^MCP server "slow" \(.*\) could not be reached: MCP error -32001: Request timed out/,
    );
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(events).toEqual([
      {
        server: 'slow',
        phase: 'starting',
        where: `${process.execPath} ${slow.args.join(' ')}`,
        timeoutMs: 1000,
      },
    ]);
    events.length = 0;
    const server = await importMcpServer('slow', slow, {
      connectTimeoutMs: 3000,
      onProgress: (e) => events.push(e),
    });
    try {
      expect(server.apis.length).toBeGreaterThan(0);
      expect(events.map((e) => e.phase)).toEqual(['starting', 'ready']);
      const ready = events[1] as Extract<McpImportProgress, { phase: 'ready' }>;
      expect(ready.tools).toBe(server.apis.length + server.problems.length);
      expect(ready.ms).toBeGreaterThanOrEqual(2000);
    } finally {
      await server.close();
    }
  }, 15_000);

  it('the default connect time limit is at least 60 s (a cold `npx -y` took over 10 s in 3 of 6 tries)', async () => {
    expect(DEFAULT_CONNECT_TIMEOUT_MS).toBeGreaterThanOrEqual(60_000);
    const events: McpImportProgress[] = [];
    const server = await importMcpServer(
      'odd',
      { command: process.execPath, args: [fixture] },
      { onProgress: (e) => events.push(e) },
    );
    await server.close();
    expect(events[0]).toMatchObject({ phase: 'starting', timeoutMs: DEFAULT_CONNECT_TIMEOUT_MS });
  });

  it('a server that cannot start is an unreachable typed error', async () => {
    const error = await importMcpServer(
      'ghost',
      { command: process.execPath, args: [join(fixture, '../no-such-server.mjs')] },
      { connectTimeoutMs: 5000 },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpServerError);
    expect((error as McpServerError).failure).toBe('unreachable');
    expect((error as McpServerError).code).toBe('NETWORK');
  });
});

describe('aggregation: many servers served as one behind tool search', () => {
  it('imports the servers of a config (one failing) and serves them through search_apis and call_api', async () => {
    const imported = await importMcpServers({
      mcpServers: {
        a: spec,
        b: spec,
        broken: { command: process.execPath, args: ['-e', 'process.exit(1)'] },
      },
    });
    try {
      expect(imported.catalog.apps.map((a) => a.id)).toEqual(['a', 'b']);
      expect(imported.catalog.apis).toHaveLength(14);
      expect(imported.failures.map((f) => f.server)).toEqual(['broken']);
      const client = await connectInMemory({
        catalog: imported.catalog,
        apps: appRegistry(imported.handlers),
        mode: 'search',
        grant: new Set(['b']),
      });
      const found = await client.callTool({
        name: 'search_apis',
        arguments: { query: 'echo the text back', limit: 1 },
      });
      expect(found.structuredContent).toMatchObject({
        rows: [{ api: 'b.echo', app: 'b', transactional: false }],
      });
      const called = await client.callTool({
        name: 'call_api',
        arguments: { api: 'b.echo', arguments: { text: 'via b' } },
      });
      expect(called.content).toEqual([{ type: 'text', text: 'via b' }]);
      const refused = await client.callTool({
        name: 'call_api',
        arguments: { api: 'a.echo', arguments: { text: 'x' } },
      });
      expect(refused.content).toEqual([
        { type: 'text', text: 'PERMISSION_DENIED: app "a" is not granted to this run (granted: b)' },
      ]);
    } finally {
      await imported.close();
    }
  });
});
