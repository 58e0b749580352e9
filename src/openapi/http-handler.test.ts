import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Catalog, indexCatalog } from '../catalog/index.js';
import { appRegistry, autoApprove, type CallRequest, denyAll, dispatchCall } from '../exec/index.js';
import { openApiHandlers, openApiToCatalog, readOpenApiSpec } from './index.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** The pet store of petstore-3.0.yaml, in memory, recording every request it gets. */
function petStore(seen: Seen[], script: { failures: Array<{ status: number; retryAfter?: string }> }) {
  const pets = [{ id: '1', name: 'Rex', status: 'available' }];
  return (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const failure = script.failures.shift();
      if (failure) {
        res.writeHead(failure.status, failure.retryAfter ? { 'retry-after': failure.retryAfter } : {});
        return res.end('busy');
      }
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const url = new URL(req.url!, 'http://x');
      if (url.pathname.endsWith('/photo')) {
        res.writeHead(200, { 'content-type': 'image/png' });
        return res.end(PNG);
      }
      if (req.headers['x-api-key'] !== 'k-123' && !req.headers.authorization)
        return json(401, { error: 'no key' });
      if (req.method === 'GET' && url.pathname === '/v1/pets')
        return json(
          200,
          pets.filter((p) => !url.searchParams.get('status') || p.status === url.searchParams.get('status')),
        );
      if (req.method === 'POST' && url.pathname === '/v1/pets') {
        const pet = JSON.parse(body);
        if (typeof pet.name !== 'string') return json(422, { error: 'name is required' });
        return json(201, { id: '2', ...pet });
      }
      const one = /^\/v1\/pets\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && one) {
        const pet = pets.find((p) => p.id === decodeURIComponent(one[1]!));
        return pet ? json(200, pet) : json(404, { error: `no pet ${decodeURIComponent(one[1]!)}` });
      }
      json(404, { error: 'no route' });
    });
  };
}

describe('openApiHandlers: an imported spec executed against a local server', () => {
  const seen: Seen[] = [];
  const script = { failures: [] as Array<{ status: number; retryAfter?: string }> };
  let server: Server;
  let catalog: Catalog;
  let base: string;
  const env = { PET_STORE_APIKEY: 'k-123', PET_STORE_BEARERAUTH: 'b-456789' };

  beforeAll(async () => {
    server = createServer(petStore(seen, script));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const spec = await readOpenApiSpec(
      join(import.meta.dirname, '..', 'catalog', '__fixtures__', 'openapi', 'petstore-3.0.yaml'),
    );
    catalog = openApiToCatalog(spec, { baseUrl: base }).catalog;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    seen.length = 0;
    script.failures = [];
  });

  const call = (
    api: string,
    args: Record<string, unknown>,
    opts: Parameters<typeof openApiHandlers>[1] = {},
    approve = autoApprove,
  ) => {
    const { handlers, close } = openApiHandlers(catalog, { env, retryDelayMs: 1, ...opts });
    const request: CallRequest = { app: 'pet-store', api, args };
    return dispatchCall(request, {
      catalog: indexCatalog(catalog),
      apps: appRegistry(handlers),
      approve,
    }).finally(() => opts.media === undefined && close());
  };

  it('GET with query parameters and the API key header: rows', async () => {
    const out = await call('listPets', { status: 'available', limit: 5 });
    expect(out).toMatchObject({ ok: true, transactional: false });
    expect(out.ok && out.content).toEqual([
      { type: 'rows', rows: [{ id: '1', name: 'Rex', status: 'available' }] },
    ]);
    expect(seen.map((s) => [s.method, s.url, s.headers['x-api-key']])).toEqual([
      ['GET', '/v1/pets?status=available&limit=5', 'k-123'],
    ]);
  });

  it('path parameters are encoded; a 404 is the server message', async () => {
    const out = await call('get_pets_petId', { petId: 'a/b c' });
    expect(seen[0]!.url).toBe('/v1/pets/a%2Fb%20c');
    expect(out).toMatchObject({
      ok: false,
      error: {
        code: 'TOOL_FAILED',
        appCode: 'NOT_FOUND',
        message: 'GET /pets/{petId} (pet-store.get_pets_petId): HTTP 404 Not Found: {"error":"no pet a/b c"}',
      },
    });
  });

  it('POST needs approval; approved, the $ref body and the header are sent', async () => {
    const denied = await call('addPet', { name: 'Tom' }, {}, denyAll);
    expect(denied).toMatchObject({ ok: false, transactional: true, error: { code: 'APPROVAL_DENIED' } });
    expect(seen).toEqual([]);
    const out = await call('addPet', { name: 'Tom', status: 'pending', 'X-Request-Id': 'r1' });
    expect(out.ok && out.content).toEqual([
      { type: 'json', value: { id: '2', name: 'Tom', status: 'pending' } },
    ]);
    expect(
      seen.map((s) => [s.method, s.url, s.headers['content-type'], s.headers['x-request-id'], s.body]),
    ).toEqual([['POST', '/v1/pets', 'application/json', 'r1', '{"name":"Tom","status":"pending"}']]);
  });

  it('bearer auth from its variable; a missing variable names the variable to set', async () => {
    await call('deletePet', { petId: '1' });
    expect(seen[0]!.headers.authorization).toBe('Bearer b-456789');
    const out = await call('listPets', {}, { env: {} });
    expect(out).toMatchObject({
      ok: false,
      error: {
        code: 'TOOL_FAILED',
        appCode: 'USAGE',
        message: 'pet-store.listPets needs credentials: set PET_STORE_APIKEY',
      },
    });
    expect(seen).toHaveLength(1);
  });

  it('an image response is an image part (a file deleted by close)', async () => {
    const { handlers, close } = openApiHandlers(catalog, { env });
    const out = await dispatchCall(
      { app: 'pet-store', api: 'getPetPhoto', args: { petId: '1' } },
      { catalog: indexCatalog(catalog), apps: appRegistry(handlers) },
    );
    const part = out.ok ? out.content[0] : undefined;
    expect(part).toMatchObject({ type: 'image', mediaType: 'image/png' });
    const path = (part as { path: string }).path;
    expect(readFileSync(path)).toEqual(PNG);
    close();
    expect(existsSync(path)).toBe(false);
    expect(seen[0]!.headers['x-api-key']).toBeUndefined(); // `security: []` on the operation
  });

  it('retries 429 and 503 on a GET honouring Retry-After, then succeeds', async () => {
    script.failures = [{ status: 429, retryAfter: '0' }, { status: 503 }];
    const out = await call('listPets', {});
    expect(out.ok).toBe(true);
    expect(seen).toHaveLength(3);
  });

  it('a POST is retried on 429 but not on 503; retries are bounded; a long Retry-After is not waited for', async () => {
    script.failures = [{ status: 503 }];
    const post = await call('addPet', { name: 'Tom' });
    expect(post).toMatchObject({
      ok: false,
      error: { message: 'POST /pets (pet-store.addPet): HTTP 503 Service Unavailable: busy' },
    });
    expect(seen).toHaveLength(1);
    seen.length = 0;
    script.failures = [{ status: 429 }, { status: 429 }, { status: 429 }, { status: 429 }];
    const bounded = await call('listPets', {}, { maxRetries: 2 });
    expect(bounded).toMatchObject({
      ok: false,
      error: { message: 'GET /pets (pet-store.listPets): HTTP 429 Too Many Requests: busy' },
    });
    expect(seen).toHaveLength(3);
    seen.length = 0;
    script.failures = [{ status: 429, retryAfter: '120' }];
    const long = await call('listPets', {}, { maxRetryDelayMs: 1000 });
    expect(long).toMatchObject({
      ok: false,
      error: {
        message:
          'GET /pets (pet-store.listPets): HTTP 429 Too Many Requests: busy (Retry-After 120 s is over the 1000 ms limit)',
      },
    });
    expect(seen).toHaveLength(1);
  });

  it('a 422 is INPUT_INVALID (repairable); a server that does not answer times out', async () => {
    const out = await call(
      'addPet',
      { name: 'Tom' },
      { fetch: async () => new Response('{"error":"name taken"}', { status: 422 }) },
    );
    expect(out).toMatchObject({
      ok: false,
      error: {
        code: 'INPUT_INVALID',
        message: 'POST /pets (pet-store.addPet): HTTP 422: {"error":"name taken"}',
      },
    });
    const mute = await call(
      'listPets',
      {},
      {
        timeoutMs: 20,
        maxRetries: 0,
        fetch: (_u, init) =>
          new Promise((_, reject) =>
            init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)),
          ),
      },
    );
    expect(mute).toMatchObject({
      ok: false,
      error: { code: 'TOOL_FAILED', message: 'GET /pets (pet-store.listPets): no answer within 20 ms' },
    });
  });
});
