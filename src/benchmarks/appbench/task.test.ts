import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PlanningAgent } from '../../agents/index.js';
import { loadCatalog } from '../../catalog/index.js';
import { expectScenarioReport, WRONG_SS1 } from '../../harness/__fixtures__/appbench-mini-scenario.js';
import { validatePlan } from '../../plan/index.js';
import { solveSample } from '../../tasks/solver.js';
import { registerBuiltinPlugins } from '../builtin.js';
import { appBenchGoldPlan } from './gold-plan.js';
import {
  appBenchGoldReply,
  appBenchTask,
  detectAppBenchPrefix,
  loadAppBenchDataset,
  seededDemoPicker,
} from './task.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

// The bundled hand-written records (our own text in the AppBench format, see its README).
const MINI = resolve(__dirname, '../../../examples/appbench-mini');
const catalog = loadCatalog('appbench');

describe('examples/appbench-mini', () => {
  const { samples, prefix } = loadAppBenchDataset(MINI);
  it('has two records per category under the official file names', () => {
    expect(prefix).toBe('test');
    expect(samples.map((s) => s.id)).toEqual([
      'ss-0',
      'ss-1',
      'sm-0',
      'sm-1',
      'ms-0',
      'ms-1',
      'mm-0',
      'mm-1',
    ]);
  });
  it.each(samples.map((s) => [s.id, s] as const))(
    '%s: gold plan valid against the appbench catalog',
    (_id, s) => {
      const { plan, repairs } = appBenchGoldPlan(s.record, catalog, s.id);
      expect(repairs).toEqual([]);
      expect(validatePlan(plan, catalog)).toEqual([]);
      const out = s.record.output;
      expect(out.used_app).toHaveLength(out.api_results.length);
      expect(out.used_api).toHaveLength(out.api_results.length);
      expect(out.result_arguments).toHaveLength(out.api_results.length);
      // result_arguments are the left-hand sides of the call strings
      out.api_results.forEach((call, i) => {
        expect(call.split(' = ')[0]).toBe(out.result_arguments[i]!.join(', '));
      });
      // user_aware_arguments = every quoted literal of the path
      const literals = Object.fromEntries(
        out.api_results.flatMap((call) => [...call.matchAll(/#(\w+)='([^']*)'/g)].map((m) => [m[1], m[2]])),
      );
      expect(out.user_aware_arguments).toEqual(literals);
    },
  );
});

describe('detectAppBenchPrefix / loadAppBenchDataset', () => {
  it('detects dev_*.json folders and loads only the categories present', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-ab-'));
    const mini = loadAppBenchDataset(MINI, { categories: ['sm'] }).samples.map((s) => s.record);
    writeFileSync(join(dir, 'dev_sm.json'), JSON.stringify(mini));
    expect(detectAppBenchPrefix(dir)).toBe('dev');
    const r = loadAppBenchDataset(dir);
    expect(r.categories).toEqual(['sm']);
    expect(r.samples.map((s) => s.id)).toEqual(['sm-0', 'sm-1']);
    expect(
      loadAppBenchDataset(MINI, { limit: 1, categories: ['mm', 'ss'] }).samples.map((s) => s.id),
    ).toEqual(['mm-0', 'ss-0']);
  });
  it('names the folder when it holds no AppBench files', () => {
    expect(() => detectAppBenchPrefix(mkdtempSync(join(tmpdir(), 'apiary-ab-')))).toThrow(
      /test_\{ss,sm,ms,mm\}\.json/,
    );
  });
  it('given the data root that holds appbench/, says to pass appbench/', () => {
    const root = mkdtempSync(join(tmpdir(), 'apiary-ab-root-'));
    mkdirSync(join(root, 'appbench'));
    writeFileSync(join(root, 'appbench', 'test_ss.json'), '[]');
    expect(() => detectAppBenchPrefix(root)).toThrow(
      expect.objectContaining({
        code: 'NOT_FOUND',
        message: `unknown AppBench data folder (expected test_{ss,sm,ms,mm}.json or dev_{ss,sm,ms,mm}.json) "${root}"; it holds appbench/ with them: pass --data ${join(root, 'appbench')}`,
      }),
    );
  });
});

describe('appBenchTask', () => {
  const { samples } = loadAppBenchDataset(MINI);
  const byInput = new Map(samples.map((s) => [s.record.input, s]));
  const scripted: PlanningAgent = {
    name: 'scripted',
    async plan(req) {
      const s = byInput.get(req.instruction)!;
      expect(req.currentDate).toBe('2019-03-01');
      if (s.id === 'mm-0') throw new Error('endpoint failed');
      if (s.id === 'ss-1')
        return { reply: WRONG_SS1, usage: { inputTokens: 5, outputTokens: 3 }, modelCalls: 1 };
      const gold = appBenchGoldReply(s.record);
      const reply = s.id === 'ms-0' ? gold.split('\n')[0]! : gold;
      return {
        reply,
        rawReply: `Here you go:\n${reply}`,
        usage: { inputTokens: 5, outputTokens: 3 },
        modelCalls: 1,
        attempts: 1,
      };
    },
  };
  it('solves with the agent and scores the scripted scenario to the hand-computed report', async () => {
    const task = appBenchTask({ samples, catalog, agent: scripted });
    const scores = [];
    for (const s of samples) {
      let outcome: Parameters<typeof task.scorer>[1];
      try {
        outcome = { output: (await solveSample(task, s, { seed: 0 })).output };
      } catch (e) {
        outcome = { output: null, error: (e as Error).message };
      }
      scores.push(JSON.parse(JSON.stringify(await task.scorer(s, outcome))));
    }
    expectScenarioReport(task.summarize(scores));
    expect(task.formatReport!(task.summarize(scores))).toContain('Success (Succ)');
  });
  it('records the raw reply only when cleaning changed it', async () => {
    const task = appBenchTask({ samples, catalog, agent: scripted });
    const ss0 = (await solveSample(task, samples[0]!, { seed: 0 })).output;
    expect(ss0.reply).toBe(
      "Weather: [precipitation, humidity, wind, temperature, city, date = getweather(#city='Portland', #date='2019-03-05')]",
    );
    expect(ss0.rawReply).toBe(`Here you go:\n${ss0.reply}`);
    expect((await solveSample(task, samples[1]!, { seed: 0 })).output).toEqual({ reply: WRONG_SS1 });
  });
});

describe('seededDemoPicker', () => {
  const { samples } = loadAppBenchDataset(MINI);
  it('draws k demos from the other samples, deterministically per seed', async () => {
    const pick = seededDemoPicker(samples, 3, 1);
    const self = samples[2]!.record.input;
    const demos = await pick(self);
    expect(demos).toHaveLength(3);
    expect(demos.map((d) => d.instruction)).not.toContain(self);
    for (const d of demos)
      expect(d.reply).toBe(appBenchGoldReply(samples.find((s) => s.record.input === d.instruction)!.record));
    expect(await seededDemoPicker(samples, 3, 1)(self)).toEqual(demos);
    expect(await seededDemoPicker(samples, 0, 1)(self)).toEqual([]);
    expect(await seededDemoPicker(samples, 20, 1)(self)).toHaveLength(7);
  });
});
