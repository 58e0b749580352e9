import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../test/index.js';
import { ROOT } from '../__fixtures__/run-cli.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

/*
 * Issue 28: `--model gguf:PATH` end to end, in process, on a tiny random model the test writes. Its
 * output is noise, so the grammars are what make it well-formed; one load serves every command of
 * the file (the model is loaded once per process). One thread: on a shared 2-core machine two
 * llama.cpp threads spin against each other.
 */

const dir = mkdtempSync(join(tmpdir(), 'apiary-eval-local-'));
const tiny = join(dir, 'tiny.gguf');
const LOCAL = ['--model', `gguf:${tiny}`, '--threads', '1'];

beforeAll(() => writeTinyGguf(tiny, { seed: 1 }));

interface Summary {
  records: number;
  errors: number;
  modelCalls: number;
  report: Record<string, Record<string, unknown>>;
}
const summaryOf = (out: string) => JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
const eventsOf = (out: string) =>
  readFileSync(join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { events?: Array<{ type: string; reason?: string }> })
    .filter((r) => r.events)
    .map((r) => r.events!);

const outputsOf = (out: string) =>
  readFileSync(join(out, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { output?: unknown })
    .filter((r) => r.output)
    .map((r) => r.output);

async function evalLocal(name: string, args: string[]) {
  const out = join(dir, name);
  const r = await runCliInProcess(['eval', ...args, ...LOCAL, '--out', out]);
  expect([r.code, r.stderr.split('\n').filter((l) => l.startsWith('error'))]).toEqual([0, []]);
  return { out, summary: summaryOf(out), stdout: r.stdout };
}

const APPBENCH_SS = ['appbench', '--limit', '1', '--option', 'categories=ss'];

describe('apiary eval --model gguf:PATH', { timeout: 120_000 }, () => {
  it('appbench flat: format errors 0.00 under the plan-line grammar; with --constrain off 100.00', async () => {
    const on = await evalLocal('flat-on', [...APPBENCH_SS, '--solver', 'flat']);
    expect(on.stdout).toMatch(/Format errors +- +0\.00/);
    expect([on.summary.records, on.summary.errors, on.summary.modelCalls]).toEqual([1, 0, 1]);
    expect(on.summary.report.corrected!.formatErrorRate).toBe(0);
    // the same sample without grammars: the random model's text is no plan line
    const off = await evalLocal('flat-off', [
      ...APPBENCH_SS,
      '--solver',
      'flat',
      '--constrain',
      'off',
      '--max-tokens',
      '200',
    ]);
    expect(off.stdout).toMatch(/Format errors +- +100\.00/);
    expect(off.summary.report.corrected!.formatErrorRate).toBe(1);
  });

  it('appbench tool-loop: a valid call under the tool grammar, 0 decode failures; off, no call at all', async () => {
    const on = await evalLocal('loop-on', [
      ...APPBENCH_SS,
      '--solver',
      'tool-loop',
      '--option',
      'maxSteps=2',
    ]);
    expect(on.stdout).toMatch(/Format errors +- +0\.00/);
    expect(on.stdout).toMatch(/Decode failures +0\n/);
    expect(on.summary.report.state!.decodeFailures).toBe(0);
    expect(on.summary.modelCalls).toBe(2);
    expect(eventsOf(on.out)[0]!.map((e) => e.type)).toEqual(['turn', 'call', 'turn', 'stop']);
    // without the grammar the noise is read as a final answer: nothing to count as a format error,
    // and no call is ever made
    const off = await evalLocal('loop-off', [
      ...APPBENCH_SS,
      '--solver',
      'tool-loop',
      '--option',
      'maxSteps=2',
      '--constrain',
      'off',
      '--max-tokens',
      '200',
    ]);
    expect(off.summary.report.state!.decodeFailures).toBe(0);
    expect(off.summary.modelCalls).toBe(1);
    expect(eventsOf(off.out)[0]!.map((e) => e.type)).toEqual(['turn', 'stop']);
  });

  it('gta --mode step: no ReAct reply Lagent refuses under the grammar; with --constrain off every one', async () => {
    const gta = (name: string, extra: string[]) =>
      evalLocal(name, [
        'gta',
        '--mode',
        'step',
        '--data',
        join(ROOT, 'src', 'benchmarks', 'gta', '__fixtures__', 'data'),
        '--limit',
        '1',
        ...extra,
      ]);
    const refused = (out: string) => {
      const replies = outputsOf(out).flatMap(
        (o) =>
          JSON.parse((o as { predictionJson: string }).predictionJson) as Array<{ error?: { msg?: string } }>,
      );
      return [replies.filter((m) => m.error?.msg === 'Please follow the format').length, replies.length];
    };
    const on = await gta('gta-on', []);
    expect([on.summary.records, on.summary.errors]).toEqual([3, 0]);
    expect(refused(on.out)).toEqual([0, 7]);
    // (the task's token limit for the grammar, which ends each reply; noise is cut at 128)
    const off = await gta('gta-off', ['--constrain', 'off', '--max-tokens', '128']);
    expect(refused(off.out)).toEqual([7, 7]);
  });

  it('shortcuts: JSON actions parse under the grammar; with --constrain off none does', async () => {
    const shortcuts = (name: string, extra: string[]) =>
      evalLocal(name, [
        'shortcuts',
        '--data',
        join(ROOT, 'src', 'benchmarks', 'shortcutsbench', '__fixtures__', 'authored'),
        '--levels',
        '1',
        '--limit',
        '2',
        ...extra,
      ]);
    const states = (out: string) =>
      outputsOf(out).flatMap((o) =>
        ((o as { trace: Array<{ state: string }> }).trace ?? []).map((t) => t.state),
      );
    const on = await shortcuts('shortcuts-on', []);
    expect([on.summary.records, on.summary.errors, on.summary.modelCalls]).toEqual([2, 0, 2]);
    expect(states(on.out).filter((s) => s === 'json_error')).toEqual([]);
    const off = await shortcuts('shortcuts-off', ['--constrain', 'off', '--max-tokens', '128']);
    expect(states(off.out)).toEqual(['json_error', 'json_error']);
  });
});

describe('apiary ask --model gguf:PATH', { timeout: 120_000 }, () => {
  it('runs the tool loop on the simulated apps with grammar-made calls', async () => {
    const r = await runCliInProcess([
      'ask',
      'Find an American restaurant in San Francisco and reserve a table for 2 at 19:00',
      ...LOCAL,
      '--max-steps',
      '1',
      '--json',
    ]);
    // exit 3: the one step allowed ended without a final answer
    expect([r.code, r.stderr]).toEqual([3, '']);
    const result = JSON.parse(r.stdout) as {
      stopReason: string;
      calls: Array<{ app: string; args: unknown }>;
    };
    expect(result.stopReason).toBe('step-budget');
    expect(result.calls).toHaveLength(1);
    expect(typeof result.calls[0]!.args).toBe('object');
  });

  it('model serve takes only gguf:PATH; the local flags only a gguf: model', async () => {
    const serve = await runCliInProcess(['model', 'serve', 'qwen2.5-7b']);
    expect([serve.code, serve.stderr.trim()]).toEqual([
      2,
      'error [USAGE] apiary model serve serves a local GGUF file: pass gguf:PATH (got "qwen2.5-7b")',
    ]);
    const flags = await runCliInProcess(['eval', ...APPBENCH_SS, '--threads', '2']);
    expect([flags.code, flags.stderr.trim()]).toEqual([
      2,
      'error [USAGE] --threads, --ctx-size, --gpu-layers and --constrain apply to local models (--model gguf:PATH), not to a run without a model',
    ]);
    const constrain = await runCliInProcess(['eval', ...APPBENCH_SS, ...LOCAL, '--constrain', 'maybe']);
    expect([constrain.code, constrain.stderr.trim()]).toEqual([
      2,
      'error [USAGE] --constrain must be one of on | off (got "maybe")',
    ]);
  });

  it('a file that is not a GGUF model stops before anything runs, naming the file', async () => {
    const text = join(dir, 'notes.gguf');
    writeFileSync(text, 'hello world\n');
    const r = await runCliInProcess(['ask', 'hi', '--model', `gguf:${text}`]);
    expect([r.code, r.stderr.trim()]).toEqual([
      2,
      `error [INPUT_INVALID] ${text}: not a GGUF model file (a GGUF file starts with "GGUF", this one with "hell")`,
    ]);
    const e = await runCliInProcess(['eval', ...APPBENCH_SS, '--model', `gguf:${join(dir, 'none.gguf')}`]);
    expect([e.code, e.stderr.trim()]).toEqual([
      2,
      `error [NOT_FOUND] model file not found: ${join(dir, 'none.gguf')} (Apiary never downloads a model)`,
    ]);
  });
});
