import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppBenchSampleScoreSchema, ErrorCountsSchema } from '../benchmarks/appbench/index.js';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { shortcutsDefinition } from '../benchmarks/shortcutsbench/index.js';
import { buildRunSpec, type RunSpec, runEval } from '../harness/index.js';
import { buildHtmlReport } from './build.js';
import { loadReportRun } from './run.js';

// the entry point's part (the CLI, src/index.ts): the built-in tasks, loaded from their plugins
beforeAll(async () => {
  await registerBuiltinPlugins().loadTasks();
});

const ROOT = mkdtempSync(join(tmpdir(), 'apiary-report-'));
afterAll(() => {
  // temp folders are left to the OS; nothing else to close
});

function spec(over: Partial<RunSpec> & { task: RunSpec['task'] }): RunSpec {
  return {
    version: 2,
    solver: { name: 'flat', options: {} },
    model: { id: 'm-a', baseUrl: null },
    sampling: { temperature: 0, topP: null, maxOutputTokens: 512 },
    data: { path: '/data', sha256: 'aaaa' },
    limit: null,
    size: 0,
    seed: 0,
    epochs: 1,
    concurrency: 1,
    price: null,
    gitRevision: null,
    packageVersion: '0.0.0',
    startedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

interface Sample {
  id: string;
  category: string;
  score: unknown;
  epoch?: number;
}

/** Writes an authored run folder: the header record, then one record per sample. */
function runFolder(name: string, s: RunSpec, samples: Sample[]): string {
  const dir = join(ROOT, name);
  mkdirSync(dir, { recursive: true });
  const lines = [
    { type: 'header', spec: s },
    ...samples.map((x) => ({
      type: 'sample',
      id: x.id,
      epoch: x.epoch ?? 1,
      category: x.category,
      output: null,
      error: null,
      usage: null,
      modelCalls: 1,
      startedAt: '2026-01-01T00:00:01.000Z',
      durationMs: 10,
      score: x.score,
    })),
  ];
  writeFileSync(join(dir, 'results.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return dir;
}

/** The cells of every row of the table whose caption starts with `caption`. */
function tableRows(html: string, caption: string): string[][] {
  const tables = html.split('<table>').slice(1);
  const t = tables.find((x) => x.includes(`<caption>${caption}`));
  if (!t) throw new Error(`no table "${caption}"`);
  const body = t.slice(t.indexOf('<tbody>'), t.indexOf('</tbody>'));
  return [...body.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!),
  );
}

const zeros = (shape: object) => Object.fromEntries(Object.keys(shape).map((k) => [k, 0]));
const official = (over: Record<string, number>) => ({
  ...zeros(AppBenchSampleScoreSchema.shape.official.unwrap().shape),
  ...over,
});
const appScore = (
  id: string,
  category: string,
  off: Record<string, number>,
  cor: Record<string, number>,
) => ({
  id,
  category,
  parallelScale: 1,
  sequentialScale: category === 'ss' ? 1 : 2,
  failed: false,
  official: official(off),
  corrected: { ...zeros(AppBenchSampleScoreSchema.shape.corrected.shape), ...cor },
  errors: zeros(ErrorCountsSchema.shape),
  goldRepairs: 0,
  goldUnreadable: 0,
});

const appbenchRun = () =>
  runFolder('appbench', spec({ task: { name: 'appbench', version: '3', options: {} }, size: 3 }), [
    {
      id: 'ss-1',
      category: 'ss',
      score: appScore(
        'ss-1',
        'ss',
        { predApps: 1, goldApps: 1, appHit: 1, predApis: 1, goldApis: 1, apiHit: 1, complete: 1 },
        { predCalls: 1, goldCalls: 1, appHit: 1, apiHit: 1, success: 1 },
      ),
    },
    {
      id: 'ss-2',
      category: 'ss',
      score: appScore(
        'ss-2',
        'ss',
        { predApps: 1, goldApps: 1, predApis: 1, goldApis: 1 },
        { predCalls: 1, goldCalls: 1 },
      ),
    },
    {
      id: 'sm-1',
      category: 'sm',
      score: appScore(
        'sm-1',
        'sm',
        { predApps: 2, goldApps: 2, appHit: 2, predApis: 2, goldApis: 2, apiHit: 1 },
        { predCalls: 2, goldCalls: 2, appHit: 2 },
      ),
    },
  ]);

const gtaRun = () =>
  runFolder(
    'gta',
    spec({
      task: { name: 'gta', version: '1', options: {} },
      solver: { name: 'step', options: {} },
      model: { id: 'm-g', baseUrl: null },
      size: 2,
    }),
    [
      {
        id: 'g1',
        category: 'gta',
        score: {
          step: {
            inst: 2,
            tool: 1,
            arg: 1,
            summ: 1,
            totalTool: 1,
            totalAnswer: 1,
            toolCall: 1,
            toolCallError: 0,
          },
          e2e: {
            predictedTools: ['OCR', 'Calculator'],
            goldTools: ['OCR', 'Calculator'],
            answerCorrect: true,
          },
        },
      },
      {
        id: 'g2',
        category: 'gta',
        score: {
          step: {
            inst: 1,
            tool: 0,
            arg: 0,
            summ: 0,
            totalTool: 2,
            totalAnswer: 1,
            toolCall: 2,
            toolCallError: 1,
          },
          e2e: {
            predictedTools: ['OCR', 'OCR'],
            goldTools: ['ImageDescription', 'Calculator'],
            answerCorrect: false,
          },
        },
      },
    ],
  );

const tb = (id: string, group: string, v: number) => ({
  id,
  group,
  ndcg1: v,
  ndcg3: v,
  ndcg5: v,
  recall5: v,
  recall10: v,
});
const TB_TASK = { name: 'toolbench-retrieval', version: '1', options: {} };
const toolbenchRuns = () => [
  runFolder(
    'tb-a',
    spec({
      task: TB_TASK,
      solver: { name: 'bm25', options: {} },
      model: { id: 'tb-a', baseUrl: null },
      size: 4,
    }),
    [
      { id: 'q1', category: 'G1_tool', score: tb('q1', 'G1_tool', 1) },
      { id: 'q2', category: 'G1_instruction', score: tb('q2', 'G1_instruction', 0.5) },
      { id: 'q3', category: 'G1_tool', score: tb('q3', 'G1_tool', 1) },
      { id: 'q4', category: 'G1_instruction', score: tb('q4', 'G1_instruction', 0) },
    ],
  ),
  runFolder(
    'tb-b',
    spec({
      task: TB_TASK,
      solver: { name: 'bm25', options: {} },
      model: { id: 'tb-b', baseUrl: null },
      sampling: { temperature: 0.7, topP: null, maxOutputTokens: 512 },
      data: { path: '/elsewhere', sha256: 'bbbb' },
      size: 4,
      epochs: 2,
    }),
    [
      { id: 'q1', category: 'G1_tool', score: tb('q1', 'G1_tool', 1) },
      { id: 'q2', category: 'G1_instruction', score: tb('q2', 'G1_instruction', 0.5) },
      { id: 'q3', category: 'G1_tool', score: tb('q3', 'G1_tool', 1) },
      { id: 'q4', category: 'G1_instruction', score: tb('q4', 'G1_instruction', 0) },
      { id: 'q1', epoch: 2, category: 'G1_tool', score: tb('q1', 'G1_tool', 0) },
      { id: 'q2', epoch: 2, category: 'G1_instruction', score: tb('q2', 'G1_instruction', 0) },
      { id: 'q3', epoch: 2, category: 'G1_tool', score: tb('q3', 'G1_tool', 1) },
      { id: 'q4', epoch: 2, category: 'G1_instruction', score: tb('q4', 'G1_instruction', 0) },
    ],
  ),
];

const NOW = () => new Date('2026-02-03T04:05:06.000Z');

describe('HTML report over authored run folders', () => {
  it('AppBench: MetaBench Table 3 layout with the paper rows, corrected scores, three charts', async () => {
    const html = await buildHtmlReport([await loadReportRun(appbenchRun())], { now: NOW });
    // SS: app F1(1/2, 1/2), API F1(1/2, 1/2), Succ 1/2; SM: app F1(2/2, 2/2), API F1(1/2, 1/2), Succ 0/1
    const rows = tableRows(html, 'By category, official scoring');
    expect(rows[0]).toEqual([
      'm-a · flat',
      '50.00',
      '50.00',
      '50.00',
      '100.00',
      '50.00',
      '0.00',
      ...Array(6).fill('—'),
    ]);
    expect(rows.at(-1)).toEqual([
      'GPT-4o (published, test (full))',
      ...[
        '88.31',
        '86.87',
        '70.92',
        '50.83',
        '50.57',
        '20.50',
        '39.39',
        '39.14',
        '11.00',
        '32.62',
        '32.35',
        '2.00',
      ],
    ]);
    expect(rows).toHaveLength(1 + 9);
    expect(html).toContain('<tr class="published"><td>Mistral-7B (published, test (full))</td>');
    // corrected, calls aligned: SS app and API 1 of 2 both ways; SM apps 2 of 2, no API right
    expect(tableRows(html, 'By category, corrected scoring')[0]!.slice(0, 7)).toEqual([
      'm-a · flat',
      '50.00',
      '50.00',
      '50.00',
      '100.00',
      '0.00',
      '0.00',
    ]);
    // sequential scale: ss samples have 1 call in sequence, the sm sample 2
    expect(tableRows(html, 'By number of calls in sequence')).toEqual([
      ['1', '2', '50.00', '50.00', '50.00'],
      ['2', '1', '0.00', '0.00', '0.00'],
    ]);
    expect(html.match(/<svg/g)).toHaveLength(3);
    expect(html).toContain('generated 2026-02-03T04:05:06.000Z');
  });

  it('GTA: leaderboard layout from step counts and tool names, published leaderboard beside, F1 per tool', async () => {
    const html = await buildHtmlReport([await loadReportRun(gtaRun())], { now: NOW });
    const rows = tableRows(html, 'Step-by-step and end-to-end metrics');
    // InstAcc 3/5, ToolAcc 1/3, ArgAcc 1/3, SummAcc 1/2; P: hit 1, 3 predicted, 2 gold; L: hit 1, 1 predicted, 2 gold
    expect(rows[0]).toEqual([
      'm-g · step',
      '60.00',
      '33.33',
      '33.33',
      '50.00',
      '40.00',
      '0.00',
      '66.67',
      '0.00',
      '50.00',
    ]);
    expect(rows[2]).toEqual([
      'gpt-4o (published, test (229 queries))',
      ...['86.42', '70.38', '35.19', '72.77', '75.56', '80.00', '78.75', '82.35', '41.52'],
    ]);
    expect(rows).toHaveLength(1 + 16);
    expect(tableRows(html, 'End-to-end tool-selection F1 by tool')).toEqual([
      ['ImageDescription', 'P', '0.00 (0/1, 0)'],
      ['OCR', 'P', '50.00 (1/1, 3)'],
      ['Calculator', 'L', '66.67 (1/2, 1)'],
    ]);
    expect(html.match(/<svg/g)).toHaveLength(2);
  });

  it('two ToolBench runs: changed samples, the spec-difference warning, mean ± 95% CI over epochs', async () => {
    const html = await buildHtmlReport(await Promise.all(toolbenchRuns().map((f) => loadReportRun(f))), {
      now: NOW,
    });
    expect(html).toContain(
      'The runs&#39; specs differ, so their numbers may not be comparable: data.sha256 (&quot;aaaa&quot; vs &quot;bbbb&quot;), epochs (1 vs 2), sampling.temperature (0 vs 0.7).',
    );
    // means over epochs: q1 1 vs 0.5, q2 0.5 vs 0.25; q3 and q4 equal
    expect(tableRows(html, 'Samples whose NDCG@5 changed: 2')).toEqual([
      ['q1', 'G1_tool', '1', '0.5000'],
      ['q2', 'G1_instruction', '0.5000', '0.2500'],
    ]);
    // tb-b epochs: 62.5 and 25; half-width t(0.975, 1) · |62.5 − 25| / 2 = 12.7062047 · 18.75
    const ndcg5 = tableRows(html, 'Headline metrics').find((r) => r[0] === 'ndcg5');
    expect(ndcg5).toEqual(['ndcg5', '62.5000', '43.7500 ± 238.2413 [62.5000, 25.0000]']);
    // the pooled tables count records: tb-b has each query twice (2 epochs)
    expect(tableRows(html, 'Retrieval by query group')).toEqual([
      ['G1_tool', 'tb-a · bm25', '2', '100.00', '100.00', '100.00', '100.00', '100.00'],
      ['G1_tool', 'tb-b · bm25', '4', '75.00', '75.00', '75.00', '75.00', '75.00'],
      ['G1_instruction', 'tb-a · bm25', '2', '25.00', '25.00', '25.00', '25.00', '25.00'],
      ['G1_instruction', 'tb-b · bm25', '4', '12.50', '12.50', '12.50', '12.50', '12.50'],
      ['all', 'tb-a · bm25', '4', '62.50', '62.50', '62.50', '62.50', '62.50'],
      ['all', 'tb-b · bm25', '8', '43.75', '43.75', '43.75', '43.75', '43.75'],
    ]);
    expect(html.match(/<svg/g)).toHaveLength(1);
  });

  it('several AppBench runs: only samples every run scored are "changed", missing ones counted apart, no "(absent)" model, no 0.000000 axis, tables scroll', async () => {
    const ok = (id: string, category: string) =>
      appScore(id, category, {}, { predCalls: 1, goldCalls: 1, appHit: 1, apiHit: 1, success: 1 });
    const bad = (id: string, category: string) => appScore(id, category, {}, { predCalls: 1, goldCalls: 1 });
    const appSpec = (over: Partial<RunSpec>) =>
      spec({ task: { name: 'appbench', version: '3', options: {} }, size: 3, ...over });
    const full = runFolder('ab-full', appSpec({}), [
      { id: 'ss-1', category: 'ss', score: ok('ss-1', 'ss') },
      { id: 'ss-2', category: 'ss', score: ok('ss-2', 'ss') },
      { id: 'sm-1', category: 'sm', score: ok('sm-1', 'sm') },
    ]);
    // a gold run has no model; a partial run lacks two samples (missing, not changed)
    const gold = runFolder('ab-gold', appSpec({ solver: { name: 'gold', options: {} }, model: null }), [
      { id: 'ss-1', category: 'ss', score: bad('ss-1', 'ss') },
      { id: 'ss-2', category: 'ss', score: ok('ss-2', 'ss') },
      { id: 'sm-1', category: 'sm', score: ok('sm-1', 'sm') },
    ]);
    const partial = runFolder('ab-partial', appSpec({ model: { id: 'm-b', baseUrl: null } }), [
      { id: 'ss-1', category: 'ss', score: bad('ss-1', 'ss') },
    ]);
    const html = await buildHtmlReport(
      await Promise.all([full, gold, partial].map((f) => loadReportRun(f))),
      { now: NOW },
    );
    expect(tableRows(html, 'Samples whose corrected success (1 = whole plan right) changed: 1')).toEqual([
      ['ss-1', 'ss', '1', '0', '0'],
    ]);
    expect(html).toContain(
      '<p class="note">Samples missing from some run, not compared: 2 (missing in m-b · flat: 2).</p>',
    );
    expect(html).not.toContain('(absent)');
    expect(html).toContain(
      'The runs&#39; specs differ, so their numbers may not be comparable: solver.name (&quot;flat&quot; vs &quot;gold&quot; vs &quot;flat&quot;).',
    );
    // official scores are all zero here: the Succ chart has a unit axis, not a "0.000000" tick
    expect(html).not.toContain('0.000000');
    expect(html.match(/<div class="table-scroll"><table>/g)).toHaveLength(html.match(/<table>/g)!.length);
    expect(html).toContain('div.table-scroll { max-width: 100%; overflow-x: auto; }');
  });

  it('AppBench: a category whose generations all failed has no official numbers (—), its corrected ones stay', async () => {
    const failed = {
      ...appScore('ss-1', 'ss', {}, { predCalls: 0, goldCalls: 1 }),
      failed: true,
      official: null,
    };
    const dir = runFolder(
      'ab-failed',
      spec({ task: { name: 'appbench', version: '3', options: {} }, size: 1 }),
      [{ id: 'ss-1', category: 'ss', score: failed }],
    );
    const html = await buildHtmlReport([await loadReportRun(dir)], { now: NOW });
    expect(tableRows(html, 'By category, official scoring')[0]).toEqual([
      'm-a · flat',
      ...Array(12).fill('—'),
    ]);
    expect(tableRows(html, 'By category, corrected scoring')[0]!.slice(0, 4)).toEqual([
      'm-a · flat',
      '0.00',
      '0.00',
      '0.00',
    ]);
  });

  it('is self-contained: no script, no external link or source, SVG text laid out without canvas', async () => {
    const html = await buildHtmlReport(
      await Promise.all([appbenchRun(), gtaRun(), ...toolbenchRuns()].map((f) => loadReportRun(f))),
      { now: NOW },
    );
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/(src|href)="https?:/i);
    expect(html.match(/<svg/g)).toHaveLength(3 + 2 + 1);
    expect(html.match(/<section id="task-/g)).toHaveLength(3);
    // vega estimates text widths without the canvas package: the axis titles are laid out and drawn
    const svg = html.slice(html.indexOf('<svg'), html.indexOf('</svg>'));
    expect(svg).toContain('Succ (%)');
    expect(Number(/width="(\d+)"/.exec(svg)![1])).toBeGreaterThan(100);
  });
});

describe('ShortcutsBench section from a real baseline run on the authored fixtures', () => {
  it('shows the level table (hand-computed in eval-shortcuts.test) with the published input rows', async () => {
    const FIXTURES = resolve(import.meta.dirname, '../benchmarks/shortcutsbench/__fixtures__/authored');
    const options = { levels: [1, 2] };
    const loaded = await shortcutsDefinition.load({
      options,
      solver: 'baseline',
      solverOptions: {},
      sampling: {},
      dataDir: FIXTURES,
      seed: 0,
    });
    const dir = join(ROOT, 'shortcuts');
    mkdirSync(dir);
    const s = buildRunSpec(
      {
        task: { name: 'shortcuts', version: loaded.task.version, options },
        solver: { name: 'baseline', options: {} },
        model: null,
        sampling: null,
        data: loaded.dataSource,
        size: loaded.task.dataset.length,
        seed: 0,
        concurrency: 2,
      },
      { now: NOW, gitRevision: () => null, packageVersion: () => '0.0.0' },
    );
    await runEval({
      task: loaded.task,
      spec: s,
      outFile: join(dir, 'results.jsonl'),
      metrics: shortcutsDefinition.metrics,
    });
    const html = await buildHtmlReport([await loadReportRun(dir)], { now: NOW });
    const rows = tableRows(html, 'By level (official scoring');
    expect(rows[0]).toEqual([
      'no model · baseline',
      'API selection',
      '57.14 (8/14)',
      '100.00 (3/3)',
      '45.45 (5/11)',
      '—',
      '—',
    ]);
    expect(rows.find((r) => r[0] === 'Gemini-1.5-Pro (published, full benchmark)')).toEqual([
      'Gemini-1.5-Pro (published, full benchmark)',
      'system/user inputs',
      ...['46.59', '33.33', '45.95', '51.85', '46.67'],
    ]);
    expect(html.match(/<svg/g)).toHaveLength(4);
  });
});
