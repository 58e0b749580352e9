// Importing real-world tool shapes from an SDK server in process: unions (server-sequential-thinking's
// `["boolean", "string"]`), bounds, arguments checked before the call, media results, annotations
// and per-server approval policies, the connect time limit from servers.json.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { indexCatalog } from '../catalog/index.js';
import { appRegistry, type CallOutcome, dispatchCall } from '../exec/index.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './connection.js';
import { type ImportedMcpServer, importMcpServer } from './import.js';
import { type McpServerSpec, readMcpServersConfig } from './servers-config.js';

const PNG = Buffer.from('PNGDATA').toString('base64');
const WAV = Buffer.from('RIFFWAVE').toString('base64');
const PDF = Buffer.from('%PDF-1.4').toString('base64');

const tools: Tool[] = [
  {
    name: 'sequentialthinking',
    description: 'A step of thinking',
    inputSchema: {
      type: 'object',
      properties: {
        thought: { type: 'string', minLength: 1 },
        thoughtNumber: { type: 'integer', minimum: 1 },
        isRevision: { type: ['boolean', 'string'] },
      },
      required: ['thought', 'thoughtNumber'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'lookup',
    description: 'Look a record up',
    inputSchema: {
      type: 'object',
      properties: {
        key: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      },
      required: ['key'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'append',
    description: 'Append a line',
    inputSchema: { type: 'object', properties: { line: { type: 'string' } } },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
  { name: 'wipe', description: 'Delete everything', inputSchema: { type: 'object' } },
  {
    name: 'snapshot',
    description: 'Media of every kind',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
  },
];

/** An SDK server that counts the calls it receives. */
function sdkServer(calls: string[]): Server {
  const server = new Server({ name: 'shapes', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    calls.push(request.params.name);
    if (request.params.name === 'snapshot')
      return {
        content: [
          { type: 'text', text: 'a snapshot' },
          { type: 'image', data: PNG, mimeType: 'image/png' },
          { type: 'audio', data: WAV, mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'mem://report.pdf', mimeType: 'application/pdf', blob: PDF } },
          { type: 'resource', resource: { uri: 'mem://note.txt', text: 'a note' } },
        ],
      };
    return { content: [{ type: 'text', text: JSON.stringify(request.params.arguments) }] };
  });
  return server;
}

const spec: McpServerSpec = { command: 'unused-in-memory', args: [] };

async function importShapes(
  calls: string[],
  extra: Partial<McpServerSpec> = {},
  outputDir?: string,
): Promise<ImportedMcpServer> {
  return importMcpServer('shapes', { ...spec, ...extra } as McpServerSpec, {
    ...(outputDir ? { outputDir } : {}),
    transport: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      void sdkServer(calls).connect(server);
      return client;
    },
  });
}

const call = (server: ImportedMcpServer, api: string, args: Record<string, unknown>) =>
  dispatchCall(
    { app: 'shapes', api, args },
    {
      catalog: indexCatalog({ name: 't', apps: [server.app], apis: server.apis }),
      apps: appRegistry([server.handler]),
    },
  );

const errorOf = (o: CallOutcome) => (o.ok ? undefined : o.error);

describe('importing real-world tool shapes (SDK server in memory)', () => {
  let imported: ImportedMcpServer | undefined;
  afterEach(async () => {
    await imported?.close();
    imported = undefined;
  });

  it("imports server-sequential-thinking's union-typed parameter with its bounds", async () => {
    imported = await importShapes([]);
    expect(imported.problems).toEqual([]);
    expect(imported.apis.map((a) => a.name)).toEqual([
      'sequentialthinking',
      'lookup',
      'append',
      'wipe',
      'snapshot',
    ]);
    expect(imported.apis[0]!.parameters).toEqual([
      {
        name: 'thought',
        type: { kind: 'primitive', name: 'string', constraints: { minLength: 1 } },
        required: true,
      },
      {
        name: 'thoughtNumber',
        type: { kind: 'primitive', name: 'integer', constraints: { minimum: 1 } },
        required: true,
      },
      {
        name: 'isRevision',
        type: {
          kind: 'union',
          types: [
            { kind: 'primitive', name: 'boolean' },
            { kind: 'primitive', name: 'string' },
          ],
        },
        required: false,
      },
    ]);
  });

  it('refuses arguments outside the schema before the call (INPUT_INVALID); the server sees only valid calls', async () => {
    const calls: string[] = [];
    imported = await importShapes(calls);
    const low = await call(imported, 'sequentialthinking', { thought: 'x', thoughtNumber: 0 });
    expect(errorOf(low)).toMatchObject({
      code: 'INPUT_INVALID',
      message:
        'invalid arguments for shapes.sequentialthinking: thoughtNumber: value 0 is not integer (minimum 1)',
    });
    const nested = await call(imported, 'lookup', { key: { name: 'no id' } });
    expect(errorOf(nested)).toEqual({
      code: 'INPUT_INVALID',
      appCode: 'INPUT_INVALID',
      message: `invalid arguments for shapes.lookup (its input schema): "key" must have required property 'id'`,
    });
    expect(calls).toEqual([]);
    for (const isRevision of [true, 'yes']) {
      const ok = await call(imported, 'sequentialthinking', { thought: 'x', thoughtNumber: 2, isRevision });
      expect(ok.ok && ok.content).toEqual([
        { type: 'text', text: JSON.stringify({ thought: 'x', thoughtNumber: 2, isRevision }) },
      ]);
    }
    expect(calls).toEqual(['sequentialthinking', 'sequentialthinking']);
  });

  it('passes images, audio and resources on as content parts, never base64 text; close deletes the files', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'apiary-media-test-'));
    imported = await importShapes([], {}, parent);
    const outcome = await call(imported, 'snapshot', {});
    expect(outcome.ok).toBe(true);
    const parts = outcome.ok ? outcome.content : [];
    expect(parts.map((p) => `${p.type}${'mediaType' in p ? ` ${p.mediaType}` : ''}`)).toEqual([
      'text',
      'image image/png',
      'file audio/wav',
      'file application/pdf',
      'text',
    ]);
    expect(parts[4]).toEqual({ type: 'text', text: 'a note' });
    const paths = parts.flatMap((p) => ('path' in p ? [p.path] : []));
    expect(paths.map((p) => readFileSync(p, 'utf8'))).toEqual(['PNGDATA', 'RIFFWAVE', '%PDF-1.4']);
    expect(JSON.stringify(parts)).not.toContain(PNG);
    await imported.close();
    imported = undefined;
    expect(paths.filter((p) => existsSync(p))).toEqual([]);
  });

  it('approvals follow the annotations under the per-server policy', async () => {
    const transactional = async (autoApprove?: string) => {
      const server = await importShapes([], autoApprove ? ({ autoApprove } as Partial<McpServerSpec>) : {});
      await server.close();
      return server.apis.filter((a) => a.transactional).map((a) => a.name);
    };
    expect(await transactional()).toEqual(['append', 'wipe']);
    expect(await transactional('read-only')).toEqual(['append', 'wipe']);
    expect(await transactional('non-destructive')).toEqual(['wipe']);
    expect(await transactional('all')).toEqual([]);
    expect(await transactional('none')).toEqual([
      'sequentialthinking',
      'lookup',
      'append',
      'wipe',
      'snapshot',
    ]);
  });

  it('a non-destructive tool runs without asking under "non-destructive"; a destructive one still asks', async () => {
    const calls: string[] = [];
    imported = await importShapes(calls, { autoApprove: 'non-destructive' } as Partial<McpServerSpec>);
    expect((await call(imported, 'append', { line: 'x' })).ok).toBe(true);
    expect(errorOf(await call(imported, 'wipe', {}))?.code).toBe('APPROVAL_DENIED');
    expect(calls).toEqual(['append']);
  });
});

describe('the connect time limit', () => {
  it('defaults to 60 s (a cold npx -y) and is read from servers.json per server', async () => {
    expect(DEFAULT_CONNECT_TIMEOUT_MS).toBe(60_000);
    const dir = mkdtempSync(join(tmpdir(), 'apiary-servers-'));
    const file = join(dir, 'servers.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          mute: {
            command: process.execPath,
            args: ['-e', 'setInterval(() => {}, 1000)'],
            connectTimeoutMs: 300,
            autoApprove: 'none',
          },
        },
      }),
    );
    const config = readMcpServersConfig(file);
    expect(config.mcpServers.mute).toMatchObject({ connectTimeoutMs: 300, autoApprove: 'none' });
    const t0 = Date.now();
    const error = await importMcpServer('mute', config.mcpServers.mute!).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/could not be reached: MCP error -32001: Request timed out/);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('refuses a servers.json policy it does not know, naming the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-servers-'));
    const file = join(dir, 'servers.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: 'x', autoApprove: 'sometimes' } } }));
    expect(() => readMcpServersConfig(file)).toThrow(
      `${file}: field "mcpServers.a.autoApprove": Invalid option: expected one of "none"|"read-only"|"non-destructive"|"all"`,
    );
  });
});
