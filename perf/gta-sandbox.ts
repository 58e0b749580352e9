/**
 * Cost of running GTA's Python tools in the bubblewrap sandbox.
 *
 *   npx tsx perf/gta-sandbox.ts [--runs N]
 *
 * Measures, N times each (interleaved so machine load hits all alike), median and p95 of:
 * - baseline: plain `/usr/bin/python3 -c pass`, no sandbox (a spawn and an interpreter start);
 * - sandbox start: `PythonSandbox.run` of an empty program (work folder, bwrap, namespaces,
 *   rlimits bootstrap, clean-up);
 * - Solver round trip: the tool's own description example through `dispatchCall` (sympy import
 *   and solve included);
 * - Plot round trip: the Plot description's example through `dispatchCall` (matplotlib import,
 *   the figure drawn and saved as PNG, copied out).
 * The ratio sandbox start / baseline is what isolation adds to starting Python.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerBuiltinPlugins } from '../src/benchmarks/builtin.js';
import { plotTool } from '../src/benchmarks/gta/tools/plot.js';
import { solverTool } from '../src/benchmarks/gta/tools/solver.js';
import { indexCatalog, loadCatalog } from '../src/catalog/index.js';
import { appRegistry, dispatchCall } from '../src/exec/index.js';
import { PythonSandbox, toolHandler } from '../src/tools/index.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const arg = (name: string) => Number(process.argv[process.argv.indexOf(name) + 1]);
const RUNS = process.argv.includes('--runs') ? arg('--runs') : 20;

const sandbox = new PythonSandbox();
const missing = sandbox.unavailable(['sympy', 'matplotlib']);
if (missing) {
  console.error(`cannot measure: ${missing}`);
  process.exit(1);
}
const outputDir = mkdtempSync(join(tmpdir(), 'apiary-perf-sandbox-'));
chmodSync(outputDir, 0o755);
const catalog = loadCatalog('gta');
const index = indexCatalog(catalog);
const apps = appRegistry([
  toolHandler(solverTool({ sandbox }), { outputDir, readable: [] }),
  toolHandler(plotTool({ sandbox }), { outputDir, readable: [] }),
]);
const example = (tool: string) => {
  const description = catalog.apis.find((a) => a.name === tool)!.description;
  return description.slice(description.indexOf('```python'));
};

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function roundTrip(tool: 'Solver' | 'Plot'): Promise<void> {
  const outcome = await dispatchCall(
    { app: tool, api: tool, args: { command: example(tool) } },
    { catalog: index, apps },
  );
  if (!outcome.ok) throw new Error(`${tool} failed: ${outcome.error.message}`);
}

const samples: Record<string, number[]> = { baseline: [], start: [], solver: [], plot: [] };
// One warm-up of each (page cache, matplotlib's font list) before measuring.
spawnSync('/usr/bin/python3', ['-c', 'pass']);
await sandbox.run({ code: '' });
await roundTrip('Solver');
await roundTrip('Plot');
for (let i = 0; i < RUNS; i++) {
  samples.baseline!.push(await timed(() => spawnSync('/usr/bin/python3', ['-c', 'pass'], { env: {} })));
  samples.start!.push(
    await timed(async () => {
      const run = await sandbox.run({ code: '' });
      if (run.exitCode !== 0) throw new Error(`empty program failed: ${run.stderr}`);
    }),
  );
  samples.solver!.push(await timed(() => roundTrip('Solver')));
  samples.plot!.push(await timed(() => roundTrip('Plot')));
}
rmSync(outputDir, { recursive: true, force: true });

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
};
const row = (label: string, xs: number[]) =>
  `  ${label.padEnd(36)} median ${quantile(xs, 0.5).toFixed(1).padStart(7)} ms   p95 ${quantile(xs, 0.95).toFixed(1).padStart(7)} ms`;

console.log(
  `GTA Python sandbox, ${RUNS} runs each (node ${process.version}, isolation ${sandbox.isolation})`,
);
console.log(row('baseline: python3 -c pass (no sandbox)', samples.baseline!));
console.log(row('sandbox start (empty program)', samples.start!));
console.log(row('Solver round trip (dispatchCall)', samples.solver!));
console.log(row('Plot round trip (dispatchCall)', samples.plot!));
console.log(
  `  sandbox start / baseline: ${(quantile(samples.start!, 0.5) / quantile(samples.baseline!, 0.5)).toFixed(1)}× (medians)`,
);
