import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryAgentTrace, type TurnRequest } from '../../agents/index.js';
import { parsePyJson, pyJsonDumps } from '../../shared/index.js';
import { createSolver, solveSample } from '../../tasks/solver.js';
import type { Solved } from '../../tasks/task.js';
import { loadGtaDataset } from './dataset.js';
import { formatGtaStepPredictions, readGtaStepPredictions } from './predictions.js';
import { GTA_SOLVERS, type GtaOutput, type GtaSample, type GtaSolverEnv } from './register.js';
import type { gtaStepFromReply } from './step-execute.js';
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

describe('GTA step mode as a registered solver value', () => {
  const full = loadGtaDataset(DATA);
  const toolmeta = loadGtaToolMeta(join(DATA, 'toolmeta.json'));
  const replies = [
    `Thought: read\nAction: OCR\nAction Input: {"image": "${DATA}/image/image_1.png"}\n`,
    'Action: Calculator\nAction Input: {"expression": "4+8"}',
    'Final Answer: 12',
    'Action: Calculator\nAction Input: {"expression": "3.5*60"}',
    'Final Answer: 210 or 211', // blacklisted alias
  ];
  const scripted = () => {
    let n = 0;
    return async () => ({
      text: replies[n++]!,
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      latencyMs: 0,
    });
  };
  const env = (turns: ReturnType<typeof scripted>): GtaSolverEnv => ({
    mode: 'step',
    root: full.root,
    toolmeta,
    turns,
    file: join(DATA, 'dataset.json'),
    maxTurn: 10,
    toolsFor: () => {
      throw new Error('step mode runs no tools');
    },
  });
  const samples: GtaSample[] = full.records
    .filter((r) => r.key === '0' || r.key === '1')
    .map((record) => ({ id: record.key, category: 'objective', record }));

  it('the step solver and react in step mode record what the hand-written step mode did, and score the same', async () => {
    const direct = await runGtaStepMode(
      { ...full, records: samples.map((s) => s.record) },
      toolmeta,
      scripted(),
    );
    for (const def of [GTA_SOLVERS.step, GTA_SOLVERS.react]) {
      const task = { name: 'gta', solver: createSolver(def, {}, env(scripted())) };
      const solved: Solved<GtaOutput>[] = [];
      for (const s of samples) solved.push(await solveSample(task, s, { seed: 0 }));
      expect(solved).toEqual(
        direct.map((run) => ({
          output: { mode: 'step', predictionJson: pyJsonDumps(run.predictions) },
          usage: { inputTokens: 0, outputTokens: 0 },
          modelCalls: run.predictions.length,
        })),
      );
      expect(solved.map((s) => s.modelCalls)).toEqual([3, 2]);
      const s = await scoreGtaSteps(
        samples.map((sample, i) => ({
          predictions: parsePyJson(solved[i]!.output.predictionJson) as ReturnType<typeof gtaStepFromReply>[],
          golds: direct[i]!.golds,
          reference: sample.record.gtAnswer,
        })),
      );
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
    }
  });

  it('each GTA solver names the mode it refuses; its arguments are validated by name', () => {
    expect(Object.values(GTA_SOLVERS).map((d) => [d.name, d.refuses])).toEqual([
      ['react', {}],
      [
        'native-tools',
        { step: 'gta: --mode step uses the official ReAct prompts; use --solver react (or step)' },
      ],
      ['step', { e2e: 'gta: the step solver is for --mode step; end to end use react or native-tools' }],
    ]);
    expect(() => createSolver(GTA_SOLVERS.step, { shots: 1 }, env(scripted()))).toThrow(
      'solver "step" has no option "shots" (options: constrain)',
    );
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
