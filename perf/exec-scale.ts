/**
 * Executor at scale: 10,000-call plans on a synthetic catalog with in-memory handlers.
 *
 *   1. Wall time (fastest of ROUNDS) vs the critical path (depth × latency) for two shapes, no
 *      concurrency limit:
 *      - chains: CHAINS independent chains of DEPTH calls (each call takes the previous output);
 *      - lattice: DEPTH levels of CHAINS calls, each call taking outputs of two calls of the level
 *        before (wide levels with cross dependencies).
 *      Also against CHAINS parallel chains of DEPTH bare sleeps measured in this run (the timers
 *      alone, no executor), and the executor's own delay on every dependency edge: from the end of
 *      a handler call to the start of the call that waited for it. Target: wall / critical path ≤ 1.02×.
 *   2. Scheduler + dispatch cost per step: the chains plan with handlers that answer at once.
 *   3. dispatchCall overhead per call with an instant handler, against calling the handler
 *      directly in the same run (sequential awaits, best of ROUNDS).
 * Warnings (e.g. MaxListenersExceeded on the run's signal) are counted and reported.
 *
 *   npx tsx perf/exec-scale.ts [latencyMs=50] [chains=100] [depth=100]
 */
import type { AppHandler } from '../src/apps/index.js';
import { type Api, type Catalog, indexCatalog, primitive } from '../src/catalog/index.js';
import { appRegistry, dispatchCall, executePlan, sleepFor } from '../src/exec/index.js';
import { analyzePlan, literal, type Plan, ref, type Step } from '../src/plan/index.js';

const latency = Number(process.argv[2] ?? 50);
const chains = Number(process.argv[3] ?? 100);
const depth = Number(process.argv[4] ?? 100);
const APPS = 10;
const ROUNDS = 3;
const DISPATCHES = 100_000;

let warnings = 0;
process.on('warning', (w) => {
  warnings++;
  console.log(`  warning: ${w.name}: ${w.message}`);
});

/** APPS apps with one API each: `work(a?, b?) → out`. */
function syntheticCatalog(): Catalog {
  const apps = Array.from({ length: APPS }, (_, i) => ({
    id: `App${i}`,
    name: `App ${i}`,
    description: 'synthetic',
    owner: `app:App${i}`,
  }));
  const apis: Api[] = apps.map((app) => ({
    id: `${app.id}.work`,
    app: app.id,
    name: 'work',
    description: 'synthetic work',
    transactional: false,
    parameters: [
      { name: 'a', type: primitive('string'), required: false },
      { name: 'b', type: primitive('string'), required: false },
    ],
    outputs: [{ name: 'out', type: primitive('string') }],
  }));
  return { name: 'scale', apps, apis };
}

const catalog = indexCatalog(syntheticCatalog());

/** Edge delays of the last run (ms): handler end of a producer → handler start of its consumer. */
let gaps: number[] = [];
/** First handler start and last handler end of the last run (performance.now()). */
let firstStart = 0;
let lastEnd = 0;

/**
 * Handlers that wait `ms` (honouring the signal; none when 0) and answer one row whose `out` is
 * unique per step (`a` + "+"), so a call knows when the calls it takes values from ended.
 */
function handlers(ms: number): AppHandler[] {
  const endedAt = new Map<unknown, number>();
  gaps = [];
  firstStart = 0;
  return catalog.catalog.apps.map((app) => ({
    appId: app.id,
    owner: app.owner,
    async call(_api, args, ctx) {
      const started = performance.now();
      firstStart ||= started;
      const inputsReady = Math.max(endedAt.get(args.a) ?? -1, endedAt.get(args.b) ?? -1);
      if (inputsReady >= 0) gaps.push(started - inputsReady);
      if (ms > 0) await sleepFor(ms, ctx.signal);
      const out = `${args.a}+`;
      lastEnd = performance.now();
      endedAt.set(out, lastEnd);
      return [{ out }];
    },
  }));
}

const work = (id: string, i: number, args: Step['args']): Step => ({
  id,
  app: `App${i % APPS}`,
  api: 'work',
  args,
  outputs: ['out'],
});

function chainsPlan(): Plan {
  const steps: Step[] = [];
  for (let c = 0; c < chains; c++)
    for (let k = 0; k < depth; k++)
      steps.push(
        work(`c${c}.${k}`, c, k === 0 ? { a: literal(`chain ${c}`) } : { a: ref(`c${c}.${k - 1}`, 'out') }),
      );
  return { steps };
}

function latticePlan(): Plan {
  const steps: Step[] = [];
  for (let k = 0; k < depth; k++)
    for (let i = 0; i < chains; i++)
      steps.push(
        work(
          `l${k}.${i}`,
          i,
          k === 0
            ? { a: literal(`cell ${i}`) }
            : { a: ref(`l${k - 1}.${i}`, 'out'), b: ref(`l${k - 1}.${(i + 1) % chains}`, 'out') },
        ),
      );
  return { steps };
}

/** Of the last run: before the first call (validation, setup) and after the last (results). */
let setupMs = 0;
let teardownMs = 0;

async function timeRun(plan: Plan, ms: number): Promise<number> {
  const ctrl = new AbortController(); // a caller's signal, as the CLI passes one
  const t = performance.now();
  const res = await executePlan(plan, {
    catalog,
    handlers: handlers(ms),
    concurrency: Number.POSITIVE_INFINITY,
    signal: ctrl.signal,
  });
  const end = performance.now();
  const wall = end - t;
  setupMs = firstStart - t;
  teardownMs = end - lastEnd;
  if (res.status !== 'succeeded')
    throw new Error(`run ${res.status}: ${JSON.stringify(res.steps.find((s) => s.error))}`);
  return wall;
}

async function fastest(rounds: number, run: () => Promise<number>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) best = Math.min(best, await run());
  return best;
}

/** `width` chains of `length` back-to-back sleeps at once, each with its own signal as a handler gets. */
async function bareSleeps(width: number, length: number): Promise<number> {
  const t = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let k = 0; k < length; k++) await sleepFor(latency, new AbortController().signal);
    }),
  );
  return performance.now() - t;
}

function summary(xs: number[]): string {
  const sorted = [...xs].sort((a, b) => a - b);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const p99 = sorted[Math.floor(0.99 * (sorted.length - 1))]!;
  return `mean ${(mean * 1000).toFixed(0)} µs, p99 ${(p99 * 1000).toFixed(0)} µs`;
}

async function perCall(n: number, call: () => Promise<unknown>): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    for (let k = 0; k < n; k++) await call();
    best = Math.min(best, performance.now() - t);
  }
  return (best * 1000) / n; // µs per call
}

async function main(): Promise<void> {
  const shapes: Array<[string, Plan]> = [
    [`chains ${chains}×${depth}`, chainsPlan()],
    [`lattice ${depth} levels × ${chains} wide`, latticePlan()],
  ];
  console.log(`exec-scale: ${latency} ms per call, Node ${process.version}`);

  for (const [name, plan] of shapes) {
    const { sequentialScale } = analyzePlan(plan);
    const critical = sequentialScale * latency;
    let bestGaps: number[] = [];
    let wall = Number.POSITIVE_INFINITY;
    let edges = '';
    for (let r = 0; r < ROUNDS; r++) {
      const w = await timeRun(plan, latency);
      if (w < wall)
        [wall, bestGaps, edges] = [
          w,
          gaps,
          `setup ${setupMs.toFixed(0)} ms, results ${teardownMs.toFixed(0)} ms`,
        ];
    }
    const baseline = await fastest(ROUNDS, () => bareSleeps(chains, sequentialScale));
    console.log(
      `  ${name}: ${plan.steps.length} calls, depth ${sequentialScale}: wall ${wall.toFixed(0)} ms / critical path ${critical} ms = ${(wall / critical).toFixed(3)}×; / ${chains} parallel chains of ${sequentialScale} bare sleeps ${baseline.toFixed(0)} ms = ${(wall / baseline).toFixed(3)}×; executor delay per dependency edge: ${summary(bestGaps)}; before the first call / after the last: ${edges}`,
    );
  }

  const plan = shapes[0]![1];
  await timeRun(plan, 0); // warm-up
  const best = await fastest(ROUNDS, () => timeRun(plan, 0));
  console.log(
    `  instant handlers, ${plan.steps.length} steps: ${best.toFixed(0)} ms → ${((best * 1000) / plan.steps.length).toFixed(1)} µs per step (validation, scheduling, dispatch, outputs)`,
  );

  const [handler] = handlers(0);
  const apps = appRegistry([handler!]);
  const args = { a: 'x', b: 'y' };
  const request = { app: 'App0', api: 'work', args };
  const callCtx = { caller: 'app:App0' };
  await perCall(DISPATCHES, () => handler!.call('work', args, callCtx)); // warm-up
  await perCall(DISPATCHES, () => dispatchCall(request, { catalog, apps }));
  const direct = await perCall(DISPATCHES, () => handler!.call('work', args, callCtx));
  const dispatched = await perCall(DISPATCHES, () => dispatchCall(request, { catalog, apps }));
  const unchecked = await perCall(DISPATCHES, () =>
    dispatchCall(request, { catalog, apps, validate: false }),
  );
  console.log(
    `  dispatchCall, instant handler (${DISPATCHES} sequential calls, best of ${ROUNDS}): ${dispatched.toFixed(2)} µs/call (validate: false ${unchecked.toFixed(2)} µs) vs handler called directly ${direct.toFixed(2)} µs → ${(dispatched / direct).toFixed(1)}× (${(dispatched - direct).toFixed(2)} µs overhead per call)`,
  );
  console.log(`  process warnings: ${warnings}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
