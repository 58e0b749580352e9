import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { InputInvalidError } from '../shared/index.js';
import { toyScoring, writeToyRun } from './__fixtures__/toy-run.js';
import {
  indexRun,
  jsonlLines,
  readSampleRecord,
  sampleErrorKinds,
  scoringFor,
  scoringForTask,
} from './index.js';

// the viewer reads a run's task from the plugin registry (the CLI registers these at start)
registerBuiltinPlugins();

const REAL_RUN = join(import.meta.dirname, '__fixtures__', 'appbench-tool-loop');
const tmp = () => mkdtempSync(join(tmpdir(), 'apiary-viewer-index-'));

// the entry point's part (the CLI, src/index.ts): the built-in tasks, loaded from their plugins
beforeAll(async () => {
  await registerBuiltinPlugins().loadTasks();
});

describe('jsonlLines', () => {
  it('gives each line with its byte offset, whatever the chunk size (multi-byte text across chunks)', async () => {
    const file = join(tmp(), 'x.jsonl');
    const lines = ['{"a":"héllo"}', '', '{"b":"日本語テキスト"}', '{"c":1}'];
    writeFileSync(file, `${lines.join('\n')}\n{"torn":`);
    const bytes = readFileSync(file);
    for (const chunk of [1, 3, 7, 64, 1 << 20]) {
      const got: Array<[number, number, string, boolean]> = [];
      for await (const l of jsonlLines(file, { chunkBytes: chunk }))
        got.push([l.offset, l.length, l.bytes.toString(), l.terminated]);
      expect(got).toEqual([
        [0, 14, '{"a":"héllo"}', true],
        [15, 0, '', true],
        [16, 29, '{"b":"日本語テキスト"}', true],
        [46, 7, '{"c":1}', true],
        [54, 8, '{"torn":', false],
      ]);
      for (const [offset, length, text] of got)
        expect(bytes.subarray(offset, offset + length).toString()).toBe(text);
    }
  });
});

describe('indexRun', () => {
  it('keeps per record the facts the list shows, and reads the record again by its byte range', async () => {
    const run = await writeToyRun(tmp());
    const index = await indexRun(run, toyScoring);
    expect(
      index.samples.map((e) => [e.n, e.id, e.category, e.passed, e.errorKinds, e.metrics.accuracy]),
    ).toEqual([
      [0, 's-pass', 'a', true, [], 1],
      [1, 's-xss', 'a', false, [], 0],
      [2, 's-tool', 'a', false, ['tool'], 0.5],
      [3, 's-decode', 'b', false, ['decode'], 0],
      [4, 's-infra', 'b', false, ['infra'], 0],
      [5, 's-solver', 'b', false, ['solver'], 0],
      [6, 's-parts', 'b', true, [], 1],
    ]);
    expect(index.blobs.size).toBe(1);
    const rec = await readSampleRecord(index, 2);
    expect(rec).toMatchObject({ id: 's-tool', score: { accuracy: 0.5 }, durationMs: 256 });
    expect(await readSampleRecord(index, 7)).toBeUndefined();
  });

  it('leaves out a torn last line, flags repeated (id, epoch) records, refuses a bad line naming it', async () => {
    const run = await writeToyRun(tmp());
    const file = join(run, 'results.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    const pass = lines.find((l) => l.includes('"id":"s-pass"'))!;
    appendFileSync(file, `${pass}\n{"type":"sample","id":"half`);
    const index = await indexRun(run, toyScoring);
    expect(index.truncatedTail).toBe(true);
    expect(index.samples).toHaveLength(8);
    expect(index.samples.map((e) => e.duplicate)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      true,
    ]);

    writeFileSync(file, [lines[0], lines[1], 'not json', ...lines.slice(2)].join('\n'));
    const err = await indexRun(run, toyScoring).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputInvalidError);
    expect((err as Error).message).toContain('line 3');
    writeFileSync(file, `${lines[1]}\n`);
    await expect(indexRun(run)).rejects.toThrow(/no header record|sample record before the header/);
    await expect(indexRun(join(run, 'nope'))).rejects.toThrow(/no results file at .*nope\/results.jsonl/);
  });

  it("a real AppBench tool-loop run: the task's own metrics per sample and its pass/fail", async () => {
    const index = await indexRun(REAL_RUN, (spec) => scoringForTask(spec.task.name));
    expect(index.hasPass).toBe(true);
    expect(index.metricNames).toEqual([
      'official.appF1',
      'official.argF1',
      'official.success',
      'corrected.appF1',
      'corrected.argF1',
      'corrected.success',
    ]);
    const [mm0, mm1] = index.samples;
    // mm-0 answered at once (no calls); mm-1 made 2 of the 3 gold calls, one of them refused
    expect(mm0).toMatchObject({ id: 'mm-0', passed: false, errorKinds: [], modelCalls: 1 });
    expect(mm0!.metrics['corrected.appF1']).toBe(0);
    expect(mm1).toMatchObject({ id: 'mm-1', passed: false, errorKinds: ['tool'] });
    expect(mm1!.metrics['corrected.appF1']).toBe(80); // in %, like the AppBench tables
    expect(mm1!.metrics['official.argF1']).toBe(62.5);
    const rec = await readSampleRecord(index, 1);
    const trace = (rec!.output as { trace: Array<{ type: string; tool?: string; ok?: boolean }> }).trace;
    expect(trace.filter((e) => e.type === 'call').map((e) => [e.tool, e.ok])).toEqual([
      ['Movies_findmovies', true],
      ['Payment_makepayment', true],
      ['Movies_buymovietickets', false],
    ]);
  });
});

describe('sample facts', () => {
  it('error kinds: infra vs solver errors, decode failures and tool errors from the agent summary or the trace', () => {
    expect(sampleErrorKinds({ error: 'MODEL_UNREACHABLE: no answer', output: null })).toEqual(['infra']);
    expect(sampleErrorKinds({ error: 'boom', output: null })).toEqual(['solver']);
    expect(
      sampleErrorKinds({ error: null, output: { trace: [{ type: 'turn', decision: 'decode-failure' }] } }),
    ).toEqual(['decode']);
    expect(sampleErrorKinds({ error: null, output: { trace: [{ type: 'call', ok: false }] } })).toEqual([
      'tool',
    ]);
    expect(
      sampleErrorKinds({ error: null, output: { agent: { decodeFailures: 2, callErrors: 1 } } }),
    ).toEqual(['decode', 'tool']);
    expect(sampleErrorKinds({ error: null, output: { reply: 'x' } })).toEqual([]);
  });

  it('scoring without a task: a bare number is the score; a task whose summary throws gives no metrics', async () => {
    const bare = scoringFor();
    expect(bare.metrics(0.25)).toEqual({ score: 0.25 });
    expect(bare.metrics({ a: 1 })).toEqual({});
    expect(bare.passed(1)).toBeNull();
    const broken = scoringFor({
      summarize: () => {
        throw new Error('bad score');
      },
      metrics: () => ({}),
    });
    expect(broken.metrics({})).toEqual({});
    const nan = scoringFor({ summarize: (s) => s, metrics: () => ({ a: Number.NaN, b: 0.5 }) });
    expect(nan.metrics({})).toEqual({ b: 0.5 });
    expect((await scoringForTask('no-such-task')).passed({})).toBeNull();
  });
});
