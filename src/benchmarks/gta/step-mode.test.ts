import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PyJson, pyJsonDumps } from '../../shared/index.js';
import { loadGtaDataset } from './dataset.js';
import { gtaStepFromReply } from './step-execute.js';
import { scoreGtaSteps } from './step-metrics.js';
import { GTA_SUMMARIZE_PROMPT, gtaStepPrompts } from './step-prompt.js';
import { loadGtaToolMeta, recordTools } from './toolmeta.js';

const DATA = resolve(import.meta.dirname, '__fixtures__/data');
const ds = loadGtaDataset(DATA);
const toolmeta = loadGtaToolMeta(join(DATA, 'toolmeta.json'));
const rec = (key: string) => ds.records.find((r) => r.key === key)!;
const tools = (key: string) => recordTools(rec(key).tools, toolmeta, { file: 'dataset.json', record: key });
const dumps = (v: PyJson) => pyJsonDumps(v);
const img = (i: number) => `${DATA}/image/image_${i}.png`;

describe('GTA dataset loading (docs/gta.md, "Official format: dataset.json and loading")', () => {
  it('a folder without dataset.json says what is missing and what to pass', () => {
    const empty = mkdtempSync(join(tmpdir(), 'apiary-gta-empty-'));
    expect(() => loadGtaDataset(empty)).toThrow(
      expect.objectContaining({
        code: 'NOT_FOUND',
        message: `no GTA dataset in ${empty}: ${join(empty, 'dataset.json')} does not exist; run \`apiary data pull gta\`, then pass --data with the folder that holds dataset.json and image/`,
      }),
    );
  });

  it('keeps file order, makes file paths absolute and rewrites gold image arguments', () => {
    expect(ds.records.map((r) => r.key)).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
      '10',
      '11',
    ]);
    expect(rec('7').files).toEqual([
      { type: 'image', path: img(5) },
      { type: 'image', path: img(6) },
    ]);
    expect(dumps(rec('4').dialogs[3]!)).toBe(
      `{"role": "assistant", "thought": "Draw the box.", "tool_calls": [{"type": "function", "function": {"name": "DrawBox", "arguments": {"image": "${img(2)}", "bbox": "(3, 4, 12, 8)", "annotation": "STOP"}}}]}`,
    );
    // a tool message keeps role, name, content only; a non-file string stays as written
    expect(dumps(rec('3').dialogs[2]!)).toBe(
      '{"role": "tool", "name": "Plot", "content": {"type": "image", "content": "image/plot_3.png"}}',
    );
  });
  it('names file, record and field on bad input', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gta-bad-'));
    writeFileSync(
      join(dir, 'dataset.json'),
      JSON.stringify({ '0': { tools: [], files: [], dialogs: [{ role: 'bot' }], gt_answer: null } }),
    );
    expect(() => loadGtaDataset(dir)).toThrow(
      `${dir}/dataset.json: record 0: field "dialogs[0].role": expected "user", "assistant" or "tool", got "bot"`,
    );
    writeFileSync(
      join(dir, 'dataset.json'),
      JSON.stringify({
        '3': {
          tools: [],
          files: [{ type: 'image', path: 'image/x.png' }],
          dialogs: [{ role: 'user', content: 'q' }],
          gt_answer: null,
        },
      }),
    );
    expect(() => loadGtaDataset(dir)).toThrow(
      `record 3: field "files[0].path": no such file: ${dir}/image/x.png`,
    );
    writeFileSync(
      join(dir, 'dataset.json'),
      JSON.stringify({
        '5': {
          tools: [],
          files: [],
          dialogs: [{ role: 'user', content: 'q' }],
          gt_answer: { whitelist: [['a', 1]], blacklist: null },
        },
      }),
    );
    expect(() => loadGtaDataset(dir)).toThrow(
      'record 5: field "gt_answer.whitelist[0]": expected a list of strings',
    );
  });
});

describe('GTA step-mode prompts (docs/gta.md, "Official step-by-step mode: prompts")', () => {
  it('renders the gold prefix: files sentence (system), no thoughts, json.dumps args, tool returns as system without Response:', () => {
    const prompts = gtaStepPrompts(rec('0'), tools('0'));
    expect(prompts.map((p) => p.dialogIndex)).toEqual([1, 3, 5]);
    expect(prompts[1]!.messages).toEqual([
      { role: 'system', content: `The related files are at \`${img(1)}\`` },
      { role: 'user', content: 'The receipt shows two items. What is the total price?' },
      { role: 'assistant', content: `Action:OCR\nAction Input:{"image": "${img(1)}"}` },
      { role: 'system', content: '(2, 1, 14, 4) Tea 4\n(2, 7, 14, 10) Cake 8' },
    ]);
    expect(prompts[2]!.messages.at(-1)).toEqual({ role: 'user', content: GTA_SUMMARIZE_PROMPT });
    expect(prompts[2]!.messages.at(-2)).toEqual({ role: 'system', content: '12' });
    expect(prompts[0]!.system.split('\n')[1]).toBe(
      "[{'name': 'OCR', 'description': 'Reads the text in an image, one line per box as (x1, y1, x2, y2) text.', 'parameters': [{'name': 'image', 'description': None, 'type': 'STRING'}], 'required': ['image'], 'parameter_description': 'If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name.'}, {'name': 'Calculator', 'description': 'Evaluates one arithmetic expression written in Python syntax.', 'parameters': [{'name': 'expression', 'description': None, 'type': 'STRING'}], 'required': ['expression'], 'parameter_description': 'If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name.'}]",
    );
    expect(prompts[0]!.system).toContain("Action:the tool name, should be one of [['OCR', 'Calculator']]\n");
  });
  it('prints arguments as Python json.dumps does (ASCII escapes, 3.0) and image results as [image](path)', () => {
    const [first] = gtaStepPrompts(rec('11'), tools('11'));
    expect(first!.messages).toEqual([
      { role: 'user', content: 'Find the opening hours of the Café Zürich in Bern.' },
    ]);
    const p = gtaStepPrompts(rec('11'), tools('11'));
    expect(p).toHaveLength(2);
    expect(p[1]!.messages[1]).toEqual({
      role: 'assistant',
      content:
        'Action:GoogleSearch\nAction Input:{"query": "Caf\\u00e9 Z\\u00fcrich Bern opening hours", "k": 3.0}',
    });
    expect(gtaStepPrompts(rec('3'), tools('3'))[1]!.messages[2]).toEqual({
      role: 'system',
      content: '[image](image/plot_3.png)',
    });
  });
});

describe('GTA step execution against dummy tools (docs/gta.md, "Official protocol: Lagent ReAct")', () => {
  const t0 = tools('0');
  it('records a valid call with parsed arguments and a finish as an answer (untrimmed)', () => {
    expect(
      dumps(gtaStepFromReply(`Thought: read\nAction: OCR\nAction Input: {"image": "${img(1)}"}`, t0)),
    ).toBe(
      `{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "OCR", "arguments": {"image": "${img(1)}"}}}]}`,
    );
    expect(dumps(gtaStepFromReply('Thought: done\nFinal Answer: 12 dollars', t0))).toBe(
      '{"role": "assistant", "content": " 12 dollars"}',
    );
  });
  it('bad JSON and extra text after the arguments: ARGS_ERROR with the raw input as arguments', () => {
    expect(dumps(gtaStepFromReply('Action: Calculator\nAction Input: {expression: 4+8}', t0))).toBe(
      '{"role": "assistant", "error": {"type": "ARGS_ERROR", "msg": "invalid json format"}, "tool_calls": [{"type": "function", "function": {"name": "Calculator", "arguments": "{expression: 4+8}"}}]}',
    );
    const extra = gtaStepFromReply(
      'Action: Calculator\nAction Input: {"expression": "4+8"}\nResponse: 12',
      t0,
    );
    expect(dumps(extra)).toBe(
      '{"role": "assistant", "error": {"type": "ARGS_ERROR", "msg": "invalid json format"}, "tool_calls": [{"type": "function", "function": {"name": "Calculator", "arguments": "{\\"expression\\": \\"4+8\\"}\\nResponse: 12"}}]}',
    );
  });
  it('no action (missing Final Answer and Action), an unknown tool, a missing image file', () => {
    expect(dumps(gtaStepFromReply('The answer is 12.', t0))).toBe(
      '{"role": "assistant", "error": {"type": "API_ERROR", "msg": "Please follow the format"}, "tool_calls": [{"type": "function", "function": {"name": "NoAction", "arguments": {"text": ""}}}]}',
    );
    expect(dumps(gtaStepFromReply('Action: Plot\nAction Input: {"command": "x"}', t0))).toBe(
      '{"role": "assistant", "error": {"type": "API_ERROR", "msg": "{\\"command\\": \\"x\\"}"}, "tool_calls": [{"type": "function", "function": {"name": "InvalidAction", "arguments": {"text": "{\\"command\\": \\"x\\"}"}}}]}',
    );
    const missing = gtaStepFromReply('Action: OCR\nAction Input: {"image": "image/image_1.png"}', t0);
    expect(dumps(missing)).toContain('"error": {"type": "API_ERROR"');
    expect(dumps(missing)).toContain('"arguments": {"image": "image/image_1.png"}');
    expect(dumps(gtaStepFromReply('Action: Calculator\nAction Input: {"expr": "1"}', t0))).toContain(
      '"msg": "unknown arguments"',
    );
    expect(dumps(gtaStepFromReply('Action: Calculator\nAction Input: {}', t0))).toContain(
      '"msg": "missing required arguments"',
    );
  });
});

describe('GTA step metrics (docs/gta.md, "Official scoring: step-by-step metrics")', () => {
  it('scores hand-computed steps over three records, malformed actions included', async () => {
    const steps = (key: string, replies: string[]) => ({
      predictions: replies.map((r) => gtaStepFromReply(r, tools(key))),
      golds: gtaStepPrompts(rec(key), tools(key)).map((p) => p.gold),
      reference: rec(key).gtAnswer,
    });
    const items = [
      // record 0: OCR right; Calculator with bad JSON (tool +1, arg 0, inst 0); answer correct
      steps('0', [
        `Action: OCR\nAction Input: {"image": "${img(1)}"}`,
        'Action: Calculator\nAction Input: {expression: "4+8"}',
        'Final Answer: $12',
      ]),
      // record 11: k 3 == 3.0 (Python equality) → arg +1; answer misses "18:00" → summ 0
      steps('11', [
        'Action: GoogleSearch\nAction Input: {"k": 3, "query": "Caf\\u00e9 Z\\u00fcrich Bern opening hours"}',
        'Final Answer: open from 8:00',
      ]),
      // record 3 (image generation, gt null): unknown tool; answer step adds to inst but not to the denominator
      steps('3', ['Action: DrawBox\nAction Input: {}', 'Thought: done\nFinal Answer: here']),
    ];
    const s = await scoreGtaSteps(items);
    // gold tool steps 2 + 1 + 1 = 4; truthy references 2 → InstAcc denominator 6
    // inst: OCR, answer0, GoogleSearch, answer11, answer3 = 5; tool: OCR, Calculator, GoogleSearch = 3; arg: 2
    expect(s.counts).toEqual({
      inst: 5,
      tool: 3,
      arg: 2,
      summ: 1,
      totalTool: 4,
      totalAnswer: 2,
      toolCall: 4,
      toolCallError: 2,
    });
    expect(s.instAcc).toBe((5 / 6) * 100);
    expect(s.toolAcc).toBe(75);
    expect(s.argAcc).toBe(50);
    expect(s.summAcc).toBe(50);
  });
  it('scores subjective answers by clipped cosine through the embedder', async () => {
    const vectors: Record<string, number[]> = {
      pred: [1, 0],
      [(rec('6').gtAnswer as string[])[0]!]: [0.6, 0.8],
      [(rec('6').gtAnswer as string[])[1]!]: [-1, 0],
      [(rec('6').gtAnswer as string[])[2]!]: [0, 1],
    };
    const embedder = { embed: async (texts: readonly string[]) => texts.map((t) => vectors[t.trim()]!) };
    const golds = gtaStepPrompts(rec('6'), tools('6')).map((p) => p.gold);
    const s = await scoreGtaSteps(
      [
        {
          predictions: [
            gtaStepFromReply(`Action:OCR\nAction Input:{"image": "${img(4)}"}`, tools('6')),
            gtaStepFromReply('Final Answer: pred', tools('6')),
          ],
          golds,
          reference: rec('6').gtAnswer,
        },
      ],
      embedder,
    );
    expect(s.counts.summ).toBeCloseTo(0.6, 12);
    expect(s.instAcc).toBe(100);
  });
});
