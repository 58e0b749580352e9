/**
 * What a change to the sandbox adds to a Solver call: two checkouts' Solver calls interleaved one
 * by one in one process (the same machine load hits both), median of 50 each.
 *
 *   git archive <old commit> | tar -x -C /tmp/old && ln -s $PWD/node_modules /tmp/old/node_modules
 *   npx tsx perf/solver-overhead.ts /tmp/old .
 */
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const outputDirs: string[] = [];
const load = async (root: string) => {
  const { indexCatalog, loadCatalog } = await import(`${root}/src/catalog/index.ts`);
  const { appRegistry, dispatchCall } = await import(`${root}/src/exec/index.ts`);
  const { PythonSandbox, toolHandler } = await import(`${root}/src/tools/index.ts`);
  // since issue 25 GTA's tools live in its plugin, and the built-in catalogs are registered by it
  const moved = existsSync(`${root}/src/benchmarks/gta/tools/solver.ts`);
  const { solverTool } = await import(
    moved ? `${root}/src/benchmarks/gta/tools/solver.ts` : `${root}/src/tools/index.ts`
  );
  if (existsSync(`${root}/src/benchmarks/builtin.ts`))
    (await import(`${root}/src/benchmarks/builtin.ts`)).registerBuiltinPlugins();
  const outputDir = mkdtempSync(join(tmpdir(), 'apiary-perf-solver-'));
  outputDirs.push(outputDir);
  chmodSync(outputDir, 0o755);
  const catalog = loadCatalog('gta');
  const index = indexCatalog(catalog);
  const apps = appRegistry([toolHandler(solverTool({ sandbox: new PythonSandbox() }), { outputDir })]);
  const d = catalog.apis.find((a: { name: string }) => a.name === 'Solver').description as string;
  const command = d.slice(d.indexOf('```python'));
  return async () => {
    const t = performance.now();
    const o = await dispatchCall(
      { app: 'Solver', api: 'Solver', args: { command } },
      { catalog: index, apps },
    );
    if (!o.ok) throw new Error(o.error.message);
    return performance.now() - t;
  };
};
const [before, after] = [process.argv[2], process.argv[3]].map((dir) => resolve(dir ?? '.'));
const modes: Record<string, () => Promise<number>> = { old: await load(before!), new: await load(after!) };
const t: Record<string, number[]> = { old: [], new: [] };
for (let i = 0; i < 52; i++)
  for (const m of ['old', 'new']) {
    const x = await modes[m]!();
    if (i >= 2) t[m]!.push(x);
  }
for (const m of ['old', 'new']) {
  const a = t[m]!.sort((x, y) => x - y);
  console.log(m, 'median', a[25]!.toFixed(1), 'min', a[0]!.toFixed(1));
}
console.log('overhead', ((t.new![25]! / t.old![25]! - 1) * 100).toFixed(1), '%');
for (const dir of outputDirs) rmSync(dir, { recursive: true, force: true });
