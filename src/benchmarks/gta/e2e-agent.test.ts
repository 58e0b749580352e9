import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  memoryAgentTrace,
  REACT_FORCE_STOP,
  type TurnReply,
  type TurnRequest,
  type TurnTaker,
} from '../../agents/index.js';
import { bundledDataDir, indexCatalog } from '../../catalog/index.js';
import { appRegistry } from '../../exec/index.js';
import { ZERO_USAGE } from '../../models/index.js';
import { pyJsonDumps, readJsonFile } from '../../shared/index.js';
import { toolHandler } from '../../tools/index.js';
import { gtaCatalog } from './catalog.js';
import { loadGtaDataset } from './dataset.js';
import { GTA_NATIVE_SYSTEM, runGtaE2e } from './e2e-agent.js';
import { loadGtaToolMeta, recordTools } from './toolmeta.js';
import { calculatorTool } from './tools/calculator.js';

/** runGtaE2e's step records on malformed replies, failed calls, max_turn and native tool calls. */

const metaFile = join(bundledDataDir(), 'gta', 'toolmeta.json');
const toolmeta = loadGtaToolMeta(metaFile);
const catalog = indexCatalog(gtaCatalog(readJsonFile(metaFile), metaFile));
const dataset = loadGtaDataset(resolve(import.meta.dirname, '__fixtures__/e2e'));
const record = dataset.records.find((r) => r.key === '2')!; // "What is 17 times 23?" (Calculator only)
const outputDir = mkdtempSync(join(tmpdir(), 'apiary-gta-agent-'));
afterAll(() => rmSync(outputDir, { recursive: true, force: true }));
const dispatch = { catalog, apps: appRegistry([toolHandler(calculatorTool(), { outputDir, readable: [] })]) };

function scripted(replies: Array<string | Partial<TurnReply>>): TurnTaker & { requests: TurnRequest[] } {
  const requests: TurnRequest[] = [];
  const turn = async (request: TurnRequest): Promise<TurnReply> => {
    requests.push(request);
    const r = replies[Math.min(requests.length - 1, replies.length - 1)]!;
    return {
      text: '',
      toolCalls: [],
      usage: ZERO_USAGE,
      latencyMs: 0,
      ...(typeof r === 'string' ? { text: r } : r),
    };
  };
  return Object.assign(turn, { requests });
}
const run = (turn: TurnTaker, protocol?: 'react' | 'native-tools') =>
  runGtaE2e({
    record,
    tools: recordTools(record.tools, toolmeta, { file: 'dataset.json', record: '2' }),
    turn,
    dispatch,
    ...(protocol ? { protocol } : {}),
  });
const steps = async (turn: TurnTaker, protocol?: 'react' | 'native-tools') =>
  JSON.parse(pyJsonDumps((await run(turn, protocol)).predictions));

describe('runGtaE2e (ReAct)', () => {
  it('writes malformed and failed actions as error steps, each followed by a null tool step', async () => {
    const turn = scripted([
      'I think I should multiply.', // no Action: NoAction
      'Thought:x\nAction:Abacus\nAction Input:17*23', // not a tool of the record: InvalidAction
      'Action:Calculator\nAction Input:{"expression": 17*23}', // bad JSON: raw input kept
      'Action:Calculator\nAction Input:{"expr": "1"}', // unknown argument
      'Action:Calculator\nAction Input:{"expression": "1/0"}', // the tool fails
      'Action:Calculator\nAction Input:"{"expression": "17*23"}"', // quotes stripped, runs
      'Thought:ok\nFinal Answer: 391',
    ]);
    expect(await steps(turn)).toEqual([
      { role: 'assistant', content: 'I think I should multiply.', meta: { type: 'thought' } },
      {
        role: 'assistant',
        error: { type: 'API_ERROR', msg: 'Please follow the format' },
        tool_calls: [{ type: 'function', function: { name: 'NoAction', arguments: { text: '' } } }],
      },
      { role: 'tool', content: null },
      { role: 'assistant', content: 'x\n', meta: { type: 'thought' } },
      {
        role: 'assistant',
        error: { type: 'API_ERROR', msg: '17*23' },
        tool_calls: [{ type: 'function', function: { name: 'InvalidAction', arguments: { text: '17*23' } } }],
      },
      { role: 'tool', content: null },
      {
        role: 'assistant',
        error: { type: 'ARGS_ERROR', msg: 'invalid json format' },
        tool_calls: [
          { type: 'function', function: { name: 'Calculator', arguments: '{"expression": 17*23}' } },
        ],
      },
      { role: 'tool', content: null },
      {
        role: 'assistant',
        error: { type: 'ARGS_ERROR', msg: 'unknown arguments' },
        tool_calls: [{ type: 'function', function: { name: 'Calculator', arguments: '{"expr": "1"}' } }],
      },
      { role: 'tool', content: null },
      {
        role: 'assistant',
        error: { type: 'API_ERROR', msg: 'Calculator: ZeroDivisionError: division by zero' },
        tool_calls: [
          { type: 'function', function: { name: 'Calculator', arguments: { expression: '1/0' } } },
        ],
      },
      { role: 'tool', content: null },
      {
        role: 'assistant',
        tool_calls: [
          { type: 'function', function: { name: 'Calculator', arguments: { expression: '17*23' } } },
        ],
      },
      { role: 'tool', content: [{ type: 'text', content: '391' }] },
      { role: 'assistant', content: 'ok\n', meta: { type: 'thought' } },
      { role: 'assistant', content: ' 391' },
    ]);
    // the feedback the model got for each: "Response:" + error message or result
    expect(turn.requests[6]!.messages.filter((m) => m.role === 'system').map((m) => m.content)).toEqual([
      'Response:Please follow the format\n',
      'Response:17*23\n',
      'Response:invalid json format\n',
      'Response:unknown arguments\n',
      'Response:Calculator: ZeroDivisionError: division by zero\n',
      'Response:391\n',
    ]);
    // no file: no hint message, the query is the only user turn
    expect(turn.requests[0]!.messages).toEqual([{ role: 'user', content: 'What is 17 times 23?' }]);
  });

  it('stops at max_turn 10: the force-stop message goes only into the 10th prompt, the last step is a tool step', async () => {
    const turn = scripted(['Action:Calculator\nAction Input:{"expression": "1+1"}']);
    const r = await run(turn);
    expect(turn.requests).toHaveLength(10);
    expect(turn.requests.map((q) => q.messages.at(-1)!.content === REACT_FORCE_STOP)).toEqual([
      ...Array(9).fill(false),
      true,
    ]);
    expect(turn.requests[9]!.messages.at(-1)).toEqual({ role: 'system', content: REACT_FORCE_STOP });
    // repeated identical calls do not stop the loop early (Lagent has no such limit)
    expect(r.result.stopReason).toBe('step-budget');
    expect(r.predictions).toHaveLength(20);
    expect(JSON.parse(pyJsonDumps(r.predictions.at(-1)!))).toEqual({
      role: 'tool',
      content: [{ type: 'text', content: '2' }],
    });
  });
});

describe('runGtaE2e (FinishAction)', () => {
  it('"Action:FinishAction" ends the run with its input as the answer, as Lagent\'s executor does', async () => {
    const turn = scripted(['Thought:done\nAction:FinishAction\nAction Input:391']);
    const r = await run(turn);
    expect([r.result.stopReason, r.result.answer, turn.requests.length]).toEqual(['final', '391', 1]);
    expect(JSON.parse(pyJsonDumps(r.predictions))).toEqual([
      { role: 'assistant', content: 'done\n', meta: { type: 'thought' } },
      { role: 'assistant', content: '391' },
    ]);
  });
});

describe('runGtaE2e (native tool calling)', () => {
  it('records each provider tool call and the final text as GTA steps', async () => {
    const turn = scripted([
      {
        text: 'Let me compute.',
        toolCalls: [
          {
            id: 'c1',
            name: 'Calculator',
            input: { expression: '17*23' },
            inputText: '{"expression":"17*23"}',
          },
        ],
      },
      { text: '17 times 23 is 391.' },
    ]);
    expect(await steps(turn, 'native-tools')).toEqual([
      { role: 'assistant', content: 'Let me compute.', meta: { type: 'thought' } },
      {
        role: 'assistant',
        tool_calls: [
          { type: 'function', function: { name: 'Calculator', arguments: { expression: '17*23' } } },
        ],
      },
      { role: 'tool', content: [{ type: 'text', content: '391' }] },
      { role: 'assistant', content: '17 times 23 is 391.' },
    ]);
    // the tool goes to the provider as a JSON Schema built from toolmeta
    expect(turn.requests[0]!.tools?.Calculator?.inputSchema).toMatchObject({
      type: 'object',
      required: ['expression'],
    });
    expect(turn.requests[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'What is 17 times 23?' });
    expect(turn.requests[0]!.system).toBe(GTA_NATIVE_SYSTEM);
    expect(Object.keys(turn.requests[0]!.tools ?? {})).toEqual(['Calculator']); // no ask_user
  });
});

describe('runGtaE2e events', () => {
  it('the agent loop writes its turns, calls and stop to the given sink', async () => {
    const trace = memoryAgentTrace();
    await runGtaE2e({
      record,
      tools: recordTools(record.tools, toolmeta, { file: 'dataset.json', record: '2' }),
      turn: scripted(['Action:Calculator\nAction Input:{"expression": "17*23"}', 'Final Answer: 391']),
      dispatch,
      trace,
    });
    expect(
      trace.events.map((e) => (e.type === 'call' ? [e.type, e.tool, e.ok, e.result] : [e.type])),
    ).toEqual([['turn'], ['call', 'Calculator', true, '391'], ['turn'], ['stop']]);
  });
});
