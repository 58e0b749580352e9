import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentTool, parseReactArguments, parseReactReply } from '../../agents/index.js';
import type { TurnRequest } from '../../agents/runtime/types.js';
import { type GrammarJudge, loadGrammarJudge } from '../../models/grammar/__fixtures__/llama-judge.js';
import { reactArgumentsSchema, reactConstraint, reactGrammar } from './react-grammar.js';
import { runGtaStepMode } from './step-solver.js';
import type { GtaToolMeta } from './toolmeta.js';

const tool = (name: string, inputSchema: Record<string, unknown>): AgentTool => {
  const props = (inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const required = new Set((inputSchema.required ?? []) as string[]);
  return {
    name,
    description: name,
    inputSchema,
    app: name,
    api: name,
    parameters: Object.keys(props).map((p) => ({
      name: p,
      required: required.has(p),
      type: props[p]!.type ?? 'string',
    })),
  };
};

/** End-to-end tools: schemas with an enum, a pattern, integer and number ranges and optional fields. */
const tools: AgentTool[] = [
  tool('ImageDescription', {
    type: 'object',
    properties: { image: { type: 'string', pattern: '^image/[a-z]{1,6}\\.(jpg|png)$' } },
    required: ['image'],
  }),
  tool('Calculator', {
    type: 'object',
    properties: {
      expression: { type: 'string', maxLength: 8 },
      precision: { type: 'integer', minimum: 0, maximum: 6 },
      unit: { type: 'string', enum: ['m', 'km', 'mile'] },
      scale: { type: 'number', minimum: 0.5, maximum: 4 },
    },
    required: ['expression'],
  }),
];

let judge: GrammarJudge;
beforeAll(async () => {
  judge = await loadGrammarJudge();
}, 30_000);
afterAll(async () => {
  await judge?.dispose();
});

describe("GTA's ReAct grammar", () => {
  it('100 seeded generations of the tiny model: each reply is an action of an offered tool with valid arguments, or a final answer', async () => {
    const grammar = reactGrammar(tools, { maxStringLength: 8, maxThoughtLength: 24, maxAnswerLength: 24 });
    const outputs = await judge.generate(grammar, { count: 100, seed: 1, maxTokens: 200, temperature: 0.9 });
    const ajv = new Ajv({ strict: false });
    const failures: string[] = [];
    const kinds = { action: 0, finish: 0, 'no-action': 0 };
    for (const text of outputs) {
      // Lagent's parser, as the protocol reads the reply
      const parsed = parseReactReply(text);
      kinds[parsed.kind]++;
      if (parsed.kind === 'no-action') failures.push(`no action: ${text}`);
      if (parsed.kind === 'finish' && parsed.answer.trim() === '') failures.push(`empty answer: ${text}`);
      if (parsed.kind !== 'action') continue;
      const t = tools.find((x) => x.name === parsed.name);
      if (!t) {
        failures.push(`unknown tool: ${text}`);
        continue;
      }
      const args = parseReactArguments(parsed.input, t);
      if ('error' in args) failures.push(`${args.error}: ${text}`);
      else if (!ajv.validate(t.inputSchema, args.args)) failures.push(`${ajv.errorsText()}: ${text}`);
    }
    expect(failures).toEqual([]);
    expect(kinds['no-action']).toBe(0);
    expect(kinds.action + kinds.finish).toBe(100);
    expect(kinds.action).toBeGreaterThan(0);
  }, 60_000);

  it('accepts the official shapes, refuses other tools, bad arguments and markers inside the thought', async () => {
    const grammar = reactGrammar(tools);
    const texts = {
      action: 'Thought:I need the picture\nAction:ImageDescription\nAction Input:{"image": "image/cat.jpg"}',
      optional: 'Thought:\nAction:Calculator\nAction Input:{"expression":"2+2","unit":"km","scale":2.5}',
      final: 'Thought:done\nFinal Answer:4 apples',
      unknownTool: 'Thought:x\nAction:OCR\nAction Input:{"image":"image/a.png"}',
      badPattern: 'Thought:x\nAction:ImageDescription\nAction Input:{"image":"cat.jpg"}',
      outOfRange: 'Thought:x\nAction:Calculator\nAction Input:{"expression":"1","precision":7}',
      missingRequired: 'Thought:x\nAction:Calculator\nAction Input:{"unit":"m"}',
      markerInThought: 'Thought:Action: none\nFinal Answer:1',
      noThought: 'Final Answer:1',
    };
    const verdicts: Record<string, boolean> = {};
    for (const [k, t] of Object.entries(texts)) verdicts[k] = await judge.accepts(grammar, t);
    expect(verdicts).toEqual({
      action: true,
      optional: true,
      final: true,
      unknownTool: false,
      badPattern: false,
      outOfRange: false,
      missingRequired: false,
      markerInThought: false,
      noThought: false,
    });
  });

  it('step-mode tools (no schema) get one from their Lagent parameters', () => {
    const t: AgentTool = {
      ...tool('OCR', {}),
      parameters: [
        { name: 'image', required: true, type: 'string' },
        { name: 'page', required: false, type: 'integer' },
      ],
    };
    expect(reactArgumentsSchema(t)).toEqual({
      type: 'object',
      properties: { image: { type: 'string' }, page: { type: 'integer' } },
      required: ['image'],
      additionalProperties: false,
    });
  });

  it('step mode sends the constraint with every step turn, none without it', async () => {
    const meta: GtaToolMeta = {
      name: 'Calculator',
      description: 'calc',
      inputs: [
        {
          type: 'text',
          name: 'expression',
          description: null,
          optional: false,
          default: null,
          filetype: null,
        },
      ],
      outputs: [],
    };
    const record = {
      key: '0',
      tools: ['Calculator'],
      files: [],
      gtAnswer: null,
      dialogs: [
        {
          kind: 'object',
          entries: new Map([
            ['role', 'user'],
            ['content', '2+2?'],
          ]),
        },
        {
          kind: 'object',
          entries: new Map([
            ['role', 'assistant'],
            ['content', '4'],
          ]),
        },
      ],
    };
    for (const constrained of [true, false]) {
      const requests: TurnRequest[] = [];
      await runGtaStepMode(
        { root: '.', records: [record as never] },
        new Map([['Calculator', meta]]),
        async (request) => {
          requests.push(request);
          return {
            text: 'Thought:x\nFinal Answer:4',
            toolCalls: [],
            usage: { inputTokens: 1, outputTokens: 1 },
            latencyMs: 1,
          };
        },
        constrained ? { constraint: reactConstraint } : {},
      );
      expect(requests.map((r) => r.constraint?.name ?? null)).toEqual([constrained ? 'gta-react' : null]);
    }
  });
});
