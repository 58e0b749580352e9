import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { solveSample } from '../../tasks/solver.js';
import { loadShortcutsApis } from './api-files.js';
import { baselineParameters, baselineStepper } from './baseline.js';
import { loadCategories, loadGoldShortcuts, loadQueries, loadSignificantParams } from './data-files.js';
import { dumpsPythonJson, type Json, type JsonObject } from './json-value.js';
import { SHORTCUTS_SOLVERS, shortcutsDefinition } from './register.js';
import { parseResultRecords } from './result-records.js';
import { scoreResultRecord } from './score-record.js';
import { summarizeShortcuts } from './summary.js';
import { solveShortcut } from './teacher-forced.js';

const dir = join(import.meta.dirname, '__fixtures__/authored');
const apis = loadShortcutsApis(dir);

describe('baseline parameters', () => {
  it('uses declared defaults, the previous output for objects, Ask for strings', () => {
    const history: JsonObject[] = [
      {
        WFWorkflowActionIdentifier: 'is.workflow.actions.getclipboard',
        WFWorkflowActionParameters: { UUID: 'U1', OutputName: 'Clipboard' },
      },
    ];
    expect(
      dumpsPythonJson(baselineParameters(apis.paraTypes['is.workflow.actions.speaktext']!, history)),
    ).toBe(
      '{"WFSpeakTextWait": true, "WFSpeakTextRate": 0.5, "WFSpeakTextPitch": 1.0, "WFSpeakTextLanguage": "Default", "WFSpeakTextVoice": "Default", "WFText": {"Value": {"Type": "Ask"}, "WFSerializationType": "WFTextTokenAttachment"}}',
    );
    expect(
      dumpsPythonJson(baselineParameters({ WFInput: 'WFVariablePickerParameter(Object)' }, history)),
    ).toBe(
      '{"WFInput": {"Value": {"OutputUUID": "U1", "Type": "ActionOutput", "OutputName": "Clipboard"}, "WFSerializationType": "WFTextTokenAttachment"}}',
    );
    expect(dumpsPythonJson(baselineParameters({ WFInput: 'File(Object)', WFCount: 'Integer' }, []))).toBe(
      '{"WFInput": {"Value": {"Type": "Ask"}, "WFSerializationType": "WFTextTokenAttachment"}}',
    );
  });
});

describe('baseline on the authored fixtures (run seed 0)', () => {
  it('produces records the scorer reads, with these numbers in both modes', async () => {
    const gold = loadGoldShortcuts(dir);
    const significant = loadSignificantParams(dir);
    const categories = loadCategories(dir);
    const scores = [];
    for (const [url, query] of loadQueries(dir)) {
      const record = gold.get(url);
      if (!record) continue;
      const actions = (record.shortcut as JsonObject).WFWorkflowActions as Json[];
      const run = await solveShortcut({ url, query, actions }, apis, 0, baselineStepper(apis));
      expect(run.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
      const [parsed] = parseResultRecords(run.resultLine, url);
      scores.push(scoreResultRecord(parsed!, significant, (u) => categories.get(u)));
    }
    const official = summarizeShortcuts(scores, 'official');
    const corrected = summarizeShortcuts(scores, 'corrected');
    expect(official.shortcuts).toBe(12);
    expect([official.api.overall, official.primitive.overall, official.previousOutput.overall]).toEqual([
      { num: 17, den: 60, accuracy: (100 * 17) / 60 },
      { num: 3, den: 8, accuracy: 37.5 },
      { num: 1, den: 4, accuracy: 25 },
    ]);
    expect(official.systemInput.overall).toEqual({ num: 0, den: 3, accuracy: 0 });
    expect(official.api.byLevel).toEqual({
      L1: { num: 3, den: 3, accuracy: 100 },
      L2: { num: 5, den: 11, accuracy: (100 * 5) / 11 },
      L3: { num: 4, den: 25, accuracy: 16 },
      L4: { num: 5, den: 21, accuracy: (100 * 5) / 21 },
    });
    expect(official.previousOutput.errors).toEqual({ noPrediction: 1, formatError: 2, valueError: 0 });
    // corrected: the legacy `Input` counts as ExtensionInput (one more system input, missed)
    expect(corrected.api.overall).toEqual(official.api.overall);
    expect(corrected.primitive.overall).toEqual(official.primitive.overall);
    expect(corrected.systemInput.overall).toEqual({ num: 0, den: 4, accuracy: 0 });
    expect(corrected.byApiListSize.map((b) => [b.bucket, b.wrong, b.hallucinations])).toEqual([
      ['<=5', 0, 0],
      ['6-10', 1, 0],
      ['11-15', 5, 0],
      ['16-20', 21, 0],
      ['>20', 16, 0],
    ]);
  });
});

describe('the registered solvers of the shortcuts task', () => {
  const load = (solver: string) =>
    shortcutsDefinition.load({ options: {}, solver, solverOptions: {}, sampling: {}, dataDir: dir, seed: 0 });

  it('baseline as a solver value: no model calls recorded, the same numbers as the loop above', async () => {
    const { task } = await load('baseline');
    const scores = [];
    for (const sample of task.dataset) {
      const solved = await solveSample(task, sample, { seed: 0 });
      expect([solved.modelCalls, solved.usage]).toEqual([0, { inputTokens: 0, outputTokens: 0 }]);
      scores.push(await task.scorer(sample, { output: solved.output }));
    }
    const official = summarizeShortcuts(scores, 'official');
    expect(official.shortcuts).toBe(12);
    expect([official.api.overall, official.primitive.overall, official.previousOutput.overall]).toEqual([
      { num: 17, den: 60, accuracy: (100 * 17) / 60 },
      { num: 3, den: 8, accuracy: 37.5 },
      { num: 1, den: 4, accuracy: 25 },
    ]);
  });

  it('teacher-forced refuses to be built without a model; an unknown solver lists the solvers', async () => {
    expect(Object.keys(SHORTCUTS_SOLVERS)).toEqual(['teacher-forced', 'baseline']);
    await expect(load('teacher-forced')).rejects.toThrow(
      'the teacher-forced solver needs a model: pass --model and --base-url, or --solver baseline',
    );
    await expect(load('greedy')).rejects.toThrow(
      'task "shortcuts" has no solver "greedy" (solvers: teacher-forced, baseline)',
    );
  });
});
