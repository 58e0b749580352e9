import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { countSideEffects, listSideEffects } from '../benchmarks/appbench/apps/sgd-apps.js';
import type { SqliteDatabase } from '../benchmarks/appbench/apps/sgd-database.js';
import { appRegistry } from '../exec/index.js';
import {
  appbench,
  connectInMemory,
  fixtureDb,
  lotusLeaf,
  reservation,
  simulatedApps,
  toyApps,
  toyCatalog,
} from './__fixtures__/fixtures.js';

const basilHouse = {
  ...lotusLeaf,
  address: '7 Oak Avenue',
  has_seating_outdoors: 'False',
  phone_number: '555-0102',
  price_range: 'cheap',
  rating: '3.90',
  restaurant_name: 'Basil House',
};

const text = (r: unknown) =>
  (r as CallToolResult).content.map((b) => (b.type === 'text' ? b.text : b.type)).join('\n');

describe('MCP server over the simulated apps (in memory)', () => {
  let db: SqliteDatabase;
  beforeEach(() => {
    db = fixtureDb();
  });
  afterEach(() => db.close());
  const serveOpts = () => ({ catalog: appbench, apps: appRegistry(simulatedApps(db)) });

  it('lists one tool per API with the catalog input schema and read-only hints', async () => {
    const client = await connectInMemory(serveOpts());
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(33);
    const find = tools.find((t) => t.name === 'Restaurants.findrestaurants')!;
    expect(find.inputSchema.required).toEqual(['category', 'location']);
    expect(Object.keys(find.inputSchema.properties ?? {})).toEqual([
      'category',
      'location',
      'price_range',
      'has_seating_outdoors',
      'has_vegetarian_options',
    ]);
    expect(find.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    const reserve = tools.find((t) => t.name === 'Restaurants.reserverestaurant')!;
    expect(reserve.annotations?.readOnlyHint).toBe(false);
    expect(reserve.description).toMatch(/\(transactional: asks for approval\)$/);
  });

  it('calls a search API: rows as text and as structured content', async () => {
    const client = await connectInMemory(serveOpts());
    const result = await client.callTool({
      name: 'Restaurants.findrestaurants',
      arguments: { category: 'thai', location: 'Springfield' },
    });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ rows: [lotusLeaf, basilHouse] });
    expect(JSON.parse(text(result))).toEqual([lotusLeaf, basilHouse]);
  });

  it('checks arguments through dispatchCall, naming the field', async () => {
    const client = await connectInMemory(serveOpts());
    const result = await client.callTool({
      name: 'Restaurants.findrestaurants',
      arguments: { category: 'thai' },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'INPUT_INVALID: invalid arguments for Restaurants.findrestaurants: location: required argument "location" is missing',
    );
  });

  it('asks the client to approve a transactional call; accepted, it runs once', async () => {
    const asked: string[] = [];
    const client = await connectInMemory(serveOpts(), {
      elicit: (message) => {
        asked.push(message);
        return { action: 'accept', content: { approve: true } };
      },
    });
    const result = await client.callTool({ name: 'Restaurants.reserverestaurant', arguments: reservation });
    expect(result.isError).toBeUndefined();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(
      /^Allow transactional call Restaurants\.reserverestaurant\(restaurant_name="Lotus Leaf", location="Springfield", time="18:30", date="2019-03-05"\)\? /,
    );
    expect(countSideEffects(db)).toBe(1);
    expect(listSideEffects(db)[0]).toMatchObject({
      app: 'Restaurants',
      api: 'reserverestaurant',
      caller: 'app:Restaurants',
    });
  });

  it('a declined approval runs nothing', async () => {
    const client = await connectInMemory(serveOpts(), { elicit: () => ({ action: 'decline' }) });
    const result = await client.callTool({ name: 'Restaurants.reserverestaurant', arguments: reservation });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'APPROVAL_DENIED: transactional call Restaurants.reserverestaurant not approved: the client declined the approval',
    );
    expect(countSideEffects(db)).toBe(0);
  });

  it('an accepted form that says no runs nothing', async () => {
    const client = await connectInMemory(serveOpts(), {
      elicit: () => ({ action: 'accept', content: { approve: false } }),
    });
    const result = await client.callTool({ name: 'Restaurants.reserverestaurant', arguments: reservation });
    expect(text(result)).toMatch(/not approved: the client answered no$/);
    expect(countSideEffects(db)).toBe(0);
  });

  it('a client without elicitation gets a clear refusal and nothing runs', async () => {
    const client = await connectInMemory(serveOpts());
    const result = await client.callTool({ name: 'Restaurants.reserverestaurant', arguments: reservation });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: {
        code: 'APPROVAL_DENIED',
        message:
          'transactional call Restaurants.reserverestaurant not approved: this MCP client cannot be asked for approval (it has no elicitation capability), so transactional calls are refused',
      },
    });
    expect(countSideEffects(db)).toBe(0);
  });

  it('offers and runs only the granted apps', async () => {
    const client = await connectInMemory({ ...serveOpts(), grant: new Set(['Restaurants']) });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'Restaurants.reserverestaurant',
      'Restaurants.findrestaurants',
    ]);
    // The MCP spec lists an unknown tool as a protocol error (-32602), not a tool result.
    await expect(client.callTool({ name: 'Rents.getcarsavailable', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: Unknown tool: "Rents.getcarsavailable"',
    });
  });

  it('refuses a pagination cursor it never handed out (-32602)', async () => {
    const client = await connectInMemory(serveOpts());
    expect((await client.listTools()).nextCursor).toBeUndefined();
    await expect(client.listTools({ cursor: 'bogus' })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: invalid cursor "bogus": this server lists every tool on one page',
    });
  });

  it('checks JSON types strictly: a number for a string parameter is refused, nothing runs', async () => {
    const client = await connectInMemory(serveOpts());
    const result = await client.callTool({
      name: 'Restaurants.findrestaurants',
      arguments: { category: 'Thai', location: 12, price_range: null },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'INPUT_INVALID: invalid arguments for Restaurants.findrestaurants: "location": a number where the schema says string',
    );
    const typed = await client.callTool({
      name: 'Restaurants.findrestaurants',
      arguments: { category: 'Thai', location: 'Springfield' },
    });
    expect(typed.isError).toBeUndefined();
  });
});

describe('MCP tool search (in memory)', () => {
  let db: SqliteDatabase;
  beforeEach(() => {
    db = fixtureDb();
  });
  afterEach(() => db.close());

  it('offers search_apis and call_api; finds an API and calls it', async () => {
    const client = await connectInMemory({
      catalog: appbench,
      apps: appRegistry(simulatedApps(db)),
      mode: 'search',
    });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_apis', 'call_api']);
    const found = await client.callTool({
      name: 'search_apis',
      arguments: { query: 'find a restaurant serving thai food', limit: 3 },
    });
    const hits = (found.structuredContent as { rows: Array<{ api: string; transactional: boolean }> }).rows;
    expect(hits).toHaveLength(3);
    expect(hits[0]).toMatchObject({ api: 'Restaurants.findrestaurants', transactional: false });
    const called = await client.callTool({
      name: 'call_api',
      arguments: { api: hits[0]!.api, arguments: { category: 'Thai', location: 'Springfield' } },
    });
    expect(called.structuredContent).toEqual({ rows: [lotusLeaf, basilHouse] });
  });

  it('call_api keeps approvals and names close APIs for a wrong id', async () => {
    const client = await connectInMemory({
      catalog: appbench,
      apps: appRegistry(simulatedApps(db)),
      mode: 'search',
    });
    const refused = await client.callTool({
      name: 'call_api',
      arguments: { api: 'Restaurants.reserverestaurant', arguments: reservation },
    });
    expect(text(refused)).toMatch(/^APPROVAL_DENIED: .*no elicitation capability/);
    expect(countSideEffects(db)).toBe(0);
    const wrong = await client.callTool({
      name: 'call_api',
      arguments: { api: 'Restaurants.findrestaurant' },
    });
    expect(text(wrong)).toBe(
      'UNKNOWN_API: app "Restaurants" has no API "findrestaurant"; did you mean: findrestaurants',
    );
    const bad = await client.callTool({ name: 'search_apis', arguments: { query: 'x', limit: 0 } });
    expect(text(bad)).toBe('INPUT_INVALID: search_apis: "limit" must be an integer from 1 to 50, got 0');
  });

  it('search hits leave out apps that are not granted', async () => {
    const client = await connectInMemory({
      catalog: appbench,
      apps: appRegistry(simulatedApps(db)),
      mode: 'search',
      grant: new Set(['Rents']),
    });
    const found = await client.callTool({
      name: 'search_apis',
      arguments: { query: 'find a thai restaurant', limit: 50 },
    });
    const apps = new Set(
      (found.structuredContent as { rows: Array<{ app: string }> }).rows.map((r) => r.app),
    );
    expect([...apps]).toEqual(['Rents']);
  });
});

describe('progress, cancellation and typed content (in memory)', () => {
  it('reports progress while a call runs and aborts the handler when the client cancels', async () => {
    const { handlers, state } = toyApps();
    const client = await connectInMemory({
      catalog: toyCatalog,
      apps: appRegistry(handlers),
      progressIntervalMs: 10,
    });
    const ctrl = new AbortController();
    const progress: string[] = [];
    const call = client.callTool({ name: 'Slow.wait', arguments: { ms: 5000 } }, undefined, {
      signal: ctrl.signal,
      onprogress: (p) => {
        progress.push(`${p.progress}:${p.message?.split(' running')[0]}`);
        if (progress.length === 2) ctrl.abort(new Error('enough'));
      },
    });
    await expect(call).rejects.toThrow('enough');
    expect(progress).toEqual(['1:Slow.wait', '2:Slow.wait']);
    await vi.waitFor(() => expect(state.endings).toEqual(['aborted']));
  });

  it('a call that finishes reports its result and no more progress', async () => {
    const { handlers, state } = toyApps();
    const client = await connectInMemory({
      catalog: toyCatalog,
      apps: appRegistry(handlers),
      progressIntervalMs: 1000,
    });
    const result = await client.callTool({ name: 'Slow.wait', arguments: { ms: 5 } }, undefined, {
      onprogress: () => {},
    });
    expect(result.structuredContent).toEqual({ waited: 5 });
    expect(state.endings).toEqual(['done']);
  });

  it('sends an image file inline', async () => {
    const { handlers } = toyApps();
    const client = await connectInMemory({ catalog: toyCatalog, apps: appRegistry(handlers) });
    const result = await client.callTool({ name: 'Draw.picture', arguments: {} });
    expect(result.content).toEqual([
      {
        type: 'image',
        data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString('base64'),
        mimeType: 'image/png',
      },
    ]);
  });

  it('a slow call hits the time limit as a TIMEOUT tool error', async () => {
    const { handlers, state } = toyApps();
    const client = await connectInMemory({ catalog: toyCatalog, apps: appRegistry(handlers), timeoutMs: 30 });
    const result = await client.callTool({ name: 'Slow.wait', arguments: { ms: 5000 } });
    expect(text(result)).toBe('TIMEOUT: no answer within 30 ms');
    expect(state.endings).toEqual(['aborted']);
  });
});
