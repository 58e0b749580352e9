/**
 * Median Solver round trip (`dispatchCall`, the description's example) over N calls:
 *   npx tsx perf/solver-median.ts [--runs 50]
 * Used to check what the sandbox's isolation adds to a Solver call (target ≤ 10%).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexCatalog, loadCatalog } from '../src/catalog/index.js';
import { appRegistry, dispatchCall } from '../src/exec/index.js';
import { PythonSandbox, solverTool, toolHandler } from '../src/tools/index.js';

const runs = process.argv.includes('--runs') ? Number(process.argv[process.argv.indexOf('--runs') + 1]) : 50;
const sandbox = new PythonSandbox();
const outputDir = mkdtempSync(join(tmpdir(), 'apiary-perf-solver-'));
chmodSync(outputDir, 0o755);
const catalog = loadCatalog('gta');
const apps = appRegistry([toolHandler(solverTool({ sandbox }), { outputDir })]);
const description = catalog.apis.find((a) => a.name === 'Solver')!.description;
const command = description.slice(description.indexOf('```python'));
const times: number[] = [];
for (let i = 0; i < runs + 2; i++) {
  const t0 = performance.now();
  const outcome = await dispatchCall(
    { app: 'Solver', api: 'Solver', args: { command } },
    { catalog: indexCatalog(catalog), apps },
  );
  if (!outcome.ok) throw new Error(outcome.error.message);
  if (i >= 2) times.push(performance.now() - t0); // two warm-up calls
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)]!;
console.log(
  `Solver: median ${median.toFixed(1)} ms over ${runs} calls (min ${times[0]!.toFixed(1)}, max ${times.at(-1)!.toFixed(1)})`,
);
rmSync(outputDir, { recursive: true, force: true });
