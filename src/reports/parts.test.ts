import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { gtaScoreFacts } from '../benchmarks/gta/report.js';
import { headerLine, ResultsWriter, type RunSpec } from '../harness/index.js';
import { type BenchmarkPlugin, PluginRegistry } from '../plugins/index.js';
import { defineSolver, type TaskDefinition, TaskRegistry } from '../tasks/index.js';
import { buildHtmlReport, buildHtmlReportFromFolders } from './build.js';
import { type ReportParts, taskReportParts } from './parts.js';
import { loadPublishedResults } from './published.js';
import { loadReportRun } from './run.js';
import { commonBlocks } from './sections/common.js';

/*
 * A benchmark the core has never heard of, registered from outside: its report section, its
 * published numbers and its own summary reach the HTML report through its plugin alone.
 */

const NOW = () => new Date('2026-02-03T04:05:06.000Z');

/** A task definition that is never loaded: its summary is the mean accuracy. */
const toyDefinition: TaskDefinition = {
  name: 'toy',
  description: 'toy task',
  version: '1',
  options: z.object({}),
  solvers: {
    scripted: defineSolver({
      name: 'scripted',
      description: 'scripted',
      args: z.object({}),
      needsModel: false,
      create: () => async (state) => state,
    }),
  },
  defaultSolver: 'scripted',
  load: () => Promise.reject(new Error('not loaded in this test')),
  summarize: (scores: readonly { accuracy: number }[]) => ({
    mean: scores.reduce((t, s) => t + s.accuracy, 0) / scores.length,
  }),
  metrics: (r: { mean: number }) => ({ accuracy: r.mean }),
};

function toyPlugin(publishedReads: string[]): BenchmarkPlugin {
  const report: ReportParts<{ best: number }> = {
    published: (dir) => {
      publishedReads.push(dir);
      return { best: 0.9 };
    },
    tasks: {
      toy: {
        title: 'Toy benchmark',
        section: async (runs, published) => [
          ...commonBlocks(runs),
          {
            kind: 'note',
            text: `${runs.map((r) => r.summary.headline.accuracy?.mean).join(' / ')} vs published ${published.best}`,
          },
        ],
        viewer: { hiddenOutputFields: ['agent'] },
      },
    },
  };
  return {
    name: 'toy-bench',
    description: 'a toy benchmark',
    tasks: [{ name: 'toy', description: 'toy task', load: async () => toyDefinition }],
    report: async () => report,
  };
}

function writeRun(dir: string, accuracies: number[]): string {
  mkdirSync(dir, { recursive: true });
  const spec: RunSpec = {
    version: 2,
    task: { name: 'toy', version: '1', options: {} },
    solver: { name: 'scripted', options: {} },
    model: null,
    sampling: null,
    data: { path: '/nowhere', sha256: null },
    limit: null,
    size: accuracies.length,
    seed: 0,
    epochs: 1,
    concurrency: 1,
    price: null,
    gitRevision: null,
    packageVersion: '0.0.0',
    startedAt: '2026-01-01T00:00:00.000Z',
  };
  const w = ResultsWriter.open(join(dir, 'results.jsonl'));
  w.append(headerLine(spec));
  for (const [i, accuracy] of accuracies.entries())
    w.append({
      type: 'sample',
      id: `t-${i}`,
      epoch: 1,
      category: null,
      output: null,
      error: null,
      usage: null,
      modelCalls: 0,
      startedAt: '2026-01-01T00:00:01.000Z',
      durationMs: 1,
      score: { accuracy },
    });
  w.close();
  return dir;
}

describe("a plugin's report parts", () => {
  it('give its task section, its published numbers (read once, from the folder given) and its title', async () => {
    const reads: string[] = [];
    const plugins = new PluginRegistry();
    plugins.register(toyPlugin(reads));
    const tasks = new TaskRegistry();
    const root = mkdtempSync(join(tmpdir(), 'apiary-report-parts-'));
    const folders = [writeRun(join(root, 'a'), [1, 0]), writeRun(join(root, 'b'), [1, 1])];
    const html = await buildHtmlReportFromFolders(folders, { plugins, publishedDir: '/pub', now: NOW });
    expect(html).toContain('<h2>Toy benchmark</h2>');
    expect(html).toContain('<p class="note">0.5 / 1 vs published 0.9</p>');
    expect(reads).toEqual(['/pub']);
    // numbers given by plugin name are used as they are (the plugin's task is loaded into `tasks`)
    const runs = [await loadReportRun(folders[0]!, tasks, plugins)];
    expect(tasks.has('toy')).toBe(true);
    const given = await buildHtmlReport(runs, {
      plugins,
      published: { 'toy-bench': { best: 0.25 } },
      now: NOW,
    });
    expect(given).toContain('<p class="note">0.5 vs published 0.25</p>');
    expect(reads).toEqual(['/pub']);
    expect(await loadPublishedResults('/other', plugins)).toEqual({ 'toy-bench': { best: 0.9 } });
    // without the plugin the task gets the run facts only
    const bare = await buildHtmlReport(runs, { plugins: new PluginRegistry(), now: NOW });
    expect(bare).toContain('<h2>toy</h2>');
    expect(bare).toContain('No report layout for task &quot;toy&quot;: run facts and headline metrics only.');
  });

  it('are found by the task name of the plugin that lists it; none for other names', async () => {
    const plugins = new PluginRegistry();
    plugins.register(toyPlugin([]));
    const found = await taskReportParts('toy', plugins);
    expect([found?.plugin.name, found?.task.title, found?.task.viewer]).toEqual([
      'toy-bench',
      'Toy benchmark',
      { hiddenOutputFields: ['agent'] },
    ]);
    expect(await taskReportParts('other', plugins)).toBeNull();
    expect(await taskReportParts('toString', plugins)).toBeNull();
  });

  it('of the built-in benchmarks: a title for each task, GTA with its own summary and viewer hints', async () => {
    const plugins = registerBuiltinPlugins(new PluginRegistry());
    const titles: Array<[string, string | undefined]> = [];
    for (const task of ['appbench', 'shortcuts', 'gta', 'toolbench-retrieval'])
      titles.push([task, (await taskReportParts(task, plugins))?.task.title]);
    expect(titles).toEqual([
      ['appbench', 'AppBench / MetaBench'],
      ['shortcuts', 'ShortcutsBench'],
      ['gta', 'GTA'],
      ['toolbench-retrieval', 'ToolBench retrieval'],
    ]);
    const gta = (await taskReportParts('gta', plugins))!.task;
    expect(Object.keys(gta.summary!)).toEqual(['summarize', 'metrics']);
    expect(
      gtaScoreFacts({
        step: null,
        e2e: { predictedTools: ['OCR', 'Calculator'], goldTools: ['OCR'], answerCorrect: false },
      }),
    ).toEqual([
      ['tools called', 'OCR, Calculator'],
      ['gold tools', 'OCR'],
      ['answer', 'wrong'],
    ]);
    expect(gtaScoreFacts({ step: { inst: 1 } })).toEqual([]);
    expect(gta.viewer!.answer!({ answer: '42', mode: 'e2e' })).toBe('42');
    expect(gta.viewer!.answer!(null)).toBeNull();
    const published = await loadPublishedResults(undefined, plugins);
    expect(Object.keys(published).sort()).toEqual(['appbench', 'gta', 'shortcutsbench']);
    expect((published.appbench as { source: string }).source).toBe(
      'MetaBench paper, Table 3 (official scoring)',
    );
  });
});
