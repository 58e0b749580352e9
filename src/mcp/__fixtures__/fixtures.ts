// Shared set-up of the MCP tests: the simulated apps over the SGD fixture dialogues, a small
// catalog with a slow app and a picture app, and an SDK client connected in memory.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type ElicitResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import type { AppHandler } from '../../apps/index.js';
import { buildSgdDatabase, type SqliteDatabase } from '../../benchmarks/appbench/apps/sgd-database.js';
import { createSgdApps } from '../../benchmarks/appbench/apps/sgd-apps.js';
import { type Catalog, loadCatalog, primitive } from '../../catalog/index.js';
import { type McpServeOptions, mcpServerFactory } from '../serve.js';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const appsFixtures = join(import.meta.dirname, '../../benchmarks/appbench/apps/__fixtures__');
export const appbench = loadCatalog('appbench', { dataDir: join(import.meta.dirname, '../../../data') });

/** The SGD database built from the two fixture dialogue files (Lotus Leaf, Basil House, …). */
export function fixtureDb(file = ':memory:'): SqliteDatabase {
  const db = new Database(file);
  buildSgdDatabase(
    ['sgd-dialogues-a.json', 'sgd-dialogues-b.json'].map((name) => ({
      file: name,
      json: JSON.parse(readFileSync(join(appsFixtures, name), 'utf8')),
    })),
    db,
  );
  return db;
}

export function simulatedApps(db: SqliteDatabase): AppHandler[] {
  return createSgdApps({ db, catalog: appbench, now: () => new Date('2019-03-01T12:00:00Z') });
}

export const lotusLeaf = {
  address: '12 Elm Street',
  category: 'Thai',
  has_seating_outdoors: 'True',
  has_vegetarian_options: 'True',
  location: 'Springfield',
  phone_number: '555-0101',
  price_range: 'moderate',
  rating: '4.20',
  restaurant_name: 'Lotus Leaf',
};

/** A reservation the fixture database can confirm. */
export const reservation = { restaurant_name: 'Lotus Leaf', location: 'Springfield', time: '18:30', date: '2019-03-05' };

/** A small catalog: `Slow.wait` (runs until cancelled or `ms` passed) and `Draw.picture` (an image file). */
export const toyCatalog: Catalog = {
  name: 'toy',
  apps: [
    { id: 'Slow', name: 'Slow', description: 'a slow app', owner: 'app:Slow' },
    { id: 'Draw', name: 'Draw', description: 'draws pictures', owner: 'app:Draw' },
  ],
  apis: [
    {
      id: 'Slow.wait',
      app: 'Slow',
      name: 'wait',
      description: 'waits for ms milliseconds',
      transactional: false,
      parameters: [{ name: 'ms', type: primitive('integer'), required: true }],
      outputs: [],
    },
    {
      id: 'Draw.picture',
      app: 'Draw',
      name: 'picture',
      description: 'draws a picture',
      transactional: false,
      parameters: [],
      outputs: [],
    },
  ],
};

export interface ToyState {
  /** How each `Slow.wait` call ended: `done` or `aborted`. */
  endings: string[];
  picture: string;
}

export function toyApps(): { handlers: AppHandler[]; state: ToyState } {
  const picture = join(mkdtempSync(join(tmpdir(), 'apiary-mcp-test-')), 'p.png');
  writeFileSync(picture, Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
  const state: ToyState = { endings: [], picture };
  const slow: AppHandler = {
    appId: 'Slow',
    owner: 'app:Slow',
    call: (_api, args, ctx) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          state.endings.push('done');
          resolve({ waited: args.ms });
        }, Number(args.ms));
        ctx.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          state.endings.push('aborted');
          reject(new Error('aborted'));
        });
      }),
  };
  const draw: AppHandler = {
    appId: 'Draw',
    owner: 'app:Draw',
    call: async () => ({ content: [{ type: 'image', path: picture, mediaType: 'image/png' }] }),
  };
  return { handlers: [slow, draw], state };
}

export interface ClientSetup {
  /** Answers elicitation requests; without it the client has no elicitation capability. */
  elicit?: (message: string) => ElicitResult;
}

/** An SDK client connected in memory to a fresh server of `opts`. */
export async function connectInMemory(opts: McpServeOptions, setup: ClientSetup = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcpServerFactory(opts)().connect(serverSide);
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: setup.elicit ? { elicitation: { form: {} } } : {} },
  );
  const elicit = setup.elicit;
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
  await client.connect(clientSide);
  return client;
}
