import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBenchGoldReply, loadAppBenchDataset } from '../../benchmarks/appbench/index.js';
import { writeToolBenchFixtures } from '../../benchmarks/toolbench/__fixtures__/data-root.js';
import { readResultsFile } from '../../harness/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';
import { ROOT } from '../__fixtures__/run-cli.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

/*
 * `apiary tasks`, `apiary eval <task>` through the registry, `apiary report` and `apiary score
 * <task>`: the real CLI program (in this process), in a temp working directory, no model configured
 * unless a test starts the scripted OpenAI-compatible server.
 */

const MINI = join(ROOT, 'examples', 'appbench-mini');
const V1 = join(ROOT, 'src', 'harness', '__fixtures__', 'v1-results.jsonl');

/** `apiary <args>` on a clean machine, in `cwd` (by default a fresh temp folder). */
const runInTempDir = (args: string[], cwd = mkdtempSync(join(tmpdir(), 'apiary-cli-cwd-'))) =>
  runCliInProcess(args, { cwd });

describe('apiary tasks', { timeout: 60_000 }, () => {
  it('lists tasks, options, solvers and solver options (text and --json)', async () => {
    const text = await runInTempDir(['tasks']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('appbench v1: AppBench / MetaBench planning');
    expect(text.stdout).toContain(
      '  solvers (--solver; default flat, baseline when no model is configured):',
    );
    expect(text.stdout).toMatch(/^ {4}flat {10}needs a model; one prompt listing every App and API/m);
    expect(text.stdout).toMatch(/^ +shots=<integer> {2}k demonstrations per instruction.*\(default 0\)$/m);
    expect(text.stdout).toContain('toolbench-retrieval v1: ToolBench API retrieval');
    expect(text.stdout).toMatch(/modelFile=<string> {2}trained model file .*\(required\)/);
    const json = JSON.parse((await runInTempDir(['tasks', '--json'])).stdout);
    expect(json.map((t: { name: string }) => t.name)).toEqual([
      'appbench',
      'gta',
      'shortcuts',
      'toolbench-retrieval',
    ]);
    expect(json[1]).toMatchObject({
      name: 'gta',
      defaultSolver: 'react',
      options: [
        { name: 'mode', type: 'one of step | e2e', default: 'e2e', required: false },
        { name: 'maxTurn', default: 10 },
        { name: 'ids', default: null },
      ],
    });
    expect(json[0]).toMatchObject({
      name: 'appbench',
      defaultSolver: 'flat',
      noModelSolver: 'baseline',
      passFail: true,
      sampling: { temperature: 0, topP: 0, maxOutputTokens: 1024 },
      options: [{ name: 'categories', default: null, required: false }],
    });
    expect(json[0].solvers.map((s: { name: string; needsModel: boolean }) => [s.name, s.needsModel])).toEqual(
      [
        ['flat', true],
        ['hierarchical', true],
        ['baseline', false],
        ['tool-loop', true],
      ],
    );
  });
});

describe('apiary eval <task> and apiary report', { timeout: 90_000 }, () => {
  it('eval appbench --solver baseline --limit 2 end to end, then report recomputes the same summary', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'apiary-cli-e2e-'));
    const r = await runInTempDir(['eval', 'appbench', '--solver', 'baseline', '--limit', '2', '--json'], cwd);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({ ran: 8, skipped: 0, aborted: false, stopReason: null, lockTakenOver: null });
    const runs = readdirSync(join(cwd, '.apiary', 'runs'));
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/^appbench-baseline-nomodel-\d{8}T\d{6}Z$/);
    const folder = join(cwd, '.apiary', 'runs', runs[0]!);
    expect(readdirSync(folder).sort()).toEqual(['results.jsonl', 'summary.json']); // lock released
    const spec = readResultsFile(join(folder, 'results.jsonl')).header!.spec;
    expect(spec).toMatchObject({
      version: 2,
      task: { name: 'appbench', options: { categories: null } },
      solver: { name: 'baseline', options: {} },
      model: null,
      data: { path: MINI },
      limit: 2,
      size: 8,
      epochs: 1,
    });
    expect(json.summary).toMatchObject({ samples: 8, records: 8, errors: 0, cost: null });
    expect(Object.keys(json.summary.headline)).toEqual([
      'official.appF1',
      'official.argF1',
      'official.success',
      'corrected.appF1',
      'corrected.argF1',
      'corrected.success',
    ]);

    const rep = await runInTempDir(['report', folder, '--json']);
    expect(rep.code).toBe(0);
    const summary = JSON.parse(rep.stdout);
    expect(summary.report).toEqual(json.summary.report);
    expect(summary.headline).toEqual(json.summary.headline);
    const text = await runInTempDir(['report', folder]);
    expect(text.stdout).toMatch(/│ solver\s+│ baseline\s+│/);
    expect(text.stdout).toContain('Success (Succ)');
    expect(text.stdout).not.toContain('incomplete');
    // today's spelling
    const old = await runInTempDir(['eval', 'report', folder, '--json']);
    expect(JSON.parse(old.stdout).report).toEqual(json.summary.report);
  });

  it('reports a results file of run spec v1', async () => {
    // a copy: report writes summary.json beside the results file, never into the repository
    const copy = join(mkdtempSync(join(tmpdir(), 'apiary-v1-')), 'results.jsonl');
    copyFileSync(V1, copy);
    const r = await runInTempDir(['report', copy]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('note: results file of run spec v1 (read as v2; it cannot be resumed)');
    expect(r.stdout).toMatch(/│ task\s+│ appbench v1\s+│/);
    expect(r.stdout).toMatch(/│ samples\s+│ 2\s+│/);
    // mm-0 and ss-0 of the bundled set, as the baseline answered them (official Succ 1 of 2)
    expect(r.stdout).toMatch(/Success \(Succ\)\s+50\.00\s+50\.00/);
  });

  it('reports a run whose folder takes no summary.json: printed, with a note, exit 0 (issue 27 A13)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-ro-run-'));
    const copy = join(dir, 'results.jsonl');
    copyFileSync(V1, copy);
    // a folder in the way stands for a run folder that cannot be written (root ignores chmod)
    mkdirSync(join(dir, 'summary.json'));
    const r = await runInTempDir(['report', copy]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `note: ${join(dir, 'summary.json')} not written (EISDIR); the summary is printed only`,
    );
    expect(r.stdout).toMatch(/Success \(Succ\)\s+50\.00\s+50\.00/);
    expect(r.stdout).not.toContain('summary: ');
  });

  it('refuses what it cannot do, with exit 2 and the reason', async () => {
    const needsModel = await runInTempDir(['eval', 'appbench', '--solver', 'flat', '--data', MINI]);
    expect(needsModel.code).toBe(2);
    expect(needsModel.stderr).toContain(
      'solver "flat" of appbench needs a model: pass --base-url URL --model NAME, set APIARY_BASE_URL and APIARY_MODEL, or put baseURL and model in apiary.config.json',
    );
    const unknown = await runInTempDir(['eval', 'appbnech']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      '[NOT_FOUND] unknown task "appbnech" (known: appbench, gta, shortcuts, toolbench-retrieval)',
    );
    const badOption = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      '--option',
      'categories=ss,xx',
    ]);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain('appbench option "categories.1": Invalid option');
    const wrongSide = await runInTempDir(['eval', 'appbench', '--solver', 'baseline', '--option', 'shots=2']);
    expect(wrongSide.stderr).toContain(
      'unknown option "shots" for appbench with solver baseline (task options: categories; solver options: none)',
    );
    const legacyElsewhere = await runInTempDir(['eval', 'toolbench-retrieval', '--shots', '2']);
    expect(legacyElsewhere.stderr).toContain('--shots is an appbench flag');
    const budget = await runInTempDir(['eval', 'appbench', '--max-cost', '1']);
    expect(budget.stderr).toContain('--max-cost needs --price-input and --price-output');
  });

  it('eval toolbench-retrieval on --data, then score toolbench-retrieval re-scores its results', async () => {
    const data = writeToolBenchFixtures();
    const out = join(data, 'run');
    const r = await runInTempDir(['eval', 'toolbench-retrieval', '--data', data, '--out', out, '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.summary.spec).toMatchObject({ solver: { name: 'bm25', options: {} }, model: null, size: 2 });
    expect(json.summary.report.all).toMatchObject({ queries: 2, ndcg1: 75, recall10: 100 });
    const s = await runInTempDir([
      'score',
      'toolbench-retrieval',
      '--predictions',
      join(out, 'results.jsonl'),
      '--data',
      data,
      '--json',
    ]);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ scored: 2, report: json.summary.report });
  });
});

describe('apiary eval with epochs, prices and a budget (scripted HTTP model)', { timeout: 90_000 }, () => {
  const samples = loadAppBenchDataset(MINI).samples;
  const byInput = new Map(samples.map((s) => [s.record.input, s]));
  let server: ScriptedOpenAiServer;
  beforeAll(async () => {
    server = await startScriptedOpenAiServer({
      respond: (req) => {
        const s = byInput.get(req.messages.at(-1)!.content)!;
        return { text: appBenchGoldReply(s.record), usage: { prompt_tokens: 1000, completion_tokens: 200 } };
      },
    });
  });
  afterAll(() => server.close());

  it('--max-cost stops cleanly (exit 3, how to go on); --resume with a larger one finishes', async () => {
    const out = mkdtempSync(join(tmpdir(), 'apiary-cli-budget-'));
    const args = [
      'eval',
      'appbench',
      '--data',
      MINI,
      '--base-url',
      server.url,
      '--model',
      'scripted-1',
      '--epochs',
      '2',
      '--price-input',
      '2.5',
      '--price-output',
      '10',
      '--concurrency',
      '1',
      '--out',
      out,
    ];
    const r = await runInTempDir([...args, '--max-cost', '0.01']);
    expect(r.code).toBe(3);
    // $0.0045 per sample: the 3rd reaches $0.0135 ≥ $0.01
    expect(r.stderr).toContain(
      `budget reached: $0.0135 recorded, --max-cost $0.01; 3 of 16 samples recorded. To go on, rerun the same command with --resume --out ${out} and a larger --max-cost`,
    );
    expect(r.stdout).toMatch(/│ cost\s+│ \$0\.0135 \(\$0\.0045 per sample\)\s+│/);
    expect(readResultsFile(join(out, 'results.jsonl')).samples).toHaveLength(3);
    expect(existsSync(join(out, 'summary.json'))).toBe(true);
    const done = await runInTempDir([...args, '--resume', '--max-cost', '1', '--json']);
    expect(done.code).toBe(0);
    const json = JSON.parse(done.stdout);
    expect(json).toMatchObject({ skipped: 3, ran: 13, stopReason: null });
    expect(json.summary).toMatchObject({
      samples: 8,
      records: 16,
      cost: { total: 0.072, perSample: 0.0045 },
    });
    // gold replies every time: 100% in both epochs, no interval width, every sample passes
    // in % like the AppBench tables
    expect(json.summary.headline['corrected.success']).toEqual({ mean: 100, ci95: 0, perEpoch: [100, 100] });
    expect(json.summary.pass).toEqual({ k: 2, samples: 8, passHatK: 1, passAtK: 1 });
    expect(json.summary.spec).toMatchObject({ epochs: 2, price: { inputPerMTok: 2.5, outputPerMTok: 10 } });
    const changed = await runInTempDir([...args.slice(0, 8), '--epochs', '3', ...args.slice(10), '--resume']);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('epochs: 2 there, 3 now');
  });
});

describe('apiary eval appbench --solver tool-loop', { timeout: 90_000 }, () => {
  let server: ScriptedOpenAiServer;
  const MM1 = 'Find a comedy playing in San Jose, buy 3 tickets for it on March 9th at 7 pm';
  beforeAll(async () => {
    // mm-1: search and pay at once, then buy the tickets for the movie found; other samples: answer at once
    server = await startScriptedOpenAiServer({
      respond: (req) => {
        const user = req.messages.find((m) => m.role === 'user')?.content ?? '';
        const turn = req.messages.filter((m) => m.role === 'assistant').length;
        if (!user.startsWith(MM1) || turn >= 2) return 'Done.';
        if (turn === 0)
          return {
            toolCalls: [
              { id: 'f', name: 'Movies_findmovies', arguments: { genre: 'Comedy', location: 'San Jose' } },
              {
                id: 'p',
                name: 'Payment_makepayment',
                arguments: { amount: '45', payment_method: 'debit card', receiver: 'Lena' },
              },
            ],
          };
        const rows = req.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'f')?.content ?? '';
        const movie = JSON.parse(rows.split('\n')[0]!) as Record<string, string>;
        return {
          toolCalls: [
            {
              id: 'b',
              name: 'Movies_buymovietickets',
              arguments: {
                movie_name: movie.movie_name,
                location: movie.location,
                show_type: movie.show_type,
                number_of_tickets: '3',
                show_date: '2019-03-09',
                show_time: '19:00',
              },
            },
          ],
        };
      },
    });
  });
  afterAll(async () => server.close());

  it('plans and executes on the simulated apps; the report adds the state score', async () => {
    const r = await runInTempDir([
      'eval',
      'appbench',
      '--solver',
      'tool-loop',
      '--categories',
      'mm',
      '--base-url',
      server.url,
      '--model',
      'm',
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const state = JSON.parse(r.stdout).summary.report.state;
    // mm-0's gold cannot run on the bundled apps (no bus row); mm-1's can, and the run matches it
    expect(state).toMatchObject({
      scored: 2,
      goldExecuted: 1,
      success: 1,
      effectPrecision: 1,
      effectRecall: 1,
      searchRecall: 1,
      unauthorised: 0,
      solvedFirstTime: 1,
      solvedAfterRepair: 0,
      decodeFailures: 0,
      stopReasons: { final: 2 },
    });
    const text = await runInTempDir(['report', JSON.parse(r.stdout).resultsFile]);
    expect(text.stdout).toContain('State success');
    expect(text.stdout).toContain('100.00 (1 of 2 gold plans ran)');
    expect(text.stdout).toMatch(/Solved first time \/ after repair +1 \/ 0/);
  });
});
