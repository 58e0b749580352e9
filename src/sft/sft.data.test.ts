import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  APPBENCH_SFT_STYLES,
  appBenchDemoKnowledgeBase,
  appBenchSftStyle,
  loadAppBenchGoldTasks,
} from '../benchmarks/appbench/sft-source.js';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { indexCatalog, loadCatalog } from '../catalog/index.js';
import { parsePlanText, printPlanText, validatePlan } from '../plan/index.js';
import { printAppPrefixedPlan } from '../retrieval/index.js';
import { buildSftSamples } from './build-sft.js';
import { formatSftJsonl, OpenAiChatLineSchema, ShareGptLineSchema } from './sft-format.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const DATA = resolve(process.cwd(), '../shared/data');
const catalog = loadCatalog('appbench', { dataDir: DATA });
const index = indexCatalog(catalog);
const tasks = loadAppBenchGoldTasks(DATA, catalog);

describe('SFT data from the AppBench dev files', () => {
  it('uses every dev record (all 200 gold plans validate since arguments come from every SGD version)', async () => {
    expect(tasks).toHaveLength(200);
    const { samples, stats } = await buildSftSamples(tasks, catalog, {
      seed: 1,
      balance: 'none',
      style: appBenchSftStyle,
    });
    expect(stats.skipped.map((s) => s.id)).toEqual([]);
    expect(stats).toMatchObject({ samples: 200, single: 50, multi: 150, repeats: 0 });
    expect(stats.perCategory).toEqual({ mm: 50, ms: 50, sm: 50, ss: 50 });
    expect(new Set(samples.map((s) => s.id)).size).toBe(200);
  });

  it.each([
    ['appbench', printAppPrefixedPlan],
    ['compact', printPlanText],
  ] as const)(
    'balances single/multi 1:1 by upsampling; every %s reply parses back into a valid plan',
    async (style, print) => {
      const { samples, stats } = await buildSftSamples(tasks, catalog, {
        seed: 1,
        distractors: 5,
        style: APPBENCH_SFT_STYLES[style],
      });
      expect(stats).toMatchObject({ samples: 300, single: 150, multi: 150, repeats: 100, balanced: true });
      for (const s of samples) {
        const { plan, skipped } = parsePlanText(s.assistant, { source: s.id });
        expect(skipped).toEqual([]);
        expect(plan.steps).toHaveLength(s.steps);
        expect(validatePlan(plan, index)).toEqual([]);
        expect(print(plan)).toBe(s.assistant);
        const gold = [...new Set(plan.steps.map((st) => index.api(st.app, st.api)!.id))];
        expect(s.listedApis).toHaveLength(gold.length + 5);
        for (const id of gold) expect(s.listedApis).toContain(id);
        for (const id of s.distractors) expect(gold).not.toContain(id);
      }
      for (const line of formatSftJsonl(samples, 'openai').trimEnd().split('\n'))
        expect(OpenAiChatLineSchema.safeParse(JSON.parse(line)).success).toBe(true);
      for (const line of formatSftJsonl(samples, 'sharegpt').trimEnd().split('\n'))
        expect(ShareGptLineSchema.safeParse(JSON.parse(line)).success).toBe(true);
    },
  );

  it('builds the demo knowledge base: 200 task demos, one API demo per API (synthetic only where no gold step)', () => {
    const kb = appBenchDemoKnowledgeBase(tasks, catalog);
    expect(kb.taskDemos).toHaveLength(200);
    expect(kb.apiDemos).toHaveLength(33);
    // no dev gold plan calls these (checked with grep over the api_results of dev_*.json)
    const goldless = kb.apiDemos
      .filter((d) => d.examples.every((e) => e.source === 'synthetic'))
      .map((d) => d.api);
    expect(goldless).toEqual([
      'Hotels.bookhouse',
      'Homes.findhomebyarea',
      'Homes.schedulevisit',
      'Media.findmovies',
      'Media.playmovie',
      'Movies.gettimesformovie',
      'Services.book_stylist_appointment',
      'Services.find_stylist_provider',
      'Services.book_therapist_appointment',
      'Services.find_therapist_provider',
      'Weather.getweather',
    ]);
    for (const d of kb.apiDemos)
      for (const e of d.examples) {
        const { plan } = parsePlanText(e.reply);
        expect(plan.steps.map((s) => `${s.app}.${s.api}`)).toEqual([d.api]);
      }
  });
});
