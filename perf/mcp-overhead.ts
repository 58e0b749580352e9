/**
 * Overhead per call of the MCP layer against a direct `dispatchCall`, in the same run.
 *
 *   npx tsx perf/mcp-overhead.ts [--calls N]
 *
 * One instant in-memory app (`Kv.get`, a search) behind the same catalog checks. Three paths, each
 * called N times one after the other after a warm-up:
 *  - direct: `dispatchCall` (catalog lookup, argument validation, permission scope, handler);
 *  - MCP in memory: an SDK `Client` → `InMemoryTransport` → Apiary's MCP server → `dispatchCall`;
 *  - MCP over HTTP: the same through Streamable HTTP on loopback (one session, SSE response per call);
 *  - import round trip: `dispatchCall` on an imported server (Apiary's MCP client handler) that is
 *    Apiary's own server in memory, i.e. both MCP layers around one call.
 * Prints the median and p95 per call (µs) and the ratio of medians to the direct call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AppHandler } from '../src/apps/index.js';
import { type Catalog, indexCatalog, primitive } from '../src/catalog/index.js';
import { appRegistry, dispatchCall } from '../src/exec/index.js';
import { importMcpServer, mcpServerFactory, startMcpHttpServer } from '../src/mcp/index.js';

// The SDK's HTTP client transport adds one abort listener per POST to its session signal (undici
// frees them on GC): thousands of calls on one session trip Node's leak warning. Counted, not printed.
let listenerWarnings = 0;
process.removeAllListeners('warning');
process.on('warning', (w) => {
  if (w.name === 'MaxListenersExceededWarning') listenerWarnings += 1;
  else console.warn(w);
});

const arg = (name: string) => Number(process.argv[process.argv.indexOf(name) + 1]);
const CALLS = process.argv.includes('--calls') ? arg('--calls') : 2000;
const WARMUP = 200;

const catalog: Catalog = {
  name: 'bench',
  apps: [{ id: 'Kv', name: 'Kv', description: 'key-value store', owner: 'kv' }],
  apis: [
    {
      id: 'Kv.get',
      app: 'Kv',
      name: 'get',
      description: 'read a key',
      transactional: false,
      parameters: [{ name: 'key', type: primitive('string'), required: true }],
      outputs: [{ name: 'value', type: primitive('string') }],
    },
  ],
};
const kv: AppHandler = { appId: 'Kv', owner: 'kv', call: async (_api, args) => [{ value: `v-${args.key}` }] };
const apps = appRegistry([kv]);
const index = indexCatalog(catalog);
const factory = mcpServerFactory({ catalog, apps });

async function time(label: string, call: (i: number) => Promise<unknown>) {
  for (let i = 0; i < WARMUP; i++) await call(i);
  const us: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = process.hrtime.bigint();
    await call(i);
    us.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  us.sort((a, b) => a - b);
  return { label, median: us[Math.floor(us.length / 2)]!, p95: us[Math.floor(us.length * 0.95)]! };
}

const must = (ok: boolean, what: string) => {
  if (!ok) throw new Error(`${what} failed`);
};

const direct = await time('direct dispatchCall', async (i) => {
  const o = await dispatchCall({ app: 'Kv', api: 'get', args: { key: `k${i}` } }, { catalog: index, apps });
  must(o.ok, 'direct call');
});

const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
await factory().connect(serverSide);
const memClient = new Client({ name: 'perf', version: '1' });
await memClient.connect(clientSide);
const inMemory = await time('MCP, in-memory transport', async (i) => {
  const r = await memClient.callTool({ name: 'Kv.get', arguments: { key: `k${i}` } });
  must(!r.isError, 'in-memory call');
});

const http = await startMcpHttpServer({ createServer: factory, port: 0 });
const httpClient = new Client({ name: 'perf', version: '1' });
await httpClient.connect(new StreamableHTTPClientTransport(new URL(http.url)));
const overHttp = await time('MCP, Streamable HTTP (loopback)', async (i) => {
  const r = await httpClient.callTool({ name: 'Kv.get', arguments: { key: `k${i}` } });
  must(!r.isError, 'HTTP call');
});

const [importClientSide, importServerSide] = InMemoryTransport.createLinkedPair();
await factory().connect(importServerSide);
const imported = await importMcpServer(
  'kv',
  { url: 'http://unused.invalid/' },
  { transport: () => importClientSide },
);
const importedCtx = {
  catalog: indexCatalog({ name: 'mcp', apps: [imported.app], apis: imported.apis }),
  apps: appRegistry([imported.handler]),
};
const roundTrip = await time('import round trip (in memory)', async (i) => {
  const o = await dispatchCall({ app: 'kv', api: 'Kv.get', args: { key: `k${i}` } }, importedCtx);
  must(o.ok, 'imported call');
});

console.log(`${CALLS} sequential calls each (after ${WARMUP} warm-up), one instant app`);
for (const r of [direct, inMemory, overHttp, roundTrip])
  console.log(
    `${r.label.padEnd(34)} median ${r.median.toFixed(1).padStart(8)} µs  p95 ${r.p95.toFixed(1).padStart(8)} µs  ratio ${(r.median / direct.median).toFixed(1)}×`,
  );

if (listenerWarnings)
  console.log(
    `note: ${listenerWarnings} MaxListenersExceededWarning(s) from the SDK's Streamable HTTP client (one abort listener per POST)`,
  );

await memClient.close();
await httpClient.close();
await imported.connection.close();
await http.close();
