import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ScriptedReply, startScriptedOpenAiServer } from '../../test/index.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';
import { executableCatalog } from './mcp.js';

const apiary = (...args: string[]) => runCliInProcess(args);
const fixture = (name: string): string =>
  join(import.meta.dirname, '..', '..', 'catalog', '__fixtures__', 'openapi', name);
const dir = mkdtempSync(join(tmpdir(), 'apiary-openapi-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Issue 26 item 1: `apiary catalog import openapi SPEC`.
describe('apiary catalog import openapi', () => {
  it('writes a catalog file that --catalog then loads', async () => {
    const out = join(dir, 'petstore.json');
    const r = await apiary('catalog', 'import', 'openapi', fixture('petstore-3.0.yaml'), '--out', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `pet-store: 5 operation(s) imported, 0 left out; base URL https://eu.pets.example.com/v1; catalog written to ${out}`,
        'pet-store.listPets\tGET /pets\tread-only\t2 params',
        'pet-store.addPet\tPOST /pets\ttransactional\t4 params',
        'pet-store.get_pets_petId\tGET /pets/{petId}\tread-only\t1 params',
        'pet-store.deletePet\tDELETE /pets/{petId}\ttransactional\t1 params',
        'pet-store.getPetPhoto\tGET /pets/{petId}/photo\tread-only\t1 params',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(readFileSync(out, 'utf8')).apis).toHaveLength(5);
    const shown = await apiary('catalog', 'list', '--catalog', out);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n').slice(0, 3)).toEqual([
      'openapi-pet-store: 1 apps, 5 APIs',
      'pet-store\tlistPets\t2 params',
      'pet-store\taddPet\t(transactional)\t4 params',
    ]);
  });

  it('--name and --base-url override the app id and the server', async () => {
    const r = await apiary(
      'catalog',
      'import',
      'openapi',
      fixture('weather-swagger-2.0.yaml'),
      '--name',
      'wx',
      '--base-url',
      'http://127.0.0.1:9/v2',
      '--json',
    );
    expect(r.code).toBe(0);
    const catalog = JSON.parse(r.stdout);
    expect(catalog.apps[0].id).toBe('wx');
    expect(catalog.apps[0].http.baseUrl).toBe('http://127.0.0.1:9/v2');
    expect(catalog.apis.map((a: { id: string }) => a.id)).toEqual(['wx.getForecast', 'wx.createAlert']);
  });

  it('a file that is not OpenAPI is INPUT_INVALID naming the file and the pointer', async () => {
    const bad = join(dir, 'not-openapi.yaml');
    writeFileSync(bad, 'asyncapi: 2.6.0\nchannels: {}\n');
    const r = await apiary('catalog', 'import', 'openapi', bad);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toBe(
      `error [INPUT_INVALID] ${bad}: field "/openapi": not an OpenAPI spec: it has neither "openapi" (3.x) nor "swagger" ("2.0")\n`,
    );
  });

  it('run executes a plan on the imported catalog over HTTP (key from its variable, POST approved)', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} key=${req.headers['x-api-key']} ${body}`);
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            req.method === 'POST' ? { id: '7', ...JSON.parse(body) } : [{ id: '1', name: 'Rex' }],
          ),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const out = join(dir, 'shop.json');
    const plan = join(dir, 'shop.plan.txt');
    writeFileSync(plan, "shop: [name = listPets(#status='available')]\nshop: [id = addPet(#name=name)]\n");
    process.env.SHOP_APIKEY = 'key-from-env';
    try {
      const imported = await apiary(
        'catalog',
        'import',
        'openapi',
        fixture('petstore-3.0.yaml'),
        '--name',
        'shop',
        '--base-url',
        `http://127.0.0.1:${port}/v1`,
        '--out',
        out,
      );
      expect(imported.code).toBe(0);
      const r = await apiary('run', plan, '--catalog', out, '--approve', 'auto', '--json');
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).status).toBe('succeeded');
      expect(seen).toEqual([
        'GET /v1/pets?status=available key=key-from-env ',
        'POST /v1/pets key=key-from-env {"name":"Rex"}',
      ]);
    } finally {
      delete process.env.SHOP_APIKEY;
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('ask runs the tool loop on the imported catalog over HTTP', async () => {
    const seen: string[] = [];
    const api = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} key=${req.headers['x-api-key']}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify([{ id: '1', name: 'Rex', status: 'sold' }]));
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    let turn = 0;
    const model = await startScriptedOpenAiServer({
      respond: (): ScriptedReply =>
        turn++ === 0
          ? { toolCalls: [{ id: 'c1', name: 'shop_listPets', arguments: { status: 'sold' } }] }
          : 'Rex was sold.',
    });
    const out = join(dir, 'ask-shop.json');
    process.env.SHOP_APIKEY = 'key-from-env';
    try {
      const port = (api.address() as AddressInfo).port;
      const base = `http://127.0.0.1:${port}/v1`;
      await apiary(
        'catalog',
        'import',
        'openapi',
        fixture('petstore-3.0.yaml'),
        '--name',
        'shop',
        '--base-url',
        base,
        '--out',
        out,
      );
      const r = await apiary(
        'ask',
        'Which pets were sold?',
        '--catalog',
        out,
        '--base-url',
        model.url,
        '--model',
        'm',
        '--no-retriever-index',
        '--json',
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const result = JSON.parse(r.stdout);
      expect(result.answer).toBe('Rex was sold.');
      expect(result.calls.map((c: { api: string; ok: boolean }) => [c.api, c.ok])).toEqual([
        ['listPets', true],
      ]);
      expect(seen).toEqual(['GET /v1/pets?status=sold key=key-from-env']);
    } finally {
      delete process.env.SHOP_APIKEY;
      await model.close();
      await new Promise<void>((r) => api.close(() => r()));
    }
  });

  it('reads a spec from an http URL (through the download helper)', async () => {
    const yaml = readFileSync(fixture('weather-swagger-2.0.yaml'));
    const server = createServer((req, res) => {
      if (req.url !== '/weather.yaml') {
        res.writeHead(404);
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(yaml);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await apiary('catalog', 'import', 'openapi', `${base}/weather.yaml`, '--json');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).apis.map((a: { id: string }) => a.id)).toEqual([
        'weather-service.getForecast',
        'weather-service.createAlert',
      ]);
      const missing = await apiary('catalog', 'import', 'openapi', `${base}/nope.yaml`);
      expect(missing.stderr).toBe(`error [NETWORK] cannot download ${base}/nope.yaml: HTTP 404 Not Found\n`);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('executableCatalog (ask, run, mcp serve) opens an imported file over HTTP, and only such a file', async () => {
    const out = join(dir, 'exec.json');
    await apiary('catalog', 'import', 'openapi', fixture('notes-3.1.json'), '--out', out);
    const exec = await executableCatalog({ catalog: out });
    expect(exec.source).toBe('1 HTTP app(s) (https://notes.example.org/api)');
    expect(exec.handlers.map((h) => [h.appId, h.owner])).toEqual([['notes-api', 'openapi:notes-api']]);
    await exec.close();
    const plain = join(dir, 'plain.json');
    writeFileSync(
      plain,
      JSON.stringify({ name: 'p', apps: [{ id: 'a', name: 'A', description: '', owner: 'a' }], apis: [] }),
    );
    await expect(executableCatalog({ catalog: plain })).rejects.toThrow(
      `catalog "${plain}" has no executable apps here`,
    );
  });
});
