/**
 * A local GGUF model in process: load time, tokens/s, ms per constrained tool call, and the
 * format-error rate with grammars on vs off for each protocol.
 *
 *   npx tsx perf/local-model.ts [--model gguf:PATH] [--threads N] [--n 20]
 *
 * Without --model it writes the tiny random test model (src/test/tiny-gguf.ts, seed 1): its text is
 * noise, so "off" shows what a model that ignores the format does, and "on" what the grammar makes
 * of it. Direct calls (N seeded generations, temperature 0.8): native tool calls (one of two tools,
 * arguments validated with Ajv against the tool's schema) and a JSON response format (Ajv). Whole
 * evals (`evaluate`, task defaults, first sample per category): AppBench flat plan lines (format
 * error rate), GTA step ReAct (replies Lagent's parser refuses / replies), ShortcutsBench JSON actions (replies
 * traced as json_error / replies). Each model call is timed from the caller.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { evaluate } from '../src/index.js';
import { createLocalModel, generate } from '../src/models/index.js';
import { writeTinyGguf } from '../src/test/index.js';

const flag = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const N = Number(flag('--n') ?? 20);
const threads = Number(flag('--threads') ?? availableParallelism());
const dir = mkdtempSync(join(tmpdir(), 'apiary-perf-local-'));
const given = flag('--model');
const path = given ? resolve(given.replace(/^gguf:/, '')) : join(dir, 'tiny.gguf');
if (!given) writeTinyGguf(path, { seed: 1 });
const ROOT = resolve(import.meta.dirname, '..');

const fmt = (x: number, d = 1) => x.toFixed(d);
console.log(
  `model ${path}${given ? '' : ' (tiny random, seed 1)'}; threads ${threads}; load average ${loadavg()[0]!.toFixed(2)}`,
);

// 1. load: the binding, the weights, one context
let t = performance.now();
const loaded = await createLocalModel({ path, threads }).load();
console.log(
  `load: ${fmt(performance.now() - t, 0)} ms (node-llama-cpp's binding, the weights, a ${loaded.settings.contextSize}-token context)`,
);
const model = (constrain: boolean) => createLocalModel({ path, threads, constrain });

// 2. tokens/s: prompt processing and generation, unconstrained
{
  const words = 'the quick brown fox jumps over the lazy dog '.repeat(60);
  let promptTokens = 0;
  let promptMs = 0;
  let outTokens = 0;
  let outMs = 0;
  for (let i = 0; i < 3; i++) {
    t = performance.now();
    const p = await generate({
      model: model(false),
      messages: [{ role: 'user', content: `${i} ${words}` }],
      settings: { maxOutputTokens: 1, temperature: 0 },
    });
    promptMs += performance.now() - t;
    promptTokens += p.usage.inputTokens;
    t = performance.now();
    const g = await generate({
      model: model(false),
      messages: [{ role: 'user', content: `${i} hello` }],
      settings: { maxOutputTokens: 128, temperature: 0 },
    });
    outMs += performance.now() - t;
    outTokens += g.usage.outputTokens;
  }
  console.log(
    `prompt: ${fmt((promptTokens / promptMs) * 1000, 0)} tokens/s (${promptTokens / 3} tokens); generation: ${fmt((outTokens / outMs) * 1000, 0)} tokens/s`,
  );
}

// 3. direct calls: tool calls and JSON under grammars, on vs off
const ajv = new Ajv({ strict: false });
const TOOLS = {
  book_table: {
    description: 'reserve a table',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', enum: ['Paris', 'Rome', 'Berlin'] },
        people: { type: 'integer', minimum: 1, maximum: 12 },
        time: { type: 'string', pattern: '^[0-2][0-9]:[0-5][0-9]$' },
        note: { type: 'string', maxLength: 40 },
      },
      required: ['city', 'people', 'time'],
      additionalProperties: false,
    },
  },
  find_trains: {
    description: 'search trains',
    inputSchema: {
      type: 'object',
      properties: { from: { type: 'string', maxLength: 20 }, to: { type: 'string', maxLength: 20 } },
      required: ['from', 'to'],
      additionalProperties: false,
    },
  },
} as const;
const validators = Object.fromEntries(Object.entries(TOOLS).map(([k, v]) => [k, ajv.compile(v.inputSchema)]));
const JSON_SCHEMA = {
  type: 'object',
  properties: {
    answer: { type: 'string', maxLength: 30 },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
  },
  required: ['answer', 'confidence'],
  additionalProperties: false,
};
const validJson = ajv.compile(JSON_SCHEMA);

for (const constrain of [true, false]) {
  let valid = 0;
  let ms = 0;
  for (let i = 0; i < N; i++) {
    t = performance.now();
    const out = await generate({
      model: model(constrain),
      messages: [{ role: 'user', content: 'Book a table for 4 in Rome at 19:30' }],
      tools: TOOLS,
      toolChoice: 'required',
      settings: { temperature: 0.8, seed: i, maxOutputTokens: 256 },
    });
    ms += performance.now() - t;
    const c = out.toolCalls[0];
    if (out.toolCalls.length === 1 && c && !c.invalid && validators[c.name]?.(c.input)) valid++;
  }
  let jsonValid = 0;
  let jsonMs = 0;
  for (let i = 0; i < N; i++) {
    t = performance.now();
    const r = await model(constrain).doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Answer as JSON.' }] }],
      responseFormat: { type: 'json', schema: JSON_SCHEMA as never },
      temperature: 0.8,
      seed: i,
      maxOutputTokens: 128,
    });
    jsonMs += performance.now() - t;
    const text = r.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
    try {
      if (validJson(JSON.parse(text))) jsonValid++;
    } catch {}
  }
  console.log(
    `constraints ${constrain ? 'on ' : 'off'}: native tool calls ${fmt((100 * (N - valid)) / N)}% format errors (${N - valid}/${N}), ${fmt(ms / N, 0)} ms per call; ` +
      `JSON schema ${fmt((100 * (N - jsonValid)) / N)}% (${N - jsonValid}/${N}), ${fmt(jsonMs / N, 0)} ms per call`,
  );
}

// 4. whole evals: each benchmark protocol through its own solver
const local = (constrain: boolean) => ({ kind: 'local' as const, path, threads, constrain });
const run = async (name: string, recipe: Parameters<typeof evaluate>[0]) => {
  t = performance.now();
  const result = await evaluate(recipe, { outDir: join(dir, name), checkEndpoint: false });
  return { result, ms: performance.now() - t, outDir: join(dir, name) };
};
const lines = (outDir: string) =>
  readFileSync(join(outDir, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((r) => 'output' in r);

for (const constrain of [true, false]) {
  const on = constrain ? 'on ' : 'off';
  const flat = await run(`flat-${on}`, {
    task: 'appbench',
    solver: 'flat',
    model: local(constrain),
    limit: 1,
  });
  const rate = (flat.result.summary as { report: { corrected: { formatErrorRate: number } } }).report
    .corrected.formatErrorRate;
  const gta = await run(`gta-${on}`, {
    task: 'gta',
    solver: 'react',
    taskOptions: { mode: 'step' },
    dataDir: join(ROOT, 'src/benchmarks/gta/__fixtures__/data'),
    model: local(constrain),
    limit: 1,
  });
  // Lagent's parser answers a reply it cannot read with "Please follow the format"
  const gtaReplies = lines(gta.outDir).flatMap(
    (r) =>
      JSON.parse((r.output as { predictionJson: string }).predictionJson) as Array<{
        error?: { msg?: string };
      }>,
  );
  const gtaFormat = gtaReplies.filter((m) => m.error?.msg === 'Please follow the format').length;
  const sc = await run(`shortcuts-${on}`, {
    task: 'shortcuts',
    taskOptions: { levels: [1] },
    dataDir: join(ROOT, 'src/benchmarks/shortcutsbench/__fixtures__/authored'),
    model: local(constrain),
    limit: 2,
  });
  const replies = lines(sc.outDir).flatMap(
    (r) =>
      ((r.output as { trace?: Array<{ state: string }> } | null)?.trace ?? []) as Array<{ state: string }>,
  );
  const jsonErrors = replies.filter((x) => x.state === 'json_error').length;
  console.log(
    `constraints ${on}: AppBench flat ${fmt(100 * rate)}% format errors (${flat.result.summary.records} samples, ${fmt(flat.ms / 1000)} s); ` +
      `GTA step ReAct ${gtaFormat}/${gtaReplies.length} format errors (${fmt(gta.ms / 1000)} s); ` +
      `ShortcutsBench ${jsonErrors}/${replies.length} JSON-action errors (${fmt(sc.ms / 1000)} s)`,
  );
}
