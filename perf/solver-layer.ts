/**
 * What the solver layer (src/tasks/solver.ts: a task's `solver` over a sample's state, `chain`,
 * `solveSample`) adds per sample, against a checkout from before it (`task.solve`/`task.score`):
 * both checkouts' harness step `solveAndScore` interleaved round by round in one process.
 *
 *   git archive <old commit> | tar -x -C /tmp/old && ln -s $PWD/node_modules /tmp/old/node_modules
 *   npx tsx perf/solver-layer.ts /tmp/old .
 *
 * Rows: a constant task (the layer alone: one step, and a three-step chain in the new checkout),
 * and the AppBench baseline solver on the 8 mini samples as the registry loads it (the real path).
 */
import { resolve } from 'node:path';

type Run = (i: number) => Promise<unknown>;
interface Checkout {
  constant: Run;
  chained?: Run;
  appbench: Run;
}

const load = async (root: string): Promise<Checkout> => {
  const tasks = await import(`${root}/src/tasks/index.ts`);
  const { solveAndScore } = await import(`${root}/src/harness/sample-runner.ts`);
  const samples = Array.from({ length: 64 }, (_, i) => ({ id: `s-${i}` }));
  const ctx = { seed: 0 };
  const score = (_s: unknown, o: { output: unknown }) => (o.output ? 1 : 0);
  const layered = typeof tasks.sampleSolver === 'function';
  const constantTask = layered
    ? {
        name: 'c',
        solver: tasks.sampleSolver(async (s: { id: string }) => ({ output: s.id, modelCalls: 0 })),
        scorer: score,
      }
    : { name: 'c', solve: async (s: { id: string }) => ({ output: s.id, modelCalls: 0 }), score };
  const step = async (state: { sample: { id: string } }) =>
    tasks.withOutput(state, { output: state.sample.id, modelCalls: 0 });
  const chainedTask = layered
    ? { name: 'c', solver: tasks.chain(step, step, step), scorer: score }
    : undefined;
  // before the plugins: tasks/builtin.ts; after: the built-in plugins load their tasks into a registry
  const registry =
    typeof tasks.registerBuiltinTasks === 'function'
      ? tasks.registerBuiltinTasks(new tasks.TaskRegistry())
      : await (await import(`${root}/src/benchmarks/builtin.ts`))
          .registerBuiltinPlugins()
          .loadTasks(new tasks.TaskRegistry());
  const def = registry.get('appbench');
  const loaded = await def.load({
    options: {},
    solver: 'baseline',
    solverOptions: {},
    sampling: {},
    dataDir: resolve(root, 'examples/appbench-mini'),
    seed: 0,
  });
  const mini = loaded.task.dataset;
  return {
    constant: (i) => solveAndScore(constantTask, samples[i % samples.length], ctx),
    ...(chainedTask
      ? { chained: (i: number) => solveAndScore(chainedTask, samples[i % samples.length], ctx) }
      : {}),
    appbench: (i) => solveAndScore(loaded.task, mini[i % mini.length], ctx),
  };
};

const [before, after] = [process.argv[2], process.argv[3]].map((dir) => resolve(dir ?? '.'));
const checkouts = { old: await load(before!), new: await load(after!) };

/** CPU µs (user + system) per call of `n` calls in a row: less sensitive than wall time to other processes. */
async function cpuMicros(run: Run, n: number): Promise<number> {
  const c = process.cpuUsage();
  for (let i = 0; i < n; i++) await run(i);
  const u = process.cpuUsage(c);
  return (u.user + u.system) / n;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const rows: Array<[string, Run, Run, number]> = [
  ['constant task, one step', checkouts.old.constant, checkouts.new.constant, 20_000],
  [
    'constant task, 3-step chain (new) vs one solve (old)',
    checkouts.old.constant,
    checkouts.new.chained!,
    20_000,
  ],
  ['AppBench baseline, mini samples', checkouts.old.appbench, checkouts.new.appbench, 400],
];
const ROUNDS = 21;
console.log(
  '| per sample (solveAndScore), CPU µs, median of rounds | old | new | new/old |\n|---|---|---|---|',
);
for (const [name, oldRun, newRun, n] of rows) {
  const t = { old: [] as number[], new: [] as number[] };
  for (let r = 0; r < ROUNDS + 2; r++) {
    // ABBA: neither checkout always runs first (warm caches, GC debt)
    const order = r % 2 ? (['old', 'new'] as const) : (['new', 'old'] as const);
    for (const which of order) {
      const x = await cpuMicros(which === 'old' ? oldRun : newRun, n);
      if (r >= 2) t[which].push(x);
    }
  }
  const [mo, mn] = [median(t.old), median(t.new)];
  console.log(`| ${name} | ${mo.toFixed(2)} | ${mn.toFixed(2)} | ${(mn / mo).toFixed(2)} |`);
}
