import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pyRepr, pyStrip } from '../../shared/index.js';
import type { AgentTool, TurnReply } from '../runtime/types.js';
import { jsonActionProtocol, parseJsonActionReply } from './json-action.js';
import { nativeToolsProtocol } from './native-tools.js';
import { planLinesProtocol } from './plan-lines.js';
import { parseReactArguments, parseReactReply, reactProtocol, reactSystemPrompt } from './react.js';

const ocr: AgentTool = {
  name: 'OCR',
  description: "Recognize text, e.g. a sign's words.",
  inputSchema: {},
  app: 'gta',
  api: 'OCR',
  parameters: [{ name: 'image', required: true, type: 'image', description: 'The input image.' }],
};
const calc: AgentTool = {
  name: 'Calculator',
  description: 'A calculator.',
  inputSchema: {},
  app: 'gta',
  api: 'Calculator',
  parameters: [
    { name: 'expression', required: true, type: 'string' },
    { name: 'precision', required: false, type: 'integer' },
  ],
};
const reply = (text: string, toolCalls: TurnReply['toolCalls'] = []): TurnReply => ({
  text,
  toolCalls,
  usage: { inputTokens: 0, outputTokens: 0 },
  latencyMs: 0,
});

describe('python text', () => {
  it('repr follows Python quoting, None/True and nesting', () => {
    expect(pyRepr([{ a: "it's", b: null, c: true, d: [1, 2.5] }])).toBe(
      `[{'a': "it's", 'b': None, 'c': True, 'd': [1, 2.5]}]`,
    );
    expect(pyRepr('both \' and "')).toBe(`'both \\' and "'`);
    expect(pyRepr('a\nb\\c\u0001')).toBe(`'a\\nb\\\\c\\x01'`);
  });
  it('strip removes Python whitespace, including \\x1c-\\x1f', () => {
    expect(pyStrip('\x1c\t x \u3000\n')).toBe('x');
  });
});

describe('ReAct (Lagent) parsing (docs/gta.md, "Official protocol: Lagent ReAct")', () => {
  it('reads an action: last Action: line, input after the first Action Input:, quotes stripped', () => {
    expect(parseReactReply('Thought: read it\nAction: OCR\nAction Input: "{"image": "a.png"}"\n')).toEqual({
      kind: 'action',
      thought: ' read it\n',
      name: 'OCR',
      input: '{"image": "a.png"}',
    });
  });
  it('Final Answer anywhere wins, and the answer is not trimmed', () => {
    expect(parseReactReply('Thought:x\nAction:OCR\nFinal Answer: 42 \n')).toEqual({
      kind: 'finish',
      thought: 'x\n',
      answer: ' 42 \n',
    });
  });
  it('an Action line needs a newline; no action or no input is NoAction', () => {
    expect(parseReactReply('Thought: hmm\nAction: OCR').kind).toBe('no-action');
    expect(parseReactReply('Action: OCR\nno input here').kind).toBe('no-action');
  });
  it('a second action in one reply corrupts the input (everything after the first Action Input:)', () => {
    const p = parseReactReply('Action:OCR\nAction Input:{"image":"a"}\nAction:Calculator\nAction Input:{}');
    expect(p).toEqual({
      kind: 'action',
      thought: '',
      name: 'Calculator',
      input: '{"image":"a"}\nAction:Calculator\nAction Input:{}',
    });
  });
  it('checks arguments with Lagent error strings', () => {
    expect(parseReactArguments('{"expression": "1+1"}', calc)).toEqual({ args: { expression: '1+1' } });
    expect(parseReactArguments('```json\n{"expression": "2"}\n```', calc)).toEqual({
      args: { expression: '2' },
    });
    expect(parseReactArguments('{expression: 1}', calc)).toEqual({ error: 'invalid json format' });
    expect(parseReactArguments('{"expr": "1"}', calc)).toEqual({ error: 'unknown arguments' });
    expect(parseReactArguments('{"precision": 2}', calc)).toEqual({ error: 'missing required arguments' });
  });
  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite' }), (s) => {
        const d = reactProtocol().parse(reply(s), [ocr, calc]);
        expect(['final', 'calls', 'decode-failure']).toContain(d.kind);
      }),
      { numRuns: 2000 },
    );
  });
  it('renders the Figure 30 system prompt with the tool repr', () => {
    const text = reactSystemPrompt([ocr]);
    expect(text.split('\n').slice(0, 2)).toEqual([
      'You are a assistant who can utilize external tools.',
      `[{'name': 'OCR', 'description': "Recognize text, e.g. a sign's words.", 'parameters': [{'name': 'image', 'description': 'The input image.', 'type': 'STRING'}], 'required': ['image'], 'parameter_description': 'If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name.'}]`,
    ]);
    expect(text).toContain("Action:the tool name, should be one of [['OCR']]\n");
    expect(text.endsWith('```\nBegin!')).toBe(true);
  });
  it('renders a parameter without description as None, like AgentLego with a null toolmeta description', () => {
    expect(reactSystemPrompt([calc]).split('\n')[1]).toBe(
      `[{'name': 'Calculator', 'description': 'A calculator.', 'parameters': [{'name': 'expression', 'description': None, 'type': 'STRING'}, {'name': 'precision', 'description': None, 'type': 'NUMBER'}], 'required': ['expression'], 'parameter_description': 'If you call this tool, you must pass arguments in the JSON format {key: value}, where the key is the parameter name.'}]`,
    );
  });
  it('decides: unknown tool and bad JSON are invalid calls; feedback is a system Response message', () => {
    const p = reactProtocol();
    const d1 = p.parse(reply('Action: Magic\nAction Input: {}'), [calc]);
    expect(d1).toEqual({
      kind: 'calls',
      thought: '',
      calls: [{ id: 'react-call', tool: 'Magic', invalid: '{}', rawInput: '{}' }],
    });
    const d2 = p.parse(reply('Action: Calculator\nAction Input: 1+1'), [calc]);
    expect(d2.kind === 'calls' && d2.calls[0]?.invalid).toBe('invalid json format');
    const d3 = p.parse(reply('I think so.'), [calc]);
    expect(d3).toEqual({ kind: 'decode-failure', message: 'Please follow the format' });
    expect(p.continueWith(reply('I think so.'), d3, [])).toEqual([
      { role: 'assistant', content: 'I think so.' },
      { role: 'system', content: 'Response:Please follow the format\n' },
    ]);
  });
});

describe('JSON actions (docs/shortcutsbench.md, "Official reply parsing")', () => {
  it('parses from the first { to the last }, then the whole reply, else a JSON error', () => {
    expect(parseJsonActionReply('Sure: {"a": {"b": 1}} done')).toEqual({
      kind: 'json',
      value: { a: { b: 1 } },
    });
    expect(parseJsonActionReply('[1, 2]')).toEqual({ kind: 'json', value: [1, 2] });
    expect(parseJsonActionReply('{"a": 1} and {"b": 2}')).toEqual({
      kind: 'json-error',
      raw: '{"a": 1} and {"b": 2}',
    });
    expect(parseJsonActionReply('7')).toEqual({ kind: 'json', value: 7 });
  });
  it('Finish ends the run; other ids are calls; a list is a decode failure', () => {
    const p = jsonActionProtocol({ system: 'S' });
    expect(
      p.parse(reply('{"WFWorkflowActionIdentifier": "Finish", "WFWorkflowActionParameters": {}}'), []).kind,
    ).toBe('final');
    expect(
      p.parse(
        reply(
          '{"Thought": "t", "WFWorkflowActionIdentifier": "is.workflow.actions.url", "WFWorkflowActionParameters": {"WFURLActionURL": "x"}}',
        ),
        [],
      ),
    ).toEqual({
      kind: 'calls',
      thought: 't',
      calls: [{ id: 'action', tool: 'is.workflow.actions.url', args: { WFURLActionURL: 'x' } }],
    });
    expect(p.parse(reply('[1]'), []).kind).toBe('decode-failure');
  });
  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string(), (s) => void jsonActionProtocol({ system: '' }).parse(reply(s), [])),
      { numRuns: 2000 },
    );
  });
});

describe('native tool calls', () => {
  it('tool calls become calls; non-object or unparsable arguments are invalid; ask_user asks', () => {
    const p = nativeToolsProtocol();
    const d = p.parse(
      reply('', [
        { id: 'c1', name: 'Calculator', input: { expression: '2*3' }, inputText: '{"expression":"2*3"}' },
        { id: 'c2', name: 'OCR', input: undefined, inputText: '{image:', invalid: 'JSON parse error' },
      ]),
      [calc, ocr],
    );
    expect(d).toEqual({
      kind: 'calls',
      calls: [
        { id: 'c1', tool: 'Calculator', args: { expression: '2*3' } },
        { id: 'c2', tool: 'OCR', invalid: 'JSON parse error', rawInput: '{image:' },
      ],
    });
    expect(
      p.parse(
        reply('', [{ id: 'q', name: 'ask_user', input: { question: 'Which city?' }, inputText: '' }]),
        [],
      ),
    ).toEqual({ kind: 'ask-user', question: 'Which city?', callId: 'q' });
    expect(p.parse(reply('Done: 6'), [])).toEqual({ kind: 'final', answer: 'Done: 6' });
    expect(p.parse(reply('  '), []).kind).toBe('decode-failure');
    expect(Object.keys(p.nativeTools!([calc]))).toEqual(['Calculator', 'ask_user']);
  });
});

describe('plan lines', () => {
  it('the cleaned plan is the final answer; no plan line is a decode failure', () => {
    const p = planLinesProtocol({ system: 'S' });
    expect(p.parse(reply("```\nWeather: [t = getweather(#city='Paris')]\n```"), [])).toEqual({
      kind: 'final',
      answer: "Weather: [t = getweather(#city='Paris')]",
    });
    expect(p.parse(reply('I cannot help.'), []).kind).toBe('decode-failure');
  });
});
