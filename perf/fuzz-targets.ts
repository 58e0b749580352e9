/**
 * Every parser of untrusted text, with real inputs to mutate (bundled fixtures and data), for the
 * property tests (src/fuzz-parsers.test.ts) and the mutation bench (perf/fuzz-parsers.ts). The
 * contract under test: a parser returns, or throws an ApiaryError; anything else is a crash.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  type AgentProtocol,
  type AgentTool,
  freeTextProtocol,
  jsonActionProtocol,
  planLinesProtocol,
  reactProtocol,
} from '../src/agents/index.js';
import { parseAppBenchFile, readAppBenchPredictions } from '../src/benchmarks/appbench/index.js';
import { registerBuiltinPlugins } from '../src/benchmarks/builtin.js';
import { loadGtaDataset, loadGtaToolMeta, readGtaStepPredictions } from '../src/benchmarks/gta/index.js';
import {
  loadGoldShortcuts,
  loadShortcutsCategories,
  loadShortcutsQueries,
  loadSignificantParams,
  parseResultRecords,
  parseShortcutsReply,
} from '../src/benchmarks/shortcutsbench/index.js';
import { parseToolBenchQueries } from '../src/benchmarks/toolbench/index.js';
import { loadCatalog } from '../src/catalog/index.js';
import { parsePlanJson, parsePlanText, printPlanJson } from '../src/plan/index.js';
import { ApiaryError } from '../src/shared/index.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const ROOT = resolve(import.meta.dirname, '..');
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

export interface FuzzTarget {
  name: string;
  /** Real inputs the mutations start from. */
  seeds: string[];
  /** Parses one text; may return anything or throw (an ApiaryError, or it is a crash). */
  parse: (text: string) => unknown;
}

/** How one call ended: a result, a typed error, or a crash (any other exception). */
export type Outcome = 'ok' | 'typed' | 'crash';

export function outcomeOf(target: FuzzTarget, text: string): { outcome: Outcome; error?: unknown } {
  try {
    target.parse(text);
    return { outcome: 'ok' };
  } catch (error) {
    return error instanceof ApiaryError ? { outcome: 'typed' } : { outcome: 'crash', error };
  }
}

/**
 * A loader that reads files: each text is written to `rel` inside a private temp folder (set up once
 * with `files`, copies of other files the loader needs), then `load(folder)` runs.
 */
function viaFile(rel: string, load: (dir: string) => unknown, files: Record<string, string> = {}) {
  let dir: string | undefined;
  return (text: string) => {
    if (!dir) {
      dir = mkdtempSync(join(tmpdir(), 'apiary-fuzz-'));
      for (const [to, from] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, to)), { recursive: true });
        copyFileSync(join(ROOT, from), join(dir, to));
      }
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
    }
    writeFileSync(join(dir, rel), text);
    return load(dir);
  };
}

const reply = (text: string) => ({
  text,
  toolCalls: [],
  usage: { inputTokens: 0, outputTokens: 0 },
  latencyMs: 0,
});

const calculator: AgentTool = {
  name: 'Calculator',
  description: 'A calculator tool.',
  inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  app: 'gta',
  api: 'Calculator',
  parameters: [{ name: 'expression', required: true, type: 'string' }],
};

const protocolTarget = (name: string, protocol: AgentProtocol, seeds: string[]): FuzzTarget => ({
  name,
  seeds,
  parse: (text) => protocol.parse(reply(text), [calculator]),
});

const PLAN_SEEDS = [
  read('examples/car-rental.plan.txt'),
  read('src/cli/commands/__fixtures__/run-payment.plan.txt'),
  read('src/cli/commands/__fixtures__/run-restaurant.plan.txt'),
  read('src/cli/__fixtures__/bad-plan.txt'),
];
const SC = 'src/benchmarks/shortcutsbench/__fixtures__/authored';

export function fuzzTargets(): FuzzTarget[] {
  return [
    {
      name: 'plan text',
      seeds: PLAN_SEEDS,
      parse: (t) => parsePlanText(t, { source: 'fuzz.plan.txt' }),
    },
    {
      name: 'plan JSON',
      seeds: [printPlanJson(parsePlanText(PLAN_SEEDS[0]!).plan)],
      parse: (t) => parsePlanJson(t, 'fuzz.plan.json'),
    },
    protocolTarget(
      'reply: plan lines',
      planLinesProtocol({ system: '' }),
      PLAN_SEEDS.map((p) => `Here is the plan:\n\`\`\`\n${p}\n\`\`\``),
    ),
    protocolTarget('reply: ReAct', reactProtocol(), [
      'Thought: I need to compute.\nAction: Calculator\nAction Input: {"expression": "2 + 3"}',
      'Thought: done\nFinal Answer: 5',
      'Thought: x\nAction: Calculator\nAction Input: ```json\n{"expression": "(1+2)*3"}\n```',
    ]),
    protocolTarget('reply: JSON action', jsonActionProtocol({ system: '' }), [
      '{"action": "Calculator", "action_input": {"expression": "1+1"}}',
      'Sure. {"action": "Finish", "action_input": {"answer": "2"}}',
    ]),
    protocolTarget('reply: free text', freeTextProtocol({ system: '' }), ['The answer is 42.']),
    {
      name: 'reply: ShortcutsBench',
      seeds: ['{"is.workflow.actions.gettext": {"WFTextActionText": "hi", "n": 1.0}}', 'no json here'],
      parse: parseShortcutsReply,
    },
    {
      name: 'AppBench dataset file',
      seeds: ['test_ss', 'test_sm', 'test_ms', 'test_mm'].map((f) =>
        read(`examples/appbench-mini/${f}.json`),
      ),
      parse: (t) => parseAppBenchFile(t, 'test_ss.json'),
    },
    {
      name: 'AppBench predictions',
      seeds: [
        `${JSON.stringify({ id: 'ss-0', output: { reply: PLAN_SEEDS[0] } })}\n${JSON.stringify({ id: 'ss-1', output: null, error: 'timeout', epoch: 2 })}\n`,
      ],
      parse: viaFile('preds.jsonl', (d) => readAppBenchPredictions(join(d, 'preds.jsonl'))),
    },
    {
      name: 'ShortcutsBench results',
      seeds: [read(`${SC}/results.jsonl`)],
      parse: (t) => parseResultRecords(t, 'results.jsonl'),
    },
    {
      name: 'ShortcutsBench gold records',
      seeds: [read(`${SC}/1_final_detailed_records_filter_apis_leq_30.json`)],
      parse: viaFile('1_final_detailed_records_filter_apis_leq_30.json', loadGoldShortcuts),
    },
    {
      name: 'ShortcutsBench queries',
      seeds: [read(`${SC}/generated_success_queries.json`)],
      parse: viaFile('generated_success_queries.json', loadShortcutsQueries),
    },
    {
      name: 'ShortcutsBench categories',
      seeds: [read(`${SC}/generated_success_categories.json`)],
      parse: viaFile('generated_success_categories.json', loadShortcutsCategories),
    },
    {
      name: 'ShortcutsBench check-intersection',
      seeds: [read(`${SC}/json-gpt-3.5-turbo_check_intersection_of_query_and_para_necessary.json`)],
      parse: viaFile(
        'json-gpt-3.5-turbo_check_intersection_of_query_and_para_necessary.json',
        loadSignificantParams,
      ),
    },
    {
      name: 'ShortcutsBench API catalog',
      seeds: [read(`${SC}/all_api2info.json`)],
      parse: viaFile('shortcutsbench/all_api2info.json', (d) => loadCatalog('shortcuts', { dataDir: d }), {
        'shortcutsbench/all_api2paraname2paratype.json': `${SC}/all_api2paraname2paratype.json`,
      }),
    },
    {
      name: 'GTA dataset.json',
      seeds: [read('src/benchmarks/gta/__fixtures__/data/dataset.json')],
      parse: viaFile('dataset.json', (d) => loadGtaDataset(d, { checkFiles: false })),
    },
    {
      name: 'GTA toolmeta.json',
      seeds: [read('data/gta/toolmeta.json')],
      parse: viaFile('gta/toolmeta.json', (d) => {
        loadGtaToolMeta(join(d, 'gta/toolmeta.json'));
        return loadCatalog('gta', { dataDir: d });
      }),
    },
    {
      name: 'GTA step predictions',
      seeds: [
        '{"0": {"prediction": [{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "Calculator", "arguments": {"expression": "1+1"}}}]}], "gold": [{"role": "assistant", "content": "2"}]}}',
      ],
      parse: viaFile('predictions.json', (d) => readGtaStepPredictions(join(d, 'predictions.json'))),
    },
    {
      name: 'ToolBench queries',
      seeds: [
        read('src/benchmarks/toolbench/__fixtures__/queries.json'),
        read('src/benchmarks/toolbench/__fixtures__/g1-tool.json'),
      ],
      parse: (t) => parseToolBenchQueries(t, 'G1_instruction.json'),
    },
    {
      name: 'ToolBench tools',
      seeds: [read('src/benchmarks/toolbench/__fixtures__/tools.jsonl')],
      parse: viaFile('toolbench/tools.jsonl', (d) => loadCatalog('toolbench', { dataDir: d })),
    },
    {
      name: 'SGD schema.json',
      seeds: [read('data/sgd/train/schema.json')],
      parse: viaFile('sgd/train/schema.json', (d) => loadCatalog('sgd', { dataDir: d }), {
        'sgd/dev/schema.json': 'data/sgd/dev/schema.json',
        'sgd/test/schema.json': 'data/sgd/test/schema.json',
      }),
    },
  ];
}

/** Characters that break parsers: quotes, brackets, separators, escapes, controls, non-BMP. */
const NASTY = [
  '"',
  "'",
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  ',',
  ':',
  '=',
  '#',
  '\\',
  '\n',
  '\u0000',
  '\ud83d\ude00',
  '\ud800',
  ' ',
  'e',
  '-',
  '.',
  '0',
  'null',
  'NaN',
  '1e999',
  '-0',
  '__proto__',
  'constructor',
];

/**
 * One seeded mutation of `seed`: 1–4 edits among delete a span, duplicate a span, insert nasty
 * text, replace a character, truncate, nest a span thousands of levels deep, and swap a JSON value
 * for another type. `rand` in [0, 1).
 */
export function mutate(seed: string, rand: () => number): string {
  let s = seed;
  const at = () => Math.floor(rand() * (s.length + 1));
  const edits = 1 + Math.floor(rand() * 4);
  for (let e = 0; e < edits; e++) {
    const op = Math.floor(rand() * 7);
    const i = at();
    const j = Math.min(s.length, i + 1 + Math.floor(rand() * 16));
    const nasty = NASTY[Math.floor(rand() * NASTY.length)]!;
    if (op === 0) s = s.slice(0, i) + s.slice(j);
    else if (op === 1) s = s.slice(0, j) + s.slice(i, j) + s.slice(j);
    else if (op === 2) s = s.slice(0, i) + nasty + s.slice(i);
    else if (op === 3) s = s.slice(0, i) + nasty + s.slice(i + 1);
    else if (op === 4) s = s.slice(0, i);
    else if (op === 5) {
      // nesting deeper than any stack: around the whole text or a span
      const k = 2000 + Math.floor(rand() * 20_000);
      const [open, close] = rand() < 0.5 ? ['[', ']'] : ['{"a":', '}'];
      s = s.slice(0, i) + open.repeat(k) + s.slice(i, j) + close.repeat(k) + s.slice(j);
    } else {
      // a JSON value of another type where a string, number or literal stood
      const values = ['null', '[]', '{}', '0', '"x"', 'true', '-1', '1.5e308', '[[[]]]'];
      const m = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null/g;
      const spans = [...s.matchAll(m)];
      if (spans.length) {
        const span = spans[Math.floor(rand() * spans.length)]!;
        const v = values[Math.floor(rand() * values.length)]!;
        s = s.slice(0, span.index) + v + s.slice(span.index! + span[0].length);
      }
    }
  }
  return s;
}
