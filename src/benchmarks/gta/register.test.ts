import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveModelSetup } from '../../models/index.js';
import { solveSample } from '../../tasks/solver.js';
import { startScriptedOpenAiServer } from '../../test/index.js';
import type { GtaSample } from './register.js';
import { gtaDefinition } from './register.js';
import { GtaSampleScoreSchema } from './report-scores.js';
import { formatGtaReport, summarizeGtaTask } from './task-report.js';

/** The registered `gta` task in step mode: per-sample counts, pooled metrics, the report table. */

const DATA = resolve(import.meta.dirname, '__fixtures__/data');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('gta task, --mode step', () => {
  it('scores each sample with the official step counts; the summary pools them', async () => {
    const replies = [
      `Thought: read\nAction: OCR\nAction Input: {"image": "${DATA}/image/image_1.png"}\n`,
      'Action: Calculator\nAction Input: {"expression": "4+8"}',
      'Final Answer: 12',
      'Action: Calculator\nAction Input: {"expression": "3.5*60"}',
      'Final Answer: 210 or 211', // blacklisted alias
    ];
    let n = 0;
    const server = await startScriptedOpenAiServer({ respond: () => replies[n++]! });
    const runDir = mkdtempSync(join(tmpdir(), 'apiary-gta-step-'));
    dirs.push(runDir);
    try {
      const model = resolveModelSetup({ baseURL: server.url, model: 'scripted' }, { env: {}, cwd: runDir })!;
      const loaded = await gtaDefinition.load({
        options: { mode: 'step', ids: ['0', '1'] },
        solver: 'react',
        solverOptions: {},
        model: model.model,
        sampling: {},
        dataDir: DATA,
        seed: 0,
        runDir,
      });
      const scores = [];
      for (const sample of loaded.task.dataset as GtaSample[]) {
        const solved = await solveSample(loaded.task, sample, { seed: 0 });
        scores.push(await loaded.task.scorer(sample, { output: solved.output }));
        // what the results reader checks a record of this task against
        expect(gtaDefinition.outputSchema!.parse(solved.output)).toEqual(solved.output);
        expect(gtaDefinition.scoreSchema!.parse(scores.at(-1))).toEqual(scores.at(-1));
      }
      expect(server.requests).toHaveLength(5);
      expect(scores).toEqual([
        {
          step: {
            inst: 3,
            tool: 2,
            arg: 2,
            summ: 1,
            totalTool: 2,
            totalAnswer: 1,
            toolCall: 2,
            toolCallError: 0,
          },
          e2e: null,
          unscoredSubjective: 0,
        },
        {
          step: {
            inst: 2,
            tool: 1,
            arg: 1,
            summ: 0,
            totalTool: 1,
            totalAnswer: 1,
            toolCall: 1,
            toolCallError: 0,
          },
          e2e: null,
          unscoredSubjective: 0,
        },
      ]);
      // the HTML report reads the same scores
      for (const s of scores) expect(GtaSampleScoreSchema.safeParse(s).success).toBe(true);
      const report = summarizeGtaTask(scores, []);
      expect(report.step).toMatchObject({ instAcc: 100, toolAcc: 100, argAcc: 100, summAcc: 50 });
      expect(gtaDefinition.metrics(report)).toEqual({ InstAcc: 100, ToolAcc: 100, ArgAcc: 100, SummAcc: 50 });
      expect(formatGtaReport(report, 'scripted')).toBe(
        [
          'GTA (step-by-step): 2 queries',
          'Model                InstAcc  ToolAcc  ArgAcc  SummAcc  P_F1  O_F1  L_F1  C_F1  AnsAcc  Ans+I',
          'scripted (this run)   100.00   100.00  100.00    50.00     -     -     -     -       -      -',
          'step mode: tool_call 3, tool_call_error 0',
          '',
        ].join('\n'),
      );
      // a sample whose model call failed counts every gold step, with no credit (3 error steps)
      const failed = await loaded.task.scorer(loaded.task.dataset[0] as GtaSample, {
        output: null,
        error: 'x',
      });
      expect(failed.step).toEqual({
        inst: 0,
        tool: 0,
        arg: 0,
        summ: 0,
        totalTool: 2,
        totalAnswer: 1,
        toolCall: 3,
        toolCallError: 3,
      });
    } finally {
      await server.close();
    }
  });

  it('refuses the native tool-calling solver in step mode and unknown sample ids', async () => {
    const base = { solverOptions: {}, sampling: {}, dataDir: DATA, seed: 0 };
    await expect(
      gtaDefinition.load({ ...base, options: { mode: 'step' }, solver: 'native-tools' }),
    ).rejects.toThrow('gta: --mode step uses the official ReAct prompts; use --solver react (or step)');
    await expect(
      gtaDefinition.load({ ...base, options: { mode: 'step', ids: ['0', '99'] }, solver: 'step' }),
    ).rejects.toThrow(`gta option "ids": no sample 99 in ${join(DATA, 'dataset.json')}`);
  });
});
