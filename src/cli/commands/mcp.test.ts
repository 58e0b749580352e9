import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { countSideEffects } from '../../benchmarks/appbench/apps/sgd-apps.js';
import { openSgdDatabase } from '../../benchmarks/appbench/apps/sgd-database.js';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { loadCatalog } from '../../catalog/index.js';
import { fixtureDb, lotusLeaf, reservation } from '../../mcp/__fixtures__/fixtures.js';
import { buildRetriever, catalogCorpus } from '../../retrieval/index.js';
import { cliCommand, ROOT, runCli } from '../__fixtures__/run-cli.js';
import { writeTestEncoder } from '../__fixtures__/test-encoder.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const misbehaving = join(ROOT, 'src/mcp/__fixtures__/misbehaving-server.mjs');
const dir = mkdtempSync(join(tmpdir(), 'apiary-mcp-cli-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An SDK client talking to `apiary mcp serve …` over stdio. */
async function serveOverStdio(...args: string[]): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    ...cliCommand(['mcp', 'serve', ...args]),
    cwd: ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('apiary mcp serve over stdio', () => {
  it("serves GTA's executable tools: 14 tools, a Calculator call runs the real tool", async () => {
    const { client } = await serveOverStdio('--catalog', 'gta');
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toHaveLength(14);
      expect(tools).toContain('Calculator.Calculator');
      const r = await client.callTool({ name: 'Calculator.Calculator', arguments: { expression: '3.5*60' } });
      expect(r.isError).toBeFalsy();
      expect(r.content).toEqual([{ type: 'text', text: '210.0' }]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('--allow-dir grants a folder to GTA tools; files elsewhere are refused alike, existing or not', async () => {
    const granted = mkdtempSync(join(dir, 'granted-'));
    const { Jimp } = await import('jimp');
    writeFileSync(
      join(granted, 'a.png'),
      await new Jimp({ width: 8, height: 8, color: 0xffffffff }).getBuffer('image/png'),
    );
    writeFileSync(join(dir, 'secret.png'), '\x89PNG secret');
    const { client } = await serveOverStdio('--catalog', 'gta', '--allow-dir', granted);
    try {
      const draw = (image: string) =>
        client.callTool({ name: 'DrawBox.DrawBox', arguments: { image, bbox: '(1, 1, 4, 4)' } });
      const ok = await draw(join(granted, 'a.png'));
      expect(ok.isError).toBeFalsy();
      expect((ok.content as Array<{ type: string }>).map((b) => b.type)).toEqual(['image']);
      for (const image of [join(dir, 'secret.png'), join(dir, 'missing.png')])
        expect((await draw(image)).content).toEqual([
          {
            type: 'text',
            text: `PERMISSION_DENIED: DrawBox: image "${image}" is outside the folders this tool may read (grant more with --allow-dir)`,
          },
        ]);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('--allow-dir must be an existing folder, and only with --catalog gta', async () => {
    const missing = await runCli(['mcp', 'serve', '--catalog', 'gta', '--allow-dir', join(dir, 'nope')]);
    expect(missing.stderr).toBe(
      `error [USAGE] --allow-dir must be an existing folder (got "${join(dir, 'nope')}")\n`,
    );
    const appbench = await runCli(['mcp', 'serve', '--catalog', 'appbench', '--allow-dir', dir]);
    expect(appbench.stderr).toMatch(
      /^error \[USAGE\] --allow-dir grants folders to GTA's tools: use it with --catalog gta/,
    );
    const origin = await runCli(['mcp', 'serve', '--http', '0', '--allow-origin', 'evil']);
    expect(origin.stderr).toBe(
      'error [USAGE] --allow-origin must be an origin like https://app.example:8080 (got "evil")\n',
    );
  }, 60_000);

  it('serves the simulated AppBench apps: list, call, refuse a transactional call without elicitation', async () => {
    const dbFile = join(dir, 'sgd.sqlite');
    fixtureDb(dbFile).close();
    const { client, stderr } = await serveOverStdio('--catalog', 'appbench', '--db', dbFile);
    try {
      expect((await client.listTools()).tools).toHaveLength(33);
      const found = await client.callTool({
        name: 'Restaurants.findrestaurants',
        arguments: { category: 'Thai', location: 'Springfield', has_seating_outdoors: true },
      });
      expect(found.structuredContent).toEqual({ rows: [lotusLeaf] });
      const refused = await client.callTool({
        name: 'Restaurants.reserverestaurant',
        arguments: reservation,
      });
      expect(refused.isError).toBe(true);
      expect(stderr()).toMatch(
        /apiary MCP server: appbench \(33 APIs, tools mode, apps: SGD database \(.*\)\) on stdio/,
      );
    } finally {
      await client.close();
    }
    const { db } = openSgdDatabase(dbFile);
    expect(countSideEffects(db)).toBe(0);
    db.close();
  });

  it('search mode ranks search_apis with a dense encoder from --retriever-model, as the library does', async () => {
    const { file, model } = writeTestEncoder(dir);
    const query = 'reserve a table at an American restaurant';
    const catalog = loadCatalog('appbench');
    const dense = await buildRetriever('dense', catalogCorpus(catalog), { dense: () => ({ model }) });
    const expected = (await dense.search(query, 5)).map((h) => catalog.apis[h.doc]?.id);
    const dbFile = join(dir, 'sgd-dense.sqlite');
    fixtureDb(dbFile).close();
    const { client } = await serveOverStdio(
      '--catalog',
      'appbench',
      '--db',
      dbFile,
      '--mode',
      'search',
      '--retriever',
      'dense',
      '--retriever-model',
      file,
    );
    try {
      const found = await client.callTool({ name: 'search_apis', arguments: { query, limit: 5 } });
      expect(found.isError).toBeFalsy();
      const rows = (found.structuredContent as { rows: Array<{ api: string }> }).rows;
      expect(rows.map((r) => r.api)).toEqual(expected);
    } finally {
      await client.close();
    }
  });

  it('--servers aggregates imported servers behind tool search', async () => {
    const config = join(dir, 'servers.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { odd: { command: process.execPath, args: [misbehaving] } } }),
    );
    const { client, stderr } = await serveOverStdio('--servers', config);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_apis', 'call_api']);
      const called = await client.callTool({
        name: 'call_api',
        arguments: { api: 'odd.echo', arguments: { text: 'hi' } },
      });
      expect(called.content).toEqual([{ type: 'text', text: 'hi' }]);
      expect(stderr()).toMatch(/warning: tool left out: MCP server "odd": record bad_schema: field "target"/);
    } finally {
      await client.close();
    }
  });
});

describe('apiary catalog import mcp', () => {
  it('lists a stdio server tools as a catalog', async () => {
    const out = join(dir, 'odd.json');
    const { code, stdout, stderr } = await runCli([
      'catalog',
      'import',
      'mcp',
      '--name',
      'odd',
      '--out',
      out,
      '--',
      process.execPath,
      misbehaving,
    ]);
    expect(code).toBe(0);
    expect(stdout.split('\n').slice(0, 3)).toEqual([
      `odd: 7 tool(s) imported, 1 left out; catalog written to ${out}`,
      'odd.echo\tread-only\t1 params',
      'odd.write_note\ttransactional\t1 params',
    ]);
    expect(stderr).toMatch(
      /warning: tool left out: MCP server "odd": record bad_schema: field "target": "allOf" schemas are not supported/,
    );
    // The written file is a catalog in Apiary's format.
    const written = loadCatalog(out);
    expect([written.name, written.apps.length, written.apis.length]).toEqual(['mcp-odd', 1, 7]);
  });

  it('--connect-timeout-ms bounds the wait for a server that never answers', async () => {
    const { code, stderr } = await runCli([
      'catalog',
      'import',
      'mcp',
      '--name',
      'mute',
      '--connect-timeout-ms',
      '300',
      '--',
      process.execPath,
      '-e',
      'setInterval(() => {}, 1000)',
    ]);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(
      /MCP server "mute" \(.*\) could not be reached: MCP error -32001: Request timed out/,
    );
  });
});

describe('apiary run --servers', () => {
  it('runs a plan against an imported server, with approvals', async () => {
    const config = join(dir, 'run-servers.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { odd: { command: process.execPath, args: [misbehaving] } } }),
    );
    const plan = join(dir, 'plan.json');
    const literal = (value: string) => ({ kind: 'literal', value });
    writeFileSync(
      plan,
      JSON.stringify({
        steps: [
          { id: 's1', app: 'odd', api: 'echo', args: { text: literal('hello') }, outputs: [] },
          { id: 's2', app: 'odd', api: 'write_note', args: { note: literal('n') }, outputs: ['written'] },
        ],
      }),
    );
    const { code, stdout } = await runCli(['run', plan, '--servers', config, '--approve', 'auto', '--json']);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.status).toBe('succeeded');
    expect(out.outputs).toEqual({ s1: {}, s2: { written: 1 } });
  });
});
