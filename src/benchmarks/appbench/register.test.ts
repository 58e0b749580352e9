import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256OfFiles } from '../../shared/index.js';
import { chain, createSolver, solveSample } from '../../tasks/solver.js';
import { scriptedLanguageModel } from '../../test/index.js';
import { appBenchCatalogSource } from './catalog.js';
import { APPBENCH_SOLVERS, appBenchDefinition } from './register.js';
import { formatAppBenchReport } from './report-format.js';
import type { AppBenchSample } from './sample.js';
import { appBenchDemos, appBenchGoldReply, appBenchPlanner, loadAppBenchDataset } from './task.js';

const MINI = resolve(__dirname, '../../../examples/appbench-mini');
const { samples } = loadAppBenchDataset(MINI);
const byInput = new Map(samples.map((s) => [s.record.input, s]));
const sampling = { temperature: 0, topP: 0, maxOutputTokens: 1024 };

describe('appbench task definition', () => {
  it('loads the asked categories, first N of each, and hashes exactly the files read', async () => {
    const loaded = await appBenchDefinition.load({
      options: { categories: ['ss', 'mm'] },
      solver: 'baseline',
      solverOptions: {},
      sampling,
      dataDir: MINI,
      seed: 0,
      limit: 1,
    });
    expect(loaded.task.dataset.map((s) => s.id)).toEqual(['ss-0', 'mm-0']);
    expect(loaded.dataSource).toEqual({
      path: MINI,
      sha256: sha256OfFiles([join(MINI, 'test_ss.json'), join(MINI, 'test_mm.json')]),
    });
    expect(loaded.notes).toEqual([`data: ${MINI} (given with --data; test_*.json, 2 samples in ss, mm)`]);
    const sample = loaded.task.dataset[1]!;
    const solved = await solveSample(loaded.task, sample, { seed: 0 });
    expect(solved.modelCalls).toBe(0);
  });

  it('flat: the model, sampling settings and seeded k-shot demos reach the agent', async () => {
    const model = scriptedLanguageModel((req) => {
      const s = byInput.get(req.messages.at(-1)!.content)!;
      return { text: appBenchGoldReply(s.record), usage: { prompt_tokens: 100, completion_tokens: 10 } };
    });
    const loaded = await appBenchDefinition.load({
      options: { categories: ['sm', 'mm'] },
      solver: 'flat',
      solverOptions: { shots: 1, demos: 'random' },
      model,
      sampling: { temperature: 0.5, topP: null, maxOutputTokens: 64 },
      dataDir: MINI,
      seed: 0,
      limit: 1,
    });
    const sm0 = loaded.task.dataset[0]!;
    const solved = await solveSample(loaded.task, sm0, { seed: 0 });
    const score = await loaded.task.scorer(sm0, { output: solved.output });
    expect(solved.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
    expect(appBenchDefinition.passed!(score)).toBe(true);
    const [req] = model.scriptedRequests;
    // the one other sample of the limited pool (mm-0) is the demonstration
    const mm0 = loaded.task.dataset[1] as AppBenchSample;
    expect(req!.messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(req!.messages[1]!.content).toBe(mm0.record.input);
    expect(req!.body).toMatchObject({ temperature: 0.5, maxOutputTokens: 64 });
    expect((req!.body as { topP?: number }).topP).toBeUndefined();
  });

  it('headline metrics and pass/fail come from the report and the corrected score', async () => {
    const loaded = await appBenchDefinition.load({
      options: { categories: ['ss'] },
      solver: 'baseline',
      solverOptions: {},
      sampling,
      dataDir: MINI,
      seed: 0,
    });
    const [ss0, ss1] = loaded.task.dataset as AppBenchSample[];
    const good = await loaded.task.scorer(ss0!, { output: { reply: appBenchGoldReply(ss0!.record) } });
    const failed = await loaded.task.scorer(ss1!, { output: null, error: 'timeout' });
    expect([appBenchDefinition.passed!(good), appBenchDefinition.passed!(failed)]).toEqual([true, false]);
    const report = appBenchDefinition.summarize([good, failed]);
    // in % like the report's tables (the summary and the HTML report print them with --epochs)
    expect(appBenchDefinition.metrics(report)).toEqual({
      'official.appF1': 100,
      'official.argF1': 100,
      'official.success': 100, // the failed generation is dropped by the official scorer
      'corrected.appF1': 100 * (2 / 3),
      'corrected.argF1': expect.any(Number),
      'corrected.success': 50,
    });
  });

  it('with no sample kept by the official scorer, no official number is shown (its zero guards read 100)', async () => {
    const loaded = await appBenchDefinition.load({
      options: { categories: ['ss'] },
      solver: 'baseline',
      solverOptions: {},
      sampling,
      dataDir: MINI,
      seed: 0,
    });
    const ss1 = loaded.task.dataset[1] as AppBenchSample;
    const report = appBenchDefinition.summarize([
      await loaded.task.scorer(ss1, { output: null, error: 'timeout' }),
    ]);
    expect(report.scoredOfficial).toBe(0);
    expect(appBenchDefinition.metrics(report)).toEqual({
      'corrected.appF1': 0,
      'corrected.argF1': 0,
      'corrected.success': 0,
    });
    const lines = formatAppBenchReport(report).split('\n');
    expect(lines.filter((l) => /^ {2}(in)?dependent /.test(l))).toEqual([
      // corrected: the gold plan has no dependent argument (nothing to get wrong), the others were missed
      '  dependent     —     100.00',
      '  independent   —       0.00',
    ]);
    expect(lines.find((l) => l.startsWith('ss '))).toBe(
      'ss        0/1           —           —           —         —        0.00        0.00        0.00      0.00',
    );
  });

  it('every solver names its model needs; adding one is an entry of APPBENCH_SOLVERS', () => {
    expect(Object.entries(APPBENCH_SOLVERS).map(([n, s]) => [n, s.needsModel])).toEqual([
      ['flat', true],
      ['hierarchical', true],
      ['baseline', false],
      ['tool-loop', true],
    ]);
    expect(appBenchDefinition.solvers).toBe(APPBENCH_SOLVERS);
  });
});

describe('appbench solvers as values', () => {
  const catalog = appBenchCatalogSource.load({});

  it('the demos step runs before the planner and hands it the demos of the sample (chain order)', async () => {
    const calls: string[] = [];
    const pick = async (instruction: string) => {
      calls.push(`demos for ${byInput.get(instruction)!.id}`);
      return [{ instruction: 'earlier instruction', reply: 'Weather: [x = getweather()]' }];
    };
    const planner = appBenchPlanner(
      (demos) => ({
        name: 'echo',
        plan: async (req) => {
          calls.push(`plan ${byInput.get(req.instruction)!.id} with ${demos?.length ?? 0} demo(s)`);
          return {
            reply: demos?.[0]?.reply ?? '',
            usage: { inputTokens: 3, outputTokens: 1 },
            modelCalls: 1,
          };
        },
      }),
      { catalog },
    );
    const ss0 = samples.find((s) => s.id === 'ss-0')!;
    const solved = await solveSample({ name: 'appbench', solver: chain(appBenchDemos(pick), planner) }, ss0, {
      seed: 0,
    });
    expect(calls).toEqual(['demos for ss-0', 'plan ss-0 with 1 demo(s)']);
    expect(solved).toEqual({
      output: { reply: 'Weather: [x = getweather()]' },
      usage: { inputTokens: 3, outputTokens: 1 },
      modelCalls: 1,
    });
    // without the demos step the planner gets none
    await solveSample({ name: 'appbench', solver: planner }, ss0, { seed: 0 });
    expect(calls.at(-1)).toBe('plan ss-0 with 0 demo(s)');
  });

  it('a bad solver argument names the solver and the argument', async () => {
    const env = {
      ctx: { options: {}, solver: 'flat', solverOptions: {}, sampling, seed: 0 },
      pool: samples,
      catalog,
    };
    const world = () => {
      throw new Error('no world for these solvers');
    };
    expect(() => createSolver(APPBENCH_SOLVERS.flat, { shots: -1 }, { ...env, world })).toThrow(
      'solver "flat" option "shots": Too small: expected number to be >=0',
    );
    expect(() => createSolver(APPBENCH_SOLVERS['tool-loop'], { maxSteps: 0 }, { ...env, world })).toThrow(
      'solver "tool-loop" option "maxSteps": Too small: expected number to be >=1',
    );
  });

  it('tool-loop: the scorer adds the state score of the simulated apps it acts on (the others do not)', async () => {
    const load = (solver: string) =>
      appBenchDefinition.load({
        options: { categories: ['ss'] },
        solver,
        solverOptions: {},
        sampling,
        dataDir: MINI,
        seed: 0,
        limit: 1,
      });
    const [toolLoop, flat] = [await load('tool-loop'), await load('flat')];
    const ss0 = toolLoop.task.dataset[0] as AppBenchSample;
    const output = { reply: appBenchGoldReply(ss0.record) };
    const withState = await toolLoop.task.scorer(ss0, { output });
    expect(withState.state).toMatchObject({ goldExecuted: true });
    expect((await flat.task.scorer(ss0, { output })).state).toBeUndefined();
  });
});
