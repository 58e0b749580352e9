/**
 * Parallel execution benchmark: every MS and MM AppBench dev gold plan runs against in-memory
 * apps that take LATENCY ms per call. For each plan:
 *   - wall time with no concurrency limit vs the critical path (longest dependency chain ×
 *     latency): the executor should add < 10% (steps start as soon as their own inputs are ready);
 *   - speedup over sequential execution (concurrency 1) of the same plan, measured in the same run.
 * Each figure is the fastest of 5 executions.
 *
 *   npx tsx perf/exec-parallel.ts [dataDir] [latencyMs]
 */
import { join, resolve } from 'node:path';
import { appBenchGoldPlan, readAppBenchFile } from '../src/benchmarks/appbench/index.js';
import { registerBuiltinPlugins } from '../src/benchmarks/builtin.js';
import { indexCatalog, loadCatalog } from '../src/catalog/index.js';
import { autoApprove, executePlan, fakeHandlers, sleepFor } from '../src/exec/index.js';
import { analyzePlan, type Plan, validatePlan } from '../src/plan/index.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const dataDir = resolve(process.argv[2] ?? join(process.cwd(), '../shared/data'));
const latency = Number(process.argv[3] ?? 50);

const catalog = loadCatalog('appbench');
/** Each figure is the fastest of RUNS executions (the machine is shared: slower runs measure other load). */
const RUNS = 5;

/** Fastest wall time of RUNS executions of the plan at the given concurrency. */
async function wall(plan: Plan, concurrency: number): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const { handlers } = fakeHandlers(catalog, { latencyMs: latency });
    const t = performance.now();
    const res = await executePlan(plan, { catalog, handlers, approve: autoApprove, concurrency });
    times.push(performance.now() - t);
    if (res.status !== 'succeeded') throw new Error(`plan did not complete: ${JSON.stringify(res.steps)}`);
  }
  return Math.min(...times);
}

/** Baseline measured in the same run: the critical path as bare back-to-back sleeps (timer cost on this machine). */
async function chainBaseline(length: number): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    for (let k = 0; k < length; k++) await sleepFor(latency);
    times.push(performance.now() - t);
  }
  return Math.min(...times);
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  const index = indexCatalog(catalog);
  console.log(`exec-parallel: ${latency} ms per call, MS + MM dev gold plans from ${dataDir}`);
  const overheads: number[] = [];
  const vsBaseline: number[] = [];
  let withinBaseline = 0;
  const speedups: number[] = [];
  let within = 0;
  let skipped = 0;
  for (const cat of ['ms', 'mm']) {
    const catSpeedups: number[] = [];
    for (const [i, rec] of readAppBenchFile(join(dataDir, `appbench/dev_${cat}.json`)).entries()) {
      const { plan } = appBenchGoldPlan(rec, catalog);
      if (validatePlan(plan, index).length) {
        skipped++;
        console.log(`  dev_${cat}#${i}: gold plan invalid, skipped`);
        continue;
      }
      const { sequentialScale } = analyzePlan(plan);
      const critical = sequentialScale * latency;
      const parallel = await wall(plan, Number.POSITIVE_INFINITY);
      const sequential = await wall(plan, 1);
      const baseline = await chainBaseline(sequentialScale);
      const ratio = parallel / critical;
      overheads.push(ratio);
      vsBaseline.push(parallel / baseline);
      if (ratio <= 1.1) within++;
      if (parallel / baseline <= 1.1) withinBaseline++;
      if (ratio > 1.1)
        console.log(
          `  dev_${cat}#${i}: ${parallel.toFixed(1)} ms vs critical path ${critical} ms (${ratio.toFixed(3)}×; bare sleeps ${baseline.toFixed(1)} ms → ${(parallel / baseline).toFixed(3)}×)`,
        );
      speedups.push(sequential / parallel);
      catSpeedups.push(sequential / parallel);
    }
    console.log(
      `  ${cat.toUpperCase()}: mean speedup over sequential ${mean(catSpeedups).toFixed(2)}× (${catSpeedups.length} plans)`,
    );
  }
  console.log(`  plans run: ${overheads.length} (${skipped} invalid gold plan(s) skipped)`);
  console.log(
    `  wall / critical path: mean ${mean(overheads).toFixed(3)}×, max ${Math.max(...overheads).toFixed(3)}×; within 10%: ${within}/${overheads.length}`,
  );
  console.log(
    `  wall / same chain of bare sleeps (measured baseline): mean ${mean(vsBaseline).toFixed(3)}×, max ${Math.max(...vsBaseline).toFixed(3)}×; within 10%: ${withinBaseline}/${vsBaseline.length}`,
  );
  console.log(`  mean speedup over sequential (concurrency 1): ${mean(speedups).toFixed(2)}×`);
  if (withinBaseline < vsBaseline.length) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
