import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../../cli/__fixtures__/run-cli.js';
import { runCliInProcess } from '../../../cli/__fixtures__/run-cli-in-process.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../../test/index.js';
import { appBenchCatalogSource } from '../catalog.js';
import { type AppBenchRecord, readAppBenchFile } from '../record.js';
import { compareWithRelease } from './compare-release.js';
import { cleanInstruction, INSTRUCTION_PROMPT, parseQualityScore, QUALITY_PROMPT } from './instructions.js';
import { readSgdDialogues } from './sgd-source.js';

/* Issue 29 item 1: `apiary data build appbench` from five real SGD dialogues (__fixtures__/README.md). */

const FIXTURE = join(ROOT, 'src/benchmarks/appbench/build/__fixtures__');
const SGD = join(FIXTURE, 'sgd');
const apiary = (...args: string[]) => runCliInProcess(args);
const read = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8'));

let tmp: string;
let server: ScriptedOpenAiServer;

/** Table 6: an instruction stating the user-aware values it is given; Table 7: 8, or 4 for the weather. */
const scripted = (system: string, user: string): string => {
  if (system.startsWith(INSTRUCTION_PROMPT.slice(0, 60))) {
    const values = JSON.parse(/arguments (\{.*\})\./.exec(system)![1]!) as Record<string, string>;
    return `"I need this done with ${Object.values(values).join(', ')}."`;
  }
  if (system === QUALITY_PROMPT) return user.includes('Stinson Beach') ? 'Score: 4' : '8';
  return 'unexpected prompt';
};

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'apiary-build-'));
  server = await startScriptedOpenAiServer({
    respond: (req) =>
      scripted(
        req.messages.find((m) => m.role === 'system')?.content ?? '',
        req.messages.find((m) => m.role === 'user')?.content ?? '',
      ),
  });
});
afterAll(async () => {
  await server.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The hand-checked path of dialogue test:3_00126 (a car search, then the booking of its first car). */
const WARSAW_PLAN = [
  "car_type, car_name, pickup_location, start_date, pickup_time, city, end_date, price_per_day = getcarsavailable(#car_type='Hatchback', #city='Warsaw', #end_date='2019-03-13', #pickup_time='13:30', #start_date='2019-03-07')",
  "car_type, car_name, pickup_location, start_date, pickup_time, end_date, price_per_day, add_insurance = reservecar(#add_insurance='True', #car_type=car_type, #end_date=end_date, #pickup_location=pickup_location, #pickup_time=pickup_time, #start_date=start_date)",
];

describe('apiary data build appbench', { timeout: 60_000 }, () => {
  it('without a model: one record per category at least, the exact plan of a hand-checked dialogue, templated instructions labelled so', async () => {
    const out = join(tmp, 'templated');
    const r = await apiary('data', 'build', 'appbench', '--sgd', SGD, '--out', out);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(1)).toEqual([
      '  ss: 3 kept, 0 dropped of 3 candidates',
      '  sm: 1 kept, 0 dropped of 1 candidates',
      '  ms: 1 kept, 0 dropped of 1 candidates',
      '  mm: 1 kept, 0 dropped of 1 candidates',
      'dialogues without a path: none',
      '',
    ]);
    const sm = readAppBenchFile(join(out, 'test_sm.json'));
    expect(sm[0]!.output.api_results).toEqual(WARSAW_PLAN);
    expect(sm[0]!.output.used_app).toEqual(['Rents', 'Rents']);
    expect(sm[0]!.output.user_aware_arguments).toEqual({
      car_type: 'Hatchback',
      city: 'Warsaw',
      end_date: '2019-03-13',
      pickup_time: '13:30',
      start_date: '2019-03-07',
      add_insurance: 'True',
    });
    expect(sm[0]!.input).toBe(
      'Rents getcarsavailable with car type Hatchback, city Warsaw, end date 2019-03-13, pickup time 13:30, start date 2019-03-07; then Rents reservecar with add insurance True.',
    );
    // MS: two single-call dialogues of different Apps, side by side (parallel scale 2)
    const ms = readAppBenchFile(join(out, 'test_ms.json'));
    expect(ms[0]!.output.used_app).toEqual(['Trains', 'Weather']);
    const manifest = read(out, 'manifest.json');
    expect(manifest.instructions).toBe('templated (no model)');
    expect(manifest.counts).toEqual({ ss: 3, sm: 1, ms: 1, mm: 1 });
    expect(
      manifest.records.map(
        (m: Record<string, unknown>) =>
          `${m.file}#${m.index} ${m.source} ${m.instruction} para ${m.parallel_scale} seq ${m.sequential_scale}`,
      ),
    ).toEqual([
      'test_ss.json#0 test:6_00108 templated para 1 seq 1',
      'test_ss.json#1 test:2_00118 templated para 1 seq 1',
      'test_ss.json#2 test:8_00080 templated para 1 seq 1',
      'test_sm.json#0 test:3_00126 templated para 1 seq 2',
      'test_ms.json#0 test:8_00080+test:6_00108 templated para 2 seq 1',
      'test_mm.json#0 test:33_00054 templated para 2 seq 2',
    ]);
  });

  it('every plan runs to completion on apps serving the dialogues, no dangling reference; eval and sft build take the files', async () => {
    const out = join(tmp, 'templated');
    const db = join(tmp, 'fixture.sqlite');
    expect((await apiary('apps', 'build-db', '--data', FIXTURE, '--out', db)).code).toBe(0);
    const check = await apiary('apps', 'check', '--data', out, '--db', db, '--json');
    expect(check.code).toBe(0);
    const report = JSON.parse(check.stdout);
    expect([report.total, report.completed]).toEqual([6, 6]);
    expect(report.counts).toMatchObject({ rejected: 0, 'no-row': 0, failed: 0, 'dangling-ref': 0 });

    const run = join(tmp, 'run');
    const ev = await apiary('eval', 'appbench', '--data', out, '--out', run);
    expect(ev.code).toBe(0);
    expect(readFileSync(join(run, 'results.jsonl'), 'utf8').trim().split('\n')).toHaveLength(7); // spec + 6
    const sft = await apiary(
      'sft',
      'build',
      '--source',
      'appbench',
      '--data',
      out,
      '--out',
      join(tmp, 'sft.jsonl'),
    );
    expect(sft.code).toBe(0);
    expect(sft.stdout).toContain('from 6 tasks');
  });

  it('with a model: Table 6 writes the instruction from the user-aware values, Table 7 scores it; below the threshold is dropped', async () => {
    const out = join(tmp, 'model');
    const before = server.requests.length;
    const r = await apiary(
      'data',
      'build',
      'appbench',
      '--sgd',
      SGD,
      '--out',
      out,
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--threshold',
      '6',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('instructions by scripted');
    // the weather record scores 4: dropped, and so is the MS record that holds the weather too
    expect(read(out, 'manifest.json').counts).toEqual({ ss: 2, sm: 1, ms: 0, mm: 1 });
    expect(read(out, 'manifest.json').dropped).toEqual([
      { source: 'test:6_00108', reason: 'score 4 < 6' },
      { source: 'test:8_00080+test:6_00108', reason: 'score 4 < 6' },
    ]);
    const sm = readAppBenchFile(join(out, 'test_sm.json'))[0]!;
    expect(sm.input).toBe('I need this done with Hatchback, Warsaw, 2019-03-13, 13:30, 2019-03-07, True.');
    expect(read(out, 'manifest.json').records[2]).toMatchObject({ source: 'test:3_00126', score: 8 });
    // 6 candidates × (instruction + score)
    const requests = server.requests.slice(before);
    expect(requests).toHaveLength(12);
    const warsaw = requests.find((q) => q.messages[1]?.content.includes('Warsaw'))!;
    expect(warsaw.messages[0]!.content).toBe(
      INSTRUCTION_PROMPT.replace(
        '{user_aware_arguments}',
        '{"car_type":"Hatchback","city":"Warsaw","end_date":"2019-03-13","pickup_time":"13:30","start_date":"2019-03-07","add_insurance":"True"}',
      ),
    );
    expect(warsaw.messages[1]!.content.split('\n')[0]).toBe(
      'USER: I need to have a car rented, more specifically I would like a Hatchback one for March 13th, and for it to be in Warsaw.',
    );
  });

  it('resumes: a second run makes no model call for the candidates done, and takes a larger --limit from there', async () => {
    const out = join(tmp, 'resume');
    const flags = [
      '--sgd',
      SGD,
      '--out',
      out,
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--threshold',
      '3',
    ];
    const first = await apiary('data', 'build', 'appbench', ...flags, '--limit', '1');
    expect(first.code).toBe(0);
    expect(read(out, 'manifest.json').counts).toEqual({ ss: 1, sm: 1, ms: 1, mm: 1 });
    const before = server.requests.length;
    const second = await apiary('data', 'build', 'appbench', ...flags);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('4 candidate(s) resumed');
    expect(server.requests.length - before).toBe(4); // the two SS records left
    expect(read(out, 'manifest.json').counts).toEqual({ ss: 3, sm: 1, ms: 1, mm: 1 });
    expect(readFileSync(join(out, 'build-state.jsonl'), 'utf8').trim().split('\n')).toHaveLength(6);
  });

  it('refuses to resume a build made with other settings (USAGE), and names a missing --sgd folder (NOT_FOUND)', async () => {
    const out = join(tmp, 'templated');
    const r = await apiary('data', 'build', 'appbench', '--sgd', SGD, '--out', out, '--seed', '3');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error [USAGE] ${out} holds a build with other settings`);
    const missing = await apiary(
      'data',
      'build',
      'appbench',
      '--sgd',
      join(tmp, 'nope'),
      '--out',
      join(tmp, 'x'),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`error [NOT_FOUND] --sgd ${join(tmp, 'nope')}: no such folder`);
    expect(existsSync(join(tmp, 'x', 'manifest.json'))).toBe(false);
  });

  it('names the file, the dialogue and the field of a malformed dialogue (INPUT_INVALID)', async () => {
    const bad = join(tmp, 'bad-sgd', 'test');
    mkdirSync(bad, { recursive: true });
    writeFileSync(
      join(bad, 'dialogues_001.json'),
      JSON.stringify([{ dialogue_id: '1_1', services: [], turns: [{}] }]),
    );
    const r = await apiary(
      'data',
      'build',
      'appbench',
      '--sgd',
      join(tmp, 'bad-sgd'),
      '--out',
      join(tmp, 'y'),
    );
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(
      `error [INPUT_INVALID] ${join(bad, 'dialogues_001.json')}: record 0: field "turns[0].speaker": Invalid input: expected string, received undefined; turns[0].utterance: Invalid input: expected string, received undefined; turns[0].frames: Invalid input: expected array, received undefined`,
    );
  });
});

describe('instruction replies', () => {
  it('keep the sentence, and read the first number in [1, 10] as the score', () => {
    expect(cleanInstruction('Instruction: "Book a car."\n')).toBe('Book a car.');
    expect([
      parseQualityScore('Overall score: 7.5'),
      parseQualityScore('11'),
      parseQualityScore('great'),
    ]).toEqual([7.5, undefined, undefined]);
  });
});

describe('comparison with a released record', () => {
  it("finds the released SM record's dialogue by its values and builds the same plan", () => {
    const record: AppBenchRecord = {
      input: 'Please book a Hatchback car …',
      output: {
        used_app: ['Rents', 'Rents'],
        used_api: [
          {
            getcarsavailable: {
              car_type: 'Hatchback',
              city: 'Warsaw',
              end_date: '2019-03-13',
              pickup_time: '13:30',
              start_date: '2019-03-07',
            },
          },
          {
            reservecar: {
              add_insurance: 'True',
              car_type: 'Hatchback',
              end_date: '2019-03-13',
              pickup_location: 'Warsaw Chopin Airport',
              pickup_time: '13:30',
              start_date: '2019-03-07',
            },
          },
        ],
        result_arguments: [[], []],
        api_results: WARSAW_PLAN,
        user_aware_arguments: {},
      },
    };
    const other = { ...record, output: { ...record.output, used_api: [{ getweather: { city: 'Oslo' } }] } };
    const rows = compareWithRelease(
      [
        { id: 'sm#0', category: 'sm', record },
        { id: 'ss#9', category: 'ss', record: other },
      ],
      readSgdDialogues(SGD),
      appBenchCatalogSource.load({}),
      { refs: 'value', repeats: 'all' },
    );
    expect(rows).toEqual([
      {
        id: 'sm#0',
        category: 'sm',
        sources: ['test:3_00126'],
        success: true,
        differences: [],
        scale: { gold: [1, 2], built: [1, 2] },
      },
      { id: 'ss#9', category: 'ss', sources: [], success: false, differences: ['source not found'] },
    ]);
  });
});
