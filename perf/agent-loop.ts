/**
 * Agent-loop overhead per step, beyond model and tool time.
 *
 *   npx tsx perf/agent-loop.ts [--runs N] [--steps S]
 *
 * A turn taker that answers at once (one tool call per turn, then a final answer) drives
 * `runAgent` with the native-tools protocol over a real `dispatchCall` toolset (catalog lookup,
 * argument validation, permission scope, an instant in-memory app). Overhead per step =
 * (wall time − time inside the turn taker − time inside the toolset) / steps, from the loop's own
 * timings. Baseline in the same run: a hand-written loop making the same turn and dispatch calls
 * with nothing else (no protocol, no trace, no checks): the ratio shows what the runtime adds.
 * Target: ≤ 1 ms per step.
 */
import {
  catalogToolset,
  memoryAgentTrace,
  nativeToolsProtocol,
  runAgent,
  type TurnTaker,
} from '../src/agents/index.js';
import type { AppHandler } from '../src/apps/index.js';
import { type Catalog, indexCatalog, primitive } from '../src/catalog/index.js';
import { appRegistry, autoApprove, dispatchCall } from '../src/exec/index.js';

const arg = (name: string) => Number(process.argv[process.argv.indexOf(name) + 1]);
const RUNS = process.argv.includes('--runs') ? arg('--runs') : 300;
const STEPS = process.argv.includes('--steps') ? arg('--steps') : 20;

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
const index = indexCatalog(catalog);
const kv: AppHandler = { appId: 'Kv', owner: 'kv', call: async (_api, args) => [{ value: `v-${args.key}` }] };
const apps = appRegistry([kv]);
const toolset = catalogToolset(catalog.apis, { catalog: index, apps, approve: autoApprove });

/** One tool call per turn for `steps − 1` turns, then the answer. */
function instantModel(steps: number): TurnTaker {
  let t = 0;
  return async () => {
    const i = t++;
    const usage = { inputTokens: 10, outputTokens: 5 };
    return i < steps - 1
      ? {
          text: '',
          toolCalls: [{ id: `c${i}`, name: 'Kv_get', input: { key: `k${i}` }, inputText: '' }],
          usage,
          latencyMs: 0,
        }
      : { text: 'done', toolCalls: [], usage, latencyMs: 0 };
  };
}

async function runtimeRuns(): Promise<{ ms: number; overheadMs: number; steps: number }> {
  let overheadMs = 0;
  let steps = 0;
  const t0 = performance.now();
  for (let r = 0; r < RUNS; r++) {
    const res = await runAgent({
      turn: instantModel(STEPS),
      protocol: nativeToolsProtocol(),
      instruction: 'read the keys',
      toolset,
      budget: { maxSteps: STEPS + 1 },
      trace: memoryAgentTrace(),
    });
    if (res.stopReason !== 'final' || res.steps !== STEPS) throw new Error(`run ended ${res.stopReason}`);
    overheadMs += res.timings.overheadMs;
    steps += res.steps;
  }
  return { ms: performance.now() - t0, overheadMs, steps };
}

/** The same turns and dispatches with no runtime around them. */
async function bareRuns(): Promise<{ ms: number; steps: number }> {
  let steps = 0;
  const t0 = performance.now();
  for (let r = 0; r < RUNS; r++) {
    const turn = instantModel(STEPS);
    for (;;) {
      const reply = await turn({ messages: [] });
      steps++;
      if (!reply.toolCalls.length) break;
      for (const c of reply.toolCalls)
        await dispatchCall(
          { app: 'Kv', api: 'get', args: c.input as Record<string, unknown> },
          { catalog: index, apps },
        );
    }
  }
  return { ms: performance.now() - t0, steps };
}

await runtimeRuns(); // warm-up
await bareRuns();
const rt = await runtimeRuns();
const bare = await bareRuns();
const perStepRuntime = rt.ms / rt.steps;
const perStepBare = bare.ms / bare.steps;
console.log(`agent loop, ${RUNS} runs × ${STEPS} steps (node ${process.version})`);
console.log(`  runtime: ${perStepRuntime.toFixed(4)} ms per step wall (model and tool instant)`);
console.log(
  `  runtime overhead beyond model and tool time: ${(rt.overheadMs / rt.steps).toFixed(4)} ms per step`,
);
console.log(`  baseline (bare turn + dispatchCall loop): ${perStepBare.toFixed(4)} ms per step`);
console.log(
  `  runtime / baseline: ${(perStepRuntime / perStepBare).toFixed(2)}×; added per step: ${(perStepRuntime - perStepBare).toFixed(4)} ms`,
);
const ok = rt.overheadMs / rt.steps <= 1;
console.log(`target ≤ 1 ms per step: ${ok ? 'met' : 'MISSED'}`);
if (!ok) process.exitCode = 1;
