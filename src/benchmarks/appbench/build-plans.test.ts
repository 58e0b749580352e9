import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/index.js';
import { runCliInProcess } from '../../cli/__fixtures__/run-cli-in-process.js';
import { openApiHandlers } from '../../openapi/index.js';
import {
  type ScriptedChatRequest,
  type ScriptedOpenAiServer,
  startScriptedOpenAiServer,
} from '../../test/index.js';
import { APPBENCH_CATEGORIES, appBenchCategory } from './categories.js';
import { checkAppBenchGold, type GoldRecord } from './gold-check.js';
import { INSTRUCTION_SYSTEM_PROMPT } from './plan-records.js';
import { compatibleNames } from './plan-sampling.js';
import { readAppBenchFile } from './record.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const apiary = (args: string[], env: Record<string, string> = {}) => runCliInProcess(args, { env });

function recordsIn(dir: string): GoldRecord[] {
  return APPBENCH_CATEGORIES.filter((c) => existsSync(join(dir, `test_${c}.json`))).flatMap((category) =>
    readAppBenchFile(join(dir, `test_${category}.json`)).map((record, i) => ({
      id: `${category}#${i}`,
      category,
      record,
    })),
  );
}

describe('plan sampling rules', () => {
  it('names match once case and separators go, or as a suffix (petId ← id); categories as AppBench defines them', () => {
    expect([
      compatibleNames('restaurant_name', 'restaurant_name'),
      compatibleNames('petId', 'id'),
      compatibleNames('pickup_location', 'location'),
      compatibleNames('city', 'location'),
      compatibleNames('petId', 'd'),
    ]).toEqual([true, true, true, false, false]);
    expect([
      appBenchCategory(['a']),
      appBenchCategory(['a', 'a']),
      appBenchCategory(['a', 'b']),
      appBenchCategory(['a', 'b', 'a']),
    ]).toEqual(['ss', 'sm', 'ms', 'mm']);
  });
});

describe('apiary data build plans over the pet-store OpenAPI example and a local server', {
  timeout: 60_000,
}, () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  const pets = [
    { id: '1', name: 'Rex', tag: 'dog', status: 'sold' },
    { id: '2', name: 'Tom', tag: 'cat', status: 'available' },
  ];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const url = new URL(req.url ?? '/', 'http://x');
      const one = /^\/v1\/pets\/([^/]+)$/.exec(url.pathname);
      const status = url.searchParams.get('status');
      const body =
        url.pathname === '/v1/pets'
          ? pets.filter((p) => !status || p.status === status)
          : one
            ? pets.find((p) => p.id === one[1])
            : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? { message: 'no such pet' }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('every plan runs complete again through the HTTP handlers, and the records load in eval appbench', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-build-plans-'));
    const env = { PET_STORE_APIKEY: 'k-1' };
    const catalogFile = join(dir, 'pets.json');
    const spec = join(ROOT, 'examples/petstore.openapi.yaml');
    expect(
      (await apiary(['catalog', 'import', 'openapi', spec, '--base-url', base, '--out', catalogFile])).code,
    ).toBe(0);
    writeFileSync(join(dir, 'values.json'), JSON.stringify({ 'get_pets_petId.petId': ['2'] }));
    const out = join(dir, 'data');
    const args = ['data', 'build', 'plans', '--catalog', catalogFile, '--values', join(dir, 'values.json')];
    const r = await apiary([...args, '--limit', '3', '--attempts', '20', '--out', out], env);
    expect(r.stderr).not.toContain('error [');
    expect(r.code).toBe(0);
    // one app: no MS or MM plan; writes (addPet, deletePet) are left out under the default --approve deny
    expect(r.stdout).toMatch(
      /^4 records \(ss 2, sm 2, ms 0, mm 0\) written to .*; templated instructions \(no model\); \d+ plans tried\n$/,
    );
    expect(seen.some((s) => s.startsWith('POST') || s.startsWith('DELETE'))).toBe(false);
    const records = recordsIn(out);
    expect(records.map((x) => [x.category, ...x.record.output.api_results])).toEqual([
      ['ss', 'id, name, tag, status = listPets()'],
      ['ss', "id, name, tag, status = get_pets_petId(#petId='2')"],
      [
        'sm',
        "id, name, tag, status = get_pets_petId(#petId='2')",
        'id, name, tag, status = listPets(#status=status)',
      ],
      ['sm', 'id, name, tag, status = listPets()', 'id, name, tag, status = get_pets_petId(#petId=id)'],
    ]);
    expect(records[3]!.record.input).toBe(
      'Call Pet Store listPets; then Pet Store get_pets_petId taking petId from the id of the first call.',
    );
    // every SM plan chains: a later call takes an earlier call's output
    for (const x of records.filter((y) => y.category === 'sm'))
      expect(x.record.output.api_results.slice(1).some((c) => /#\w+=[A-Za-z_]\w*[,)]/.test(c))).toBe(true);
    const catalog = loadCatalog(catalogFile);
    const report = await checkAppBenchGold(records, {
      catalog,
      handlers: openApiHandlers(catalog, { env }).handlers,
    });
    expect([report.total, report.completed, report.counts.rejected, report.counts.failed]).toEqual([
      4, 4, 0, 0,
    ]);
    expect(report.counts['dangling-ref']).toBe(0);
    const again = await apiary(
      [...args, '--limit', '3', '--attempts', '20', '--out', join(dir, 'again')],
      env,
    );
    expect(readFileSync(join(dir, 'again', 'test_sm.json'), 'utf8')).toBe(
      readFileSync(join(out, 'test_sm.json'), 'utf8'),
    );
    expect(again.code).toBe(0);
    const e = await apiary(['eval', 'appbench', '--data', out, '--out', join(dir, 'run')]);
    expect(e.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'run', 'summary.json'), 'utf8')).records).toBe(4);
  });
});

describe('apiary data build plans over the tools of an MCP server', { timeout: 60_000 }, () => {
  it('a later tool takes the id an earlier one returned; the state-changing tool is never called', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-build-mcp-'));
    const server = join(import.meta.dirname, '__fixtures__', 'notes-mcp-server.mjs');
    const config = join(dir, 'servers.json');
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [server] } } }),
    );
    const out = join(dir, 'data');
    const r = await apiary([
      'data',
      'build',
      'plans',
      '--servers',
      config,
      '--limit',
      '2',
      '--attempts',
      '10',
      '--out',
      out,
    ]);
    expect(r.stderr).not.toContain('error [');
    expect(r.stdout).toMatch(/^2 records \(ss 1, sm 1, ms 0, mm 0\) written to /);
    expect(recordsIn(out).map((x) => [x.category, ...x.record.output.api_results])).toEqual([
      ['ss', 'note_id, title, body = latest_note()'],
      ['sm', 'note_id, title, body = latest_note()', 'note_id, title, body = read_note(#note_id=note_id)'],
    ]);
    const manifest = JSON.parse(readFileSync(join(out, 'build.manifest.json'), 'utf8'));
    expect(manifest.catalog).toBe(`MCP servers of ${config}`);
    expect(JSON.stringify(manifest.records)).not.toContain('delete_note');
  });
});

/** A small value pool from examples/appbench-mini (values its gold calls give literally). */
const SGD_VALUES = {
  'findrestaurants.category': ['Mexican'],
  'findrestaurants.location': ['Fresno', 'Oakland'],
  'findmovies.location': ['San Jose'],
  'getweather.city': ['Fresno'],
  'findbus.from_city': ['Sacramento'],
  'findbus.to_city': ['Fresno'],
  'findbus.departure_date': ['2019-03-06'],
};

describe('apiary data build plans over the simulated AppBench apps', { timeout: 60_000 }, () => {
  let model: ScriptedOpenAiServer | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });

  it('plans complete under apps check; a model writes instructions stating every user value, retried when one is missing', async () => {
    let first = true;
    model = await startScriptedOpenAiServer({
      respond: (req: ScriptedChatRequest) => {
        expect(req.messages[0]!.content).toBe(INSTRUCTION_SYSTEM_PROMPT);
        const user = req.messages.at(-1)!.content;
        const values = [...user.matchAll(/^ {3}the user gives: (.*)$/gm)]
          .flatMap((m) => (m[1] === '(nothing)' ? [] : m[1]!.split('; ')))
          .map((kv) => kv.split(' = ')[1]!);
        // the very first reply leaves a value out
        const said = first ? values.slice(1) : values;
        first = false;
        return `Please take care of ${said.join(' and ')} for me.`;
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'apiary-build-sgd-'));
    writeFileSync(join(dir, 'values.json'), JSON.stringify(SGD_VALUES));
    const out = join(dir, 'data');
    const r = await apiary([
      'data',
      'build',
      'plans',
      '--catalog',
      'appbench',
      '--values',
      join(dir, 'values.json'),
      '--approve',
      'auto',
      '--limit',
      '2',
      '--seed',
      '3',
      '--out',
      out,
      '--base-url',
      model.url,
      '--model',
      'scripted',
    ]);
    expect(r.stderr).not.toContain('error [');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^8 records \(ss 2, sm 2, ms 2, mm 2\) written to .*; instructions by scripted, 0 rejected; \d+ plans tried\n$/,
    );
    const manifest = JSON.parse(readFileSync(join(out, 'build.manifest.json'), 'utf8'));
    expect(manifest.records[0].instruction.attempts.length).toBe(2);
    expect(manifest.records[0].instruction.attempts[0].missing.length).toBe(1);
    for (const x of recordsIn(out))
      for (const v of Object.values(x.record.output.user_aware_arguments))
        expect(x.record.input).toContain(String(v));
    const check = await apiary(['apps', 'check', '--data', out]);
    expect(check.stdout).toContain('8/8 gold plans complete (ss 2/2, sm 2/2, ms 2/2, mm 2/2)');
    expect(check.stdout).toContain('executor: 0 rejection(s), 0 search(es) with no row, 0 failed call(s)');
    expect(check.code).toBe(0);
    const e = await apiary(['eval', 'appbench', '--data', out, '--out', join(dir, 'run')]);
    expect(e.code).toBe(0);
  });

  it('refuses to write over AppBench files and names an unreadable value pool', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-build-sgd-'));
    writeFileSync(join(dir, 'test_ss.json'), '[]');
    const r = await apiary(['data', 'build', 'plans', '--catalog', 'appbench', '--out', dir]);
    expect([r.code, r.stderr]).toEqual([
      2,
      `error [USAGE] ${dir} already holds AppBench files: pass --overwrite or another --out\n`,
    ]);
    writeFileSync(join(dir, 'v.json'), JSON.stringify({ city: [{ x: 1 }] }));
    const v = await apiary([
      'data',
      'build',
      'plans',
      '--catalog',
      'appbench',
      '--values',
      join(dir, 'v.json'),
      '--out',
      join(dir, 'o'),
    ]);
    expect(v.code).toBe(2);
    expect(v.stderr).toContain('values are strings, numbers or booleans');
    const g = await apiary([
      'data',
      'build',
      'plans',
      '--catalog',
      'appbench',
      '--grant',
      'Nope',
      '--out',
      join(dir, 'g'),
    ]);
    expect(g.code).toBe(2);
    expect(g.stderr).toBe(
      'error [NOT_FOUND] unknown app in --grant "Nope" (available: Hotels, Rents, Buses, Events, Flights, Homes, Media, Movies, Music, Payment, Restaurants, Services, Trains, Travel, Weather)\n',
    );
  });
});
