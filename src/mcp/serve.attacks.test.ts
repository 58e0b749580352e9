// Attacks on `apiary mcp serve` by its own clients (issue 24, rows 14-16): reading host files
// through a tool's file argument, probing which files exist, piling up sessions, a foreign web
// page driving the server (DNS rebinding), and one client's slow call stalling another client.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Jimp } from 'jimp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { disposeTools, gtaToolHandlers, gtaTools } from '../benchmarks/gta/tools/registry.js';
import { loadCatalog } from '../catalog/index.js';
import { appRegistry } from '../exec/index.js';
import { toyApps, toyCatalog } from './__fixtures__/fixtures.js';
import { type McpHttpServer, startMcpHttpServer } from './http.js';
import { mcpServerFactory } from './serve.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const gta = loadCatalog('gta', { dataDir: join(import.meta.dirname, '../../data') });
const root = realpathSync(mkdtempSync(join(tmpdir(), 'apiary-mcp-attacks-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function connect(url: string, headers?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'attacker', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : {}),
  );
  return client;
}

const text = (r: unknown) =>
  (r as CallToolResult).content.map((b) => (b.type === 'text' ? b.text : `<${b.type}>`)).join('\n');

describe('file arguments of served tools stay inside the granted folders (row 14)', () => {
  const allowed = join(root, 'allowed');
  const output = join(root, 'output');
  const secret = join(root, 'private');
  const screenshot = join(secret, 'screenshot.png');
  let http: McpHttpServer;
  let client: Client;
  const tools = gtaTools({}, ['DrawBox', 'AddText']);

  beforeAll(async () => {
    for (const dir of [allowed, output, secret]) mkdirSync(dir, { recursive: true });
    const png = await new Jimp({ width: 16, height: 12, color: 0x3366ccff }).getBuffer('image/png');
    writeFileSync(screenshot, png);
    writeFileSync(join(allowed, 'photo.png'), png);
    symlinkSync(screenshot, join(allowed, 'innocent.png'));
    symlinkSync(secret, join(allowed, 'pictures'));
    const handlers = gtaToolHandlers(tools, { outputDir: output, readable: [allowed] });
    http = await startMcpHttpServer({
      createServer: mcpServerFactory({ catalog: gta, apps: appRegistry(handlers) }),
      port: 0,
    });
    client = await connect(http.url);
  });
  afterAll(async () => {
    await client.close();
    await http.close();
    await disposeTools(tools);
  });

  const drawBox = (image: string) =>
    client.callTool({ name: 'DrawBox.DrawBox', arguments: { image, bbox: '(1, 1, 8, 8)' } });
  const refusal = (tool: string, path: string) =>
    `PERMISSION_DENIED: ${tool}: image "${path}" is outside the folders this tool may read (grant more with --allow-dir)`;

  it('draws on a granted image, and on an image an earlier call drew (the output folder)', async () => {
    const first = (await drawBox(join(allowed, 'photo.png'))) as CallToolResult;
    expect(first.isError).toBeUndefined();
    expect(first.content.map((b) => b.type)).toEqual(['image']);
    const drawn = (await client.callTool({
      name: 'DrawBox.DrawBox',
      arguments: { image: join(allowed, 'photo.png'), bbox: '(2, 2, 9, 9)' },
    })) as CallToolResult;
    expect(drawn.isError).toBeUndefined();
    const again = await readdirPng(output);
    expect(again.length).toBe(2);
    const onDrawn = (await drawBox(join(output, again[0]!))) as CallToolResult;
    expect(onDrawn.isError).toBeUndefined();
  });

  it('refuses a host file with the same sentence whether it exists or not: no bytes, no oracle', async () => {
    const existing = (await drawBox(screenshot)) as CallToolResult;
    const missing = (await drawBox(join(secret, 'no-such.png'))) as CallToolResult;
    for (const [result, path] of [
      [existing, screenshot],
      [missing, join(secret, 'no-such.png')],
    ] as const) {
      expect(result.isError).toBe(true);
      expect(result.content).toEqual([{ type: 'text', text: refusal('DrawBox', path) }]);
    }
    // The two answers differ only in the path the client sent.
    expect(text(existing).replace(screenshot, 'P')).toBe(
      text(missing).replace(join(secret, 'no-such.png'), 'P'),
    );
    for (const path of ['/etc/passwd', '/root/private/screenshot.png', secret]) {
      const result = (await drawBox(path)) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: refusal('DrawBox', path) }]);
    }
  });

  it('refuses escapes through symlinks and ".." inside a granted folder', async () => {
    for (const path of [
      join(allowed, 'innocent.png'),
      join(allowed, 'pictures', 'screenshot.png'),
      join(allowed, 'pictures', 'no-such.png'),
      join(allowed, '..', 'private', 'screenshot.png'),
    ]) {
      const result = (await drawBox(path)) as CallToolResult;
      expect(result.content, path).toEqual([{ type: 'text', text: refusal('DrawBox', path) }]);
    }
    const addText = (await client.callTool({
      name: 'AddText.AddText',
      arguments: { image: join(allowed, 'innocent.png'), text: 'x', position: 'mm' },
    })) as CallToolResult;
    expect(text(addText)).toBe(refusal('AddText', join(allowed, 'innocent.png')));
  });

  it('a missing file inside a granted folder is "not found", as before', async () => {
    const result = (await drawBox(join(allowed, 'no-such.png'))) as CallToolResult;
    expect(text(result)).toBe(`TOOL_FAILED: DrawBox: image file not found: ${join(allowed, 'no-such.png')}`);
  });
});

/** The PNG files in a folder, by name. */
async function readdirPng(dir: string): Promise<string[]> {
  const { readdirSync } = await import('node:fs');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.png'))
    .sort();
}

/** A raw `initialize` POST; resolves to the status and the session id given. */
async function initialize(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'flood', version: '1' },
      },
    }),
  });
  const body = await response.text();
  return { status: response.status, session: response.headers.get('mcp-session-id'), body };
}

describe('sessions are capped and expire (row 16)', () => {
  let http: McpHttpServer | undefined;
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });
  const factory = () => mcpServerFactory({ catalog: toyCatalog, apps: appRegistry(toyApps().handlers) });

  it('an initialize beyond the limit gets 503 and opens nothing; the open sessions keep working', async () => {
    http = await startMcpHttpServer({ createServer: factory(), port: 0, maxSessions: 5 });
    const answers = await Promise.all(Array.from({ length: 40 }, () => initialize(http!.url)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 503);
    expect(refused).toHaveLength(35);
    expect(JSON.parse(refused[0]!.body).error.message).toBe(
      'too many sessions: 5 are open (the limit); end one (DELETE) or retry after idle ones close (600 s without a request)',
    );
    expect(http.sessions()).toBe(5);
    const [kept] = answers.filter((a) => a.status === 200);
    const list = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': kept!.session!,
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('Slow.wait');
  });

  it('the default limit holds 3,000 initialize requests to 100 sessions', async () => {
    http = await startMcpHttpServer({ createServer: factory(), port: 0 });
    let opened = 0;
    for (let batch = 0; batch < 30; batch++) {
      const answers = await Promise.all(Array.from({ length: 100 }, () => initialize(http!.url)));
      opened += answers.filter((a) => a.status === 200).length;
    }
    expect(opened).toBe(100);
    expect(http.sessions()).toBe(100);
  }, 60_000);

  it('an idle session is closed and freed; its id is then unknown (404) and a new one can open', async () => {
    http = await startMcpHttpServer({ createServer: factory(), port: 0, maxSessions: 2, sessionIdleMs: 150 });
    const first = await initialize(http.url);
    await initialize(http.url);
    expect(http.sessions()).toBe(2);
    expect((await initialize(http.url)).status).toBe(503);
    await new Promise((r) => setTimeout(r, 400));
    expect(http.sessions()).toBe(0);
    const stale = await fetch(http.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': first.session!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
    expect((await initialize(http.url)).status).toBe(200);
  });

  it('an idle client holding its GET stream open is still closed; its next request is refused', async () => {
    http = await startMcpHttpServer({ createServer: factory(), port: 0, sessionIdleMs: 150 });
    const client = await connect(http.url);
    try {
      expect(http.sessions()).toBe(1);
      await new Promise((r) => setTimeout(r, 450));
      expect(http.sessions()).toBe(0);
      await expect(client.listTools()).rejects.toThrow(/unknown session/);
    } finally {
      await client.close().catch(() => {});
    }
  });

  it('a session whose call is still running is not idle', async () => {
    http = await startMcpHttpServer({ createServer: factory(), port: 0, sessionIdleMs: 100 });
    const client = await connect(http.url);
    try {
      const result = await client.callTool({ name: 'Slow.wait', arguments: { ms: 500 } });
      expect(result.isError).toBeUndefined();
      expect(http.sessions()).toBe(1);
    } finally {
      await client.close().catch(() => {});
    }
  });
});

describe('Origin is validated (DNS rebinding, Streamable HTTP)', () => {
  let http: McpHttpServer;
  beforeAll(async () => {
    http = await startMcpHttpServer({
      createServer: mcpServerFactory({ catalog: toyCatalog, apps: appRegistry(toyApps().handlers) }),
      port: 0,
      allowedOrigins: ['https://tools.example:8443'],
    });
  });
  afterAll(() => http.close());

  it('a foreign web page gets 403 and opens no session', async () => {
    for (const origin of [
      'http://evil.example',
      'null',
      'http://localhost.evil.example',
      'https://tools.example',
    ]) {
      const answer = await initialize(http.url, { origin });
      expect(answer.status, origin).toBe(403);
      expect(JSON.parse(answer.body).error.message).toBe(`origin "${origin}" is not allowed`);
    }
    expect(http.sessions()).toBe(0);
  });

  it('loopback pages, the granted origin and clients without Origin are served', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { origin: 'http://localhost:5173' },
      { origin: 'http://127.0.0.1' },
      { origin: 'https://[::1]:3000' },
      { origin: 'https://tools.example:8443' },
    ])
      expect((await initialize(http.url, headers)).status, JSON.stringify(headers)).toBe(200);
  });
});

describe("one client's slow call does not stall another client (row 15)", () => {
  it('tools/list of a second session answers within 1 s while the first waits on a 3 s call', async () => {
    const { handlers, state } = toyApps();
    const http = await startMcpHttpServer({
      createServer: mcpServerFactory({ catalog: toyCatalog, apps: appRegistry(handlers) }),
      port: 0,
    });
    const [a, b] = [await connect(http.url), await connect(http.url)];
    try {
      const slow = a.callTool({ name: 'Slow.wait', arguments: { ms: 3000 } });
      await new Promise((r) => setTimeout(r, 50));
      const t0 = performance.now();
      const { tools } = await b.listTools();
      expect(performance.now() - t0).toBeLessThan(1000);
      expect(tools.map((t) => t.name)).toEqual(['Slow.wait', 'Draw.picture']);
      // the same client may also go on with other requests while its call runs
      const t1 = performance.now();
      await a.callTool({ name: 'Slow.wait', arguments: { ms: 10 } });
      expect(performance.now() - t1).toBeLessThan(1000);
      expect(state.endings).toEqual(['done']);
      await slow;
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
      await http.close();
    }
  });
});

describe("one client's runaway Calculator does not stall another client (row 15, CPU-bound)", () => {
  it('a second session is answered within 1 s while 120 big gcds run; the runaway ends at the 2 s call limit', async () => {
    const tools = gtaTools({}, ['Calculator']);
    const handlers = gtaToolHandlers(tools, { outputDir: join(root, 'calc-out'), readable: [] });
    const http = await startMcpHttpServer({
      createServer: mcpServerFactory({ catalog: gta, apps: appRegistry(handlers), timeoutMs: 2_000 }),
      port: 0,
    });
    const [a, b] = [await connect(http.url), await connect(http.url)];
    try {
      // Warm the tool thread, so the runaway call below is CPU work, not a thread start.
      expect(
        text(await a.callTool({ name: 'Calculator.Calculator', arguments: { expression: '6*7' } })),
      ).toBe('42');
      const t0 = performance.now();
      const runaway = a.callTool({
        name: 'Calculator.Calculator',
        // 120 gcds of 10,000-digit numbers: each within the size caps, together ~10 s of CPU.
        arguments: { expression: `${'gcd(2**33000-1, 3**20000-1)+'.repeat(120)}0` },
      });
      await new Promise((r) => setTimeout(r, 100));
      const t1 = performance.now();
      await b.listTools();
      expect(performance.now() - t1).toBeLessThan(1000);
      const answer = text(await runaway);
      expect(answer).toBe('TIMEOUT: no answer within 2000 ms');
      expect(performance.now() - t0).toBeLessThan(5_000);
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
      await http.close();
      await disposeTools(tools);
    }
  });
});
