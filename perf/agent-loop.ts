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
 *
 * Then, side by side with the AI SDK's own loop (`generateText` + tools + `stopWhen`): the same
 * `MockLanguageModelV3` (`ai/test`, answering at once: k tool calls, then the answer) drives, in
 * the same run, `runAgent` through `modelTurns` (the path a real model takes) with a no-op toolset,
 * and `generateText` with the same tool executing as a no-op. Wall time per step, model time
 * included for both, at k = 1, 10 and 100 calls: the per-step cost must not grow with the
 * conversation. Target: runAgent / AI SDK ≤ 1.0 per step at k = 100.
 */
import { loadavg } from 'node:os';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import {
  type AgentTool,
  catalogToolset,
  memoryAgentTrace,
  modelTurns,
  nativeToolsProtocol,
  runAgent,
  type Toolset,
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

// ---- side by side with the AI SDK loop ----

// a plain object (not `as const`: the AI SDK's JSON Schema type wants a mutable `required`)
const KEY_SCHEMA = {
  type: 'object' as const,
  properties: { key: { type: 'string' as const } },
  required: ['key'],
  additionalProperties: false,
};
type MockAnswer = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
const mockUsage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A mock provider model: `calls` turns with one `Kv_get` call each, then the answer. */
function mockModel(calls: number): MockLanguageModelV3 {
  let t = 0;
  return new MockLanguageModelV3({
    doGenerate: async (): Promise<MockAnswer> => {
      const i = t++;
      return i < calls
        ? {
            content: [
              { type: 'tool-call', toolCallId: `c${i}`, toolName: 'Kv_get', input: `{"key":"k${i}"}` },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage: mockUsage,
            warnings: [],
          }
        : {
            content: [{ type: 'text', text: 'done' }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: mockUsage,
            warnings: [],
          };
    },
  });
}

const kvTool: AgentTool = {
  name: 'Kv_get',
  description: 'read a key',
  inputSchema: KEY_SCHEMA,
  app: 'Kv',
  api: 'get',
  parameters: [{ name: 'key', required: true, type: 'string' }],
};
/** The no-op tool as a toolset: answers at once, nothing checked. */
const noopToolset: Toolset = {
  tools: [kvTool],
  run: async () => ({
    ok: true,
    content: [{ type: 'text', text: 'v' }],
    raw: { value: 'v' },
    transactional: false,
    durationMs: 0,
  }),
};

async function runtimeLoop(calls: number): Promise<number> {
  const res = await runAgent({
    turn: modelTurns(mockModel(calls)),
    protocol: nativeToolsProtocol({ askUser: false }),
    instruction: 'read the keys',
    toolset: noopToolset,
    budget: { maxSteps: calls + 1, maxIdenticalCalls: calls + 1 },
    trace: memoryAgentTrace(),
  });
  if (res.stopReason !== 'final' || res.steps !== calls + 1) throw new Error(`run ended ${res.stopReason}`);
  return res.steps;
}

async function sdkLoop(calls: number): Promise<number> {
  const res = await generateText({
    model: mockModel(calls),
    system: 'You are an assistant that acts through tools.',
    messages: [{ role: 'user', content: 'read the keys' }],
    tools: {
      Kv_get: tool({
        description: 'read a key',
        inputSchema: jsonSchema(KEY_SCHEMA),
        execute: async () => 'v',
      }),
    },
    stopWhen: stepCountIs(calls + 1),
    maxRetries: 0,
  });
  if (res.text !== 'done' || res.steps.length !== calls + 1)
    throw new Error('the AI SDK loop did not finish');
  return res.steps.length;
}

/** Wall ms per step over enough runs for about `budgetSteps` steps. */
async function perStep(loop: (calls: number) => Promise<number>, calls: number, budgetSteps: number) {
  const runs = Math.max(3, Math.ceil(budgetSteps / (calls + 1)));
  let steps = 0;
  const t0 = performance.now();
  for (let r = 0; r < runs; r++) steps += await loop(calls);
  return (performance.now() - t0) / steps;
}

const SIDE_STEPS = process.argv.includes('--side-steps') ? arg('--side-steps') : 4000;
console.log(
  `\nside by side with the AI SDK loop (MockLanguageModelV3, no-op tool, model time included; load average ${loadavg()[0]!.toFixed(1)})`,
);
console.log(
  `  ${'k calls'.padEnd(8)} ${'runAgent ms/step'.padStart(17)} ${'AI SDK ms/step'.padStart(15)} ${'ratio'.padStart(6)}`,
);
let ratioAt100 = Number.NaN;
for (const k of [1, 10, 100]) {
  for (const loop of [runtimeLoop, sdkLoop]) await perStep(loop, k, SIDE_STEPS / 4); // warm-up
  // interleaved halves: drift in machine load hits both loops alike
  const a1 = await perStep(runtimeLoop, k, SIDE_STEPS / 2);
  const b1 = await perStep(sdkLoop, k, SIDE_STEPS / 2);
  const a2 = await perStep(runtimeLoop, k, SIDE_STEPS / 2);
  const b2 = await perStep(sdkLoop, k, SIDE_STEPS / 2);
  const a = (a1 + a2) / 2;
  const b = (b1 + b2) / 2;
  if (k === 100) ratioAt100 = a / b;
  console.log(
    `  ${String(k).padEnd(8)} ${a.toFixed(4).padStart(17)} ${b.toFixed(4).padStart(15)} ${(a / b).toFixed(2).padStart(5)}×`,
  );
}
const okSide = ratioAt100 <= 1;
console.log(`target runAgent / AI SDK ≤ 1.0 per step at k = 100: ${okSide ? 'met' : 'MISSED'}`);
if (!okSide) process.exitCode = 1;
