import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryAgentTrace, type TurnRequest } from '../../agents/index.js';
import { loadGtaDataset } from './dataset.js';
import { formatGtaStepPredictions, readGtaStepPredictions } from './predictions.js';
import { scoreGtaSteps } from './step-metrics.js';
import { runGtaStepMode } from './step-solver.js';
import { loadGtaToolMeta } from './toolmeta.js';

const DATA = resolve(import.meta.dirname, '__fixtures__/data');

describe('GTA step mode through a TurnTaker, prediction file round trip', () => {
  it('sends one turn per gold step and scores the written file like the in-memory run', async () => {
    const full = loadGtaDataset(DATA);
    const ds = { ...full, records: full.records.filter((r) => r.key === '0' || r.key === '1') };
    const replies = [
      `Thought: read\nAction: OCR\nAction Input: {"image": "${DATA}/image/image_1.png"}\n`,
      'Action: Calculator\nAction Input: {"expression": "4+8"}',
      'Final Answer: 12',
      'Action: Calculator\nAction Input: {"expression": "3.5*60"}',
      'Final Answer: 210 or 211', // blacklisted alias
    ];
    const seen: TurnRequest[] = [];
    const turns = async (req: TurnRequest) => {
      seen.push(req);
      return {
        text: replies[seen.length - 1]!,
        toolCalls: [],
        usage: { inputTokens: 0, outputTokens: 0 },
        latencyMs: 0,
      };
    };
    const run = await runGtaStepMode(ds, loadGtaToolMeta(join(DATA, 'toolmeta.json')), turns);
    expect(seen).toHaveLength(5);
    expect(seen[4]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'system', 'user']);
    const file = join(mkdtempSync(join(tmpdir(), 'gta-pred-')), 'gta_bench.json');
    writeFileSync(file, formatGtaStepPredictions(run));
    const back = readGtaStepPredictions(file);
    expect(back.map((r) => r.key)).toEqual(['0', '1']);
    const refs = new Map(ds.records.map((r) => [r.key, r.gtAnswer]));
    const s = await scoreGtaSteps(back.map((r) => ({ ...r, reference: refs.get(r.key)! })));
    // 3 gold tool steps, all right; answers: record 0 correct, record 1 blacklisted → 1 of 2
    expect(s.counts).toEqual({
      inst: 5,
      tool: 3,
      arg: 3,
      summ: 1,
      totalTool: 3,
      totalAnswer: 2,
      toolCall: 3,
      toolCallError: 0,
    });
    expect(s.instAcc).toBe(100);
    expect(s.summAcc).toBe(50);
  });
});

describe('GTA step mode events', () => {
  it('one turn per gold step with its usage, a proposal per action (never run), one stop with the summed usage', async () => {
    const full = loadGtaDataset(DATA);
    const ds = { ...full, records: full.records.filter((r) => r.key === '0') };
    const replies = [
      `Thought: read\nAction: OCR\nAction Input: {"image": "${DATA}/image/image_1.png"}\n`,
      'Action: Calculator\nAction Input: {"expression": "4+8"}',
      'Final Answer: 12',
    ];
    let n = 0;
    const turns = async () => ({
      text: replies[n++]!,
      toolCalls: [],
      usage: { inputTokens: 100, outputTokens: n },
      latencyMs: 0,
    });
    const events = memoryAgentTrace();
    await runGtaStepMode(ds, loadGtaToolMeta(join(DATA, 'toolmeta.json')), turns, { events });
    expect(
      events.events.map((e) =>
        e.type === 'turn'
          ? [e.type, e.step, e.decision, e.usage.outputTokens]
          : e.type === 'proposal'
            ? [e.type, e.step, e.tool, e.args]
            : e.type === 'stop'
              ? [e.type, e.step, e.reason, e.usage]
              : [e.type],
      ),
    ).toEqual([
      ['turn', 1, 'calls', 1],
      ['proposal', 1, 'OCR', `{"image": "${DATA}/image/image_1.png"}`],
      ['turn', 2, 'calls', 2],
      ['proposal', 2, 'Calculator', '{"expression": "4+8"}'],
      ['turn', 3, 'final', 3],
      ['stop', 3, 'final', { inputTokens: 300, outputTokens: 6 }],
    ]);
  });
});
