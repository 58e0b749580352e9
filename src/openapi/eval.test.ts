import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Catalog, indexCatalog } from '../catalog/index.js';
import { appRegistry, autoApprove, dispatchCall } from '../exec/index.js';
import { evaluate, readResultsFile } from '../harness/index.js';
import { PluginRegistry } from '../plugins/index.js';
import {
  createSolver,
  defineSolver,
  sampleSolver,
  type TaskDefinition,
  TaskRegistry,
} from '../tasks/index.js';
import { openApiHandlers, openApiToCatalog, readOpenApiSpec } from './index.js';

/*
 * Issue 26 item 1, "works in eval": a task of a user's own plugin whose solver acts through a catalog
 * imported from OpenAPI, run by the library `evaluate()` against a local server.
 */

interface PetQuestion {
  id: string;
  status: string;
  expected: string[];
}

describe('evaluate() over an OpenAPI-imported catalog', () => {
  const seen: string[] = [];
  let server: Server;
  let catalog: Catalog;

  beforeAll(async () => {
    const pets = [
      { id: '1', name: 'Rex', status: 'sold' },
      { id: '2', name: 'Tom', status: 'available' },
      { id: '3', name: 'Kit', status: 'sold' },
    ];
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} key=${req.headers['x-api-key']}`);
      const url = new URL(req.url ?? '/', 'http://x');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(pets.filter((p) => p.status === url.searchParams.get('status'))));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const spec = await readOpenApiSpec(
      join(import.meta.dirname, '..', 'catalog', '__fixtures__', 'openapi', 'petstore-3.0.yaml'),
    );
    catalog = openApiToCatalog(spec, { baseUrl: base }).catalog;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a plugin task calls the HTTP API through dispatchCall; records, events and scores as for any task', async () => {
    const questions: PetQuestion[] = [
      { id: 'sold', status: 'sold', expected: ['Rex', 'Kit'] },
      { id: 'available', status: 'available', expected: ['Tom'] },
      { id: 'pending', status: 'pending', expected: ['Nobody'] },
    ];
    const http = openApiHandlers(catalog, { env: { PET_STORE_APIKEY: 'k-1' } });
    const ctx = { catalog: indexCatalog(catalog), apps: appRegistry(http.handlers), approve: autoApprove };
    const listPets = catalog.apis.find((a) => a.name === 'listPets')!;
    const lookUp = defineSolver({
      name: 'look-up',
      description: 'lists the pets of the status asked about (no model)',
      args: z.object({}),
      needsModel: false,
      create: () =>
        sampleSolver(async (q: PetQuestion, solveCtx) => {
          const outcome = await dispatchCall(
            { app: listPets.app, api: listPets.name, args: { status: q.status } },
            ctx,
          );
          solveCtx.events?.write({
            type: 'stop',
            step: 0,
            reason: 'final',
            answer: outcome.ok ? 'listed' : outcome.error.code,
            usage: { inputTokens: 0, outputTokens: 0 },
            totalMs: 0,
          });
          if (!outcome.ok) throw new Error(outcome.error.message);
          const rows = outcome.content.flatMap((part) => (part.type === 'rows' ? part.rows : []));
          return { output: rows.map((r) => String(r.name)), modelCalls: 0 };
        }),
    });
    const definition: TaskDefinition<{ correct: number }, { correct: boolean }> = {
      name: 'pet-status',
      description: 'which pets have a status, asked of the pet store over HTTP',
      version: '1',
      options: z.object({}),
      solvers: { 'look-up': lookUp },
      defaultSolver: 'look-up',
      async load(load) {
        return {
          task: {
            name: 'pet-status',
            version: '1',
            dataset: questions,
            solver: createSolver(lookUp, load.solverOptions, undefined),
            scorer: (q: PetQuestion, o: { output: string[] | null }) => ({
              correct: JSON.stringify(o.output) === JSON.stringify(q.expected),
            }),
            summarize: (scores: readonly { correct: boolean }[]) => ({
              correct: scores.filter((s) => s.correct).length,
            }),
          },
          dataSource: { path: 'inline:pet-status', sha256: '0'.repeat(64) },
        };
      },
      summarize: (scores) => ({ correct: scores.filter((s) => s.correct).length }),
      metrics: (r) => ({ correct: r.correct }),
    };
    const plugins = new PluginRegistry();
    plugins.register({
      name: 'pets',
      description: 'a pet store described by OpenAPI',
      tasks: [{ name: 'pet-status', description: definition.description, load: async () => definition }],
    });
    const outDir = join(mkdtempSync(join(tmpdir(), 'apiary-openapi-eval-')), 'run');
    try {
      const run = await evaluate(
        { task: 'pet-status' },
        { outDir, registry: new TaskRegistry(), plugins, concurrency: 1 },
      );
      // sold and available are right; pending has no pets, so the hand-written 'Nobody' is wrong
      expect(run.summary.report).toEqual({ correct: 2 });
      const records = readResultsFile(run.resultsFile).samples.sort((a, b) => a.id.localeCompare(b.id));
      expect(records.map((r) => [r.id, r.output, r.score, r.events?.map((e) => e.type)])).toEqual([
        ['available', ['Tom'], { correct: true }, ['stop']],
        ['pending', [], { correct: false }, ['stop']],
        ['sold', ['Rex', 'Kit'], { correct: true }, ['stop']],
      ]);
      expect([...seen].sort()).toEqual([
        'GET /v1/pets?status=available key=k-1',
        'GET /v1/pets?status=pending key=k-1',
        'GET /v1/pets?status=sold key=k-1',
      ]);
    } finally {
      await http.close();
    }
  });
});
