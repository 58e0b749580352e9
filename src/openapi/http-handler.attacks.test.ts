import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Catalog, indexCatalog } from '../catalog/index.js';
import { appRegistry, autoApprove, dispatchCall } from '../exec/index.js';
import { MAX_RESPONSE_BYTES } from './http-handler.js';
import { openApiHandlers, openApiToCatalog, readOpenApiSpec } from './index.js';

/* A hostile or broken HTTP server behind an imported catalog: its answers are bounded and refused with a code. */
describe('openApiHandlers against a hostile server', () => {
  let answer: (res: import('node:http').ServerResponse) => void = () => {};
  let server: Server;
  let catalog: Catalog;

  beforeAll(async () => {
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const spec = await readOpenApiSpec(
      join(import.meta.dirname, '..', 'catalog', '__fixtures__', 'openapi', 'petstore-3.0.yaml'),
    );
    catalog = openApiToCatalog(spec, { baseUrl: base }).catalog;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const listPets = async () => {
    const http = openApiHandlers(catalog, { env: { PET_STORE_APIKEY: 'k' }, maxRetries: 0 });
    try {
      const api = catalog.apis.find((a) => a.name === 'listPets')!;
      return await dispatchCall(
        { app: api.app, api: api.name, args: { status: 'sold' } },
        { catalog: indexCatalog(catalog), apps: appRegistry(http.handlers), approve: autoApprove },
      );
    } finally {
      await http.close();
    }
  };

  it('a body over 16 MiB is refused without reading it all (TOOL_FAILED)', async () => {
    let sent = 0;
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1024 * 1024, 97);
      const more = () => {
        // 64 MiB on offer: the reader must stop at its limit
        while (sent < 64 && res.write(chunk)) sent++;
        if (sent < 64) res.once('drain', more);
        else res.end();
      };
      res.on('error', () => {});
      more();
    };
    const outcome = await listPets();
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'TOOL_FAILED',
        message: expect.stringContaining(`the response is over ${MAX_RESPONSE_BYTES} bytes`),
      },
    });
    expect(sent).toBeLessThan(64);
  });

  it('JSON nested 300,000 deep is refused (TOOL_FAILED), not parsed into the run', async () => {
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${'['.repeat(300_000)}${']'.repeat(300_000)}`);
    };
    const outcome = await listPets();
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'TOOL_FAILED', message: expect.stringContaining('JSON nested deeper than 1000 levels') },
    });
  });
});
