import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from './cli/__fixtures__/run-cli-in-process.js';
import { evaluate, readResultsFile } from './harness/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from './test/index.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');

describe('examples stay runnable', () => {
  it('examples/library-tour.ts (the README library tour) plans, validates and executes', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/library-tour.ts'], {
      cwd: root,
      env: { ...process.env, XDG_DATA_HOME: join(root, '.apiary', 'no-such-data-home') },
    });
    const lines = stdout.trim().split('\n');
    expect(lines.slice(3)).toEqual([
      'issues: 0',
      'parallel scale 2, sequential scale 2',
      'database: bundled; run succeeded',
      's1 Rents.getcarsavailable: succeeded',
      's2 Rents.reservecar: succeeded',
      's3 Weather.getweather: succeeded',
    ]);
  });

  let server: ScriptedOpenAiServer | undefined;
  afterEach(async () => server?.close());

  it('examples/agent.ts (the README agent example, ≤ 20 lines) runs an agent over the AppBench apps', async () => {
    const body = readFileSync(join(root, 'examples/agent.ts'), 'utf8').trimEnd().split('\n');
    expect(body.filter((l) => l.trim() && !l.startsWith('//')).length).toBeLessThanOrEqual(20);
    let turn = 0;
    server = await startScriptedOpenAiServer({
      respond: () =>
        [
          {
            toolCalls: [
              {
                name: 'Restaurants_findrestaurants',
                arguments: { category: 'American', location: 'San Francisco' },
              },
            ],
          },
          {
            toolCalls: [
              {
                name: 'Restaurants_reserverestaurant',
                arguments: {
                  restaurant_name: 'Acquerello',
                  location: 'San Francisco',
                  time: '19:00',
                  number_of_seats: '2',
                },
              },
            ],
          },
          'Booked Acquerello for 2 at 19:00.',
        ][turn++]!,
    });
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/agent.ts'], {
      cwd: root,
      env: {
        ...process.env,
        APIARY_BASE_URL: server.url,
        APIARY_MODEL: 'scripted',
        XDG_DATA_HOME: join(root, '.apiary', 'no-such-data-home'),
      },
    });
    expect(stdout.trim().split('\n')).toEqual([
      'final Booked Acquerello for 2 at 19:00.',
      'Restaurants.findrestaurants ok',
      'Restaurants.reserverestaurant ok',
    ]);
  });
});

/*
 * examples/custom-benchmark: a benchmark written outside the package (its own inline dataset, its
 * own Units tool run through dispatchCall, its own scorer), registered from its plugin module.
 * By hand: 3 km = 3000 m, 2 mi = 3.218688 km, 10 kg = 22.046226218487757 lb are right; "st" is not
 * a unit of the tool's catalog, so that call is refused and the sample recorded as an error:
 * 3 of 4 correct, accuracy 0.75 (length 2/2, mass 1/2).
 */
describe('examples/custom-benchmark (a plugin registered from outside)', () => {
  const PLUGIN = 'examples/custom-benchmark/plugin.ts';
  const tmp = () => mkdtempSync(join(tmpdir(), 'apiary-custom-'));
  const recordsOf = (dir: string) =>
    readResultsFile(join(dir, 'results.jsonl'))
      .samples.map((r) => ({ id: r.id, output: r.output, error: r.error, score: r.score }))
      .sort((a, b) => a.id.localeCompare(b.id));
  const EXPECTED_RECORDS = [
    { id: 'kg-to-lb', output: 22.046226218487757, error: null, score: { correct: true } },
    { id: 'km-to-m', output: 3000, error: null, score: { correct: true } },
    { id: 'mi-to-km', output: 3.218688, error: null, score: { correct: true } },
    {
      id: 'st-to-kg',
      output: null,
      error:
        "TOOL_FAILED: INPUT_INVALID: invalid arguments for Units.convert: from: value \"st\" is not one of 'm', 'km', 'mi', 'g', 'kg', 'lb'",
      score: { correct: false },
    },
  ];

  it('apiary eval <its task> --plugin FILE runs it and prints its report', async () => {
    const out = join(tmp(), 'run');
    const r = await runCliInProcess(['eval', 'unit-convert', '--plugin', PLUGIN, '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect([json.ran, json.summary.records, json.summary.errors]).toEqual([4, 4, 1]);
    expect(json.summary.report).toEqual({ total: 4, correct: 3, accuracy: 0.75 });
    expect(json.summary.headline.accuracy.mean).toBe(0.75);
    expect(json.summary.byCategory).toEqual({
      length: { samples: 2, errors: 0 },
      mass: { samples: 2, errors: 1 },
    });
    expect(recordsOf(out)).toEqual(EXPECTED_RECORDS);
  });

  it('the library evaluate() runs the same recipe, in this thread and in two worker threads', async () => {
    const inThread = await evaluate(
      { task: 'unit-convert', plugins: [PLUGIN] },
      { outDir: join(tmp(), 'a') },
    );
    expect(inThread.summary.report).toEqual({ total: 4, correct: 3, accuracy: 0.75 });
    expect(inThread.recipe).toMatchObject({ task: 'unit-convert', solver: 'rule', seed: 0, model: null });
    expect(inThread.spec.task).toEqual({ name: 'unit-convert', version: '1', options: {} });
    expect(recordsOf(inThread.outDir)).toEqual(EXPECTED_RECORDS);
    // the worker threads import the plugin module named in the recipe, as evaluate does
    const threads = await evaluate(
      { task: 'unit-convert', plugins: [PLUGIN], limit: 1 },
      { outDir: join(tmp(), 'b'), workers: 2 },
    );
    expect(threads.summary.report).toEqual({ total: 2, correct: 2, accuracy: 1 });
    expect(recordsOf(threads.outDir)).toEqual(EXPECTED_RECORDS.slice(0, 2));
  });

  it('apiary tasks --plugin FILE lists its task; a module that exports no plugin is refused by name', async () => {
    const listed = await runCliInProcess(['tasks', '--plugin', PLUGIN, '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).find((t: { name: string }) => t.name === 'unit-convert')).toMatchObject({
      version: '1',
      defaultSolver: 'rule',
      passFail: true,
      solvers: [{ name: 'rule', needsModel: false }],
    });
    const dir = tmp();
    const notPlugin = join(dir, 'not-a-plugin.mjs');
    writeFileSync(notPlugin, 'export const answer = 42;\n');
    const refused = await runCliInProcess(['eval', 'unit-convert', '--plugin', notPlugin]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error [USAGE] --plugin ${notPlugin}: plugin module ${notPlugin} exports no plugin: export a BenchmarkPlugin ({ name, description, tasks }) as default or as \`plugin\`\n`,
    );
    const missing = await runCliInProcess(['eval', 'unit-convert', '--plugin', join(dir, 'nope.ts')]);
    expect(missing.stderr).toBe(
      `error [USAGE] --plugin ${join(dir, 'nope.ts')}: no such file (${join(dir, 'nope.ts')})\n`,
    );
  });

  it('a recipe with a bad field is refused, naming the field', async () => {
    await expect(evaluate({ task: 'unit-convert', plugins: [PLUGIN], epochs: 0 })).rejects.toThrow(
      'recipe field "epochs": Too small: expected number to be >=1',
    );
  });
});
