/**
 * One probe of perf/containment.ts, run in its own process against one source tree:
 *
 *   npx tsx perf/containment-probes.ts attack NAME ROOT
 *   npx tsx perf/containment-probes.ts overhead TOOL ROOT CALLS
 *
 * ROOT is a checkout of Apiary (this one, or the code before the containment work): every module is
 * imported from ROOT/src, so the same probe measures both. The last stdout line is one JSON object
 * (`{ ms, outcome }` for an attack, `{ medianMs, p95Ms }` for an overhead). The parent kills the
 * process at its deadline and samples the memory of its whole process tree (sandboxes included).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { blackPng, whitePng } from '../src/benchmarks/gta/tools/__fixtures__/png.js';

const [mode, name, root, callsText] = process.argv.slice(2);

// biome-ignore lint/suspicious/noExplicitAny: modules of two different trees, typed at the call sites
const load = (path: string): Promise<any> => import(pathToFileURL(join(root!, 'src', movedPath(path))).href);

/** GTA's tools moved to src/benchmarks/gta/tools (issue 25); the "before" checkout has the old layout. */
function movedPath(path: string): string {
  const moved = path.replace(/^tools\/gta\//, 'benchmarks/gta/tools/');
  return moved !== path && existsSync(join(root!, 'src', moved)) ? moved : path;
}
const scratch = mkdtempSync(join(tmpdir(), 'apiary-containment-'));

/** A binary plist of `depth` arrays, each holding the next one twice (2^depth nodes when expanded). */
function plistBomb(depth: number): Buffer {
  // Objects: 0..depth-1 are arrays [i+1, i+1]; object `depth` is the empty string.
  const objects: Buffer[] = [];
  for (let i = 0; i < depth; i++) objects.push(Buffer.from([0xa2, i + 1, i + 1]));
  objects.push(Buffer.from([0x50]));
  const header = Buffer.from('bplist00', 'latin1');
  const offsets: number[] = [];
  let at = header.length;
  for (const o of objects) {
    offsets.push(at);
    at += o.length;
  }
  const offsetSize = 2;
  const table = Buffer.alloc(offsets.length * offsetSize);
  offsets.forEach((o, i) => {
    table.writeUInt16BE(o, i * offsetSize);
  });
  const trailer = Buffer.alloc(32);
  trailer[6] = offsetSize;
  trailer[7] = 1; // object reference size
  trailer.writeBigUInt64BE(BigInt(objects.length), 8);
  trailer.writeBigUInt64BE(0n, 16); // top object
  trailer.writeBigUInt64BE(BigInt(at), 24); // offset table offset
  return Buffer.concat([header, ...objects, table, trailer]);
}

/** GTA's catalog and one tool behind `dispatchCall` (default 30 s call limit), built once per tool. */
const sessions = new Map<string, Promise<(args: Record<string, unknown>) => Promise<string>>>();
function gtaCall(tool: string, args: Record<string, unknown>): Promise<string> {
  if (!sessions.has(tool)) sessions.set(tool, gtaSession(tool));
  return sessions.get(tool)!.then((call) => call(args));
}

async function gtaSession(tool: string) {
  const catalogMod = await load('catalog/index.ts');
  // since issue 25 the built-in catalogs are known once their plugins are registered
  if (existsSync(join(root!, 'src/benchmarks/builtin.ts')))
    (await load('benchmarks/builtin.ts')).registerBuiltinPlugins();
  const exec = await load('exec/index.ts');
  const toolMod = await load('tools/tool.ts');
  const outputDir = join(scratch, 'out');
  mkdirSync(outputDir, { recursive: true });
  // `readable` is ignored by the code before containment (it had no confinement).
  const handler = toolMod.toolHandler(await toolByName(tool), { outputDir, readable: [scratch] });
  const ctx = {
    catalog: catalogMod.indexCatalog(catalogMod.loadCatalog('gta')),
    apps: exec.appRegistry([handler]),
    timeoutMs: 30_000,
  };
  return async (args: Record<string, unknown>) =>
    describeOutcome(await exec.dispatchCall({ app: tool, api: tool, args }, ctx));
}

async function toolByName(tool: string) {
  const files: Record<string, [string, string]> = {
    Calculator: ['tools/gta/calculator.ts', 'calculatorTool'],
    DrawBox: ['tools/gta/draw-box.ts', 'drawBoxTool'],
    Plot: ['tools/gta/plot.ts', 'plotTool'],
    Solver: ['tools/gta/solver.ts', 'solverTool'],
  };
  const [file, factory] = files[tool]!;
  return (await load(file))[factory]();
}

function describeOutcome(outcome: {
  ok: boolean;
  error?: { code: string; message: string };
  content?: { type: string; text?: string }[];
}): string {
  if (!outcome.ok) return `refused [${outcome.error?.code}] ${outcome.error?.message.slice(0, 140)}`;
  const first = outcome.content?.[0];
  return `accepted (${first?.type === 'text' ? `"${String(first.text).slice(0, 60)}"` : first?.type})`;
}

const solution = (body: string) =>
  `def solution():\n${body
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}`;

/** Runs the CLI of ROOT in this process (argv and exit intercepted), returning its exit status. */
async function cli(args: string[]): Promise<string> {
  const { spawnSync } = await import('node:child_process');
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(root!, 'src/cli/main.ts'), ...args], {
    encoding: 'utf8',
    cwd: root,
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = (run.stderr || run.stdout).split('\n').find((l) => l.trim()) ?? '';
  return `exit ${run.status ?? run.signal} ${line.slice(0, 140)}`;
}

const ATTACKS: Record<string, () => Promise<string>> = {
  'calculator perm(10**3000, 5000)': () => gtaCall('Calculator', { expression: 'perm(10**3000, 5000)' }),
  'calculator round(1, -(10**8))': () => gtaCall('Calculator', { expression: 'round(1, -(10**8))' }),
  'calculator (-3)**(10**8)': () => gtaCall('Calculator', { expression: '(-3)**(10**8)' }),
  'calculator 120 gcds of 10,000-digit numbers': () =>
    gtaCall('Calculator', { expression: `${'gcd(2**33000-1, 3**20000-1)+'.repeat(120)}0` }),
  'DrawBox bbox 1e12 on 64x64': () => {
    writeFileSync(join(scratch, 'small.png'), whitePng(64, 64));
    return gtaCall('DrawBox', {
      image: join(scratch, 'small.png'),
      bbox: '(0, 0, 1000000000000, 1000000000000)',
    });
  },
  'DrawBox 20000x20000 PNG bomb': () => {
    writeFileSync(join(scratch, 'bomb.png'), blackPng(20_000, 20_000));
    return gtaCall('DrawBox', { image: join(scratch, 'bomb.png'), bbox: '(0, 0, 10, 10)' });
  },
  'Plot savefig writes a PNG bomb': () =>
    gtaCall('Plot', {
      command: solution(`import zlib, struct
from matplotlib.figure import Figure
class Bomb(Figure):
    def savefig(self, fname, **kw):
        side = 20000
        def chunk(t, d):
            return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
        ihdr = struct.pack('>IIBBBBB', side, side, 1, 0, 0, 0, 0)
        idat = zlib.compress(bytes((side // 8 + 1) * side), 9)
        with open(fname, 'wb') as f:
            f.write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', idat) + chunk(b'IEND', b''))
return Bomb()`),
    }),
  'Solver 4 forks x 900 MiB': () =>
    gtaCall('Solver', {
      command: solution(`import os, time
kids = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        try:
            b = bytearray(900 * 1024 * 1024)
            for i in range(0, len(b), 4096):
                b[i] = 1
            time.sleep(3)
        finally:
            os._exit(0)
    kids.append(pid)
for k in kids:
    os.waitpid(k, 0)
return 'done'`),
    }),
  'Solver writes 32 MiB files in a loop': () =>
    gtaCall('Solver', {
      command: solution(`chunk = b'x' * (32 * 1024 * 1024 - 1)
n = 0
try:
    while n < 200:
        with open('f%d' % n, 'wb') as f:
            f.write(chunk)
        n += 1
except Exception as e:
    return 'stopped after %d files: %s' % (n, type(e).__name__)
return 'wrote %d files' % n`),
    }),
  'Solver directory chain deeper than PATH_MAX': () =>
    gtaCall('Solver', {
      command: solution(`import os
for _ in range(3000):
    os.mkdir('d' * 40)
    os.chdir('d' * 40)
return 'deep'`),
    }),
  'shortcuts show: 500-byte plist bomb (2^40 nodes)': () => {
    writeFileSync(join(scratch, 'bomb.shortcut'), plistBomb(40));
    return cli(['shortcuts', 'show', join(scratch, 'bomb.shortcut')]);
  },
  'plan-line extractor: "Restaurants: [" + "=a()" x 4000': async () => {
    const { extractPlanLines } = await load('agents/extract-plan-lines.ts');
    const lines = extractPlanLines(`Restaurants: [${'=a()'.repeat(4000)}`);
    return `extracted ${JSON.stringify(lines).length} chars`;
  },
  'plan line with 50,000 arguments': async () => {
    const plan = await load('plan/index.ts');
    // renamed from parseMetabenchPlan in issue 25; the "before" checkout has the old name
    const parsePlanText = plan.parsePlanText ?? plan.parseMetabenchPlan;
    const args = Array.from({ length: 50_000 }, (_, i) => `a${i}='v'`).join(', ');
    try {
      const parsed = parsePlanText(`Restaurants: [find(${args})]`);
      return `parsed ${parsed.plan?.steps?.length ?? 0} step(s)`;
    } catch (error) {
      return `refused ${(error as Error).message.slice(0, 120)}`;
    }
  },
  'report on a 300,000-deep JSON record': () => {
    const run = join(scratch, 'run');
    mkdirSync(run);
    // A real run's header (the viewer fixture's), then one sample whose output is 300,000 arrays deep.
    const header = readFileSync(
      join(root!, 'src/viewer/__fixtures__/appbench-tool-loop/results.jsonl'),
      'utf8',
    ).split('\n')[0];
    const sample =
      `{"type":"sample","id":"s1","epoch":1,"category":null,"output":${'['.repeat(300_000)}${']'.repeat(300_000)},` +
      '"error":null,"usage":null,"modelCalls":1,"startedAt":"2026-01-01T00:00:00.000Z","durationMs":1,"score":null}';
    writeFileSync(join(run, 'results.jsonl'), `${header}\n${sample}\n`);
    return cli(['report', run]);
  },
};

/** `apiary mcp serve --catalog gta --http 0` of ROOT, as a child process; resolves its URL. */
async function startMcpServer(): Promise<{ url: string; stop: () => void }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(root!, 'src/cli/main.ts'),
      'mcp',
      'serve',
      '--catalog',
      'gta',
      '--http',
      '0',
      '--timeout',
      '5000',
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /at (http:\/\/\S+)/.exec(text);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`mcp serve exited (${code}): ${text}`)));
  });
  return { url, stop: () => child.kill('SIGKILL') };
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'probe', version: '1' },
      },
    }),
  });

async function mcpClient(url: string) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import(
    '@modelcontextprotocol/sdk/client/streamableHttp.js'
  );
  const client = new Client({ name: 'probe', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

ATTACKS['MCP: 3,000 initialize requests'] = async () => {
  const server = await startMcpServer();
  try {
    const statuses = new Map<number, number>();
    for (let i = 0; i < 3000; i += 20)
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          const res = await initialize(server.url);
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }),
      );
    await new Promise((r) => setTimeout(r, 2000));
    return `HTTP statuses ${[...statuses].map(([s, n]) => `${s}×${n}`).join(', ')}`;
  } finally {
    server.stop();
  }
};

const RUNAWAY = `${'gcd(2**33000-1, 3**20000-1)+'.repeat(120)}0`;

ATTACKS["MCP: a second client while one's Calculator call runs away"] = async () => {
  const server = await startMcpServer();
  try {
    const slow = await mcpClient(server.url);
    const other = await mcpClient(server.url);
    const runaway = slow
      // 120 gcds of 10,000-digit numbers: within every size cap, ~10 s of CPU in all
      .callTool({ name: 'Calculator.Calculator', arguments: { expression: RUNAWAY } }, undefined, {
        timeout: 120_000,
      })
      .then(
        (r) => `runaway call answered (${r.isError ? 'error' : 'ok'})`,
        (e: Error) => `runaway call failed: ${e.message.slice(0, 60)}`,
      );
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    const second = await other.listTools(undefined, { timeout: 120_000 }).then(
      () => 'answered',
      (e: Error & { cause?: { code?: string } }) => `failed (${e.cause?.code ?? e.message.slice(0, 40)})`,
    );
    const waited = performance.now() - t0;
    return `second client ${second} after ${waited.toFixed(0)} ms; ${await runaway}`;
  } finally {
    server.stop();
  }
};

const OVERHEAD_ARGS: Record<string, () => Record<string, unknown>> = {
  Calculator: () => ({ expression: '(3 + 4) * 12 / 5 - 2 ** 5' }),
  DrawBox: () => {
    writeFileSync(join(scratch, 'overhead.png'), whitePng(256, 256));
    return { image: join(scratch, 'overhead.png'), bbox: '(10, 10, 120, 90)', annotation: 'cat' };
  },
  Solver: () => ({
    command: solution('import sympy\nx = sympy.symbols("x")\nreturn str(sympy.solve(x**2 - 4, x))'),
  }),
};

async function main(): Promise<void> {
  if (mode === 'list') {
    console.log(JSON.stringify(Object.keys(ATTACKS)));
  } else if (!name || !root) {
    throw new Error('usage: containment-probes.ts list | attack NAME ROOT | overhead TOOL ROOT [CALLS]');
  } else if (mode === 'attack') {
    const attack = ATTACKS[name!];
    if (!attack) throw new Error(`unknown attack ${name}; known: ${Object.keys(ATTACKS).join(' | ')}`);
    // A warm tool (thread started, modules loaded) on both sides: the time is the attack's own.
    const tool = ['Calculator', 'DrawBox'].find(
      (t) => name!.startsWith(t) || name!.startsWith(t.toLowerCase()),
    );
    if (tool) await gtaCall(tool, OVERHEAD_ARGS[tool]!());
    const t0 = performance.now();
    const outcome = await attack();
    console.log(JSON.stringify({ ms: performance.now() - t0, outcome }));
  } else {
    const args = OVERHEAD_ARGS[name!]!();
    const calls = Number(callsText ?? 50);
    for (let i = 0; i < 3; i++) await gtaCall(name!, args); // warm-up: pools, imports, font lists
    const ms: number[] = [];
    let outcome = '';
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now();
      outcome = await gtaCall(name!, args);
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!;
    console.log(JSON.stringify({ medianMs: at(0.5), p95Ms: at(0.95), outcome }));
  }
  process.exit(0);
}

await main();
