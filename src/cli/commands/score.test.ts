import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  carRental,
  goldReply,
  stylist,
  twoWeathers,
  weatherAndFood,
} from '../../benchmarks/appbench/__fixtures__/hand-made.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

const root = join(import.meta.dirname, '../../..');

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

/** A data folder of hand-made records in the official layout, and a predictions file. */
function setup(lines: string[]): { data: string; preds: string } {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-score-'));
  const data = join(dir, 'appbench');
  const write = (name: string, v: unknown) => writeFileSync(join(dir, name), JSON.stringify(v));
  mkdirSync(data);
  write('appbench/test_ss.json', [stylist]);
  write('appbench/test_sm.json', [carRental, twoWeathers]);
  write('appbench/test_ms.json', [weatherAndFood]);
  const preds = join(dir, 'preds.jsonl');
  writeFileSync(preds, `${lines.join('\n')}\n`);
  return { data, preds };
}

describe('apiary score appbench', () => {
  it('scores a predictions file in both modes (JSON)', async () => {
    const swapped = goldReply(twoWeathers).split('\n').reverse().join('\n');
    const { data, preds } = setup([
      JSON.stringify({ id: 'ss-0', reply: goldReply(stylist) }),
      JSON.stringify({ id: 'sm-0', reply: goldReply(carRental), model: 'kept' }),
      JSON.stringify({ id: 'sm-1', reply: swapped }),
      JSON.stringify({ id: 'ms-0', reply: null, error: 'timeout' }),
    ]);
    const r = await apiary('score', 'appbench', '--predictions', preds, '--data', data, '--json');
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.total).toBe(4);
    expect(out.scoredOfficial).toBe(3);
    expect(out.failedIds).toEqual(['ms-0']);
    // official: ss-0 and sm-0 complete, sm-1 not (duplicate calls collapse to different last calls) → 2/3
    expect(out.official.success).toBeCloseTo(2 / 3, 12);
    // corrected: ss-0, sm-0, sm-1 right, ms-0 empty → 3/4
    expect(out.corrected.success).toBe(0.75);
  });

  it('prints a table with only the asked mode', async () => {
    const { data, preds } = setup([JSON.stringify({ id: 'ss-0', reply: goldReply(stylist) })]);
    const r = await apiary('score', 'appbench', '-p', preds, '--data', data, '--mode', 'corrected');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/metric\s+corrected\n/);
    expect(r.stdout).not.toMatch(/metric\s+official/);
  });

  it('names the file and line of a bad prediction', async () => {
    const { data, preds } = setup([
      JSON.stringify({ id: 'ss-0', reply: 'x' }),
      '{"id": "ss-9", "reply": "x"}',
    ]);
    const r = await apiary('score', 'appbench', '-p', preds, '--data', data);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${preds}: record line 2: field "id": unknown sample id "ss-9"`);
  });

  it('data pull rejects a malformed --sha256 before any download', async () => {
    const r = await apiary('data', 'pull', 'appbench', '--sha256', 'test_ss.json=xyz', '--dir', tmpdir());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '[USAGE] --sha256 must be FILE=HASH with HASH a 64-hex-digit sha256 (got "test_ss.json=xyz")',
    );
  });
});

describe('apiary score gta --mode step', () => {
  it('scores an OpenCompass-layout step file against the fixture data', async () => {
    const data = join(root, 'src/benchmarks/gta/__fixtures__/data');
    const dir = mkdtempSync(join(tmpdir(), 'gta-score-'));
    const preds = join(dir, 'gta_bench.json');
    const call = (name: string, args: unknown) => ({
      role: 'assistant',
      tool_calls: [{ type: 'function', function: { name, arguments: args } }],
    });
    writeFileSync(
      preds,
      JSON.stringify({
        '1': {
          gold: [call('Calculator', { expression: '3.5*60' }), { role: 'assistant', content: 'x' }],
          prediction: [
            call('Calculator', { expression: '3.5 * 60' }),
            { role: 'assistant', content: ' 210 minutes' },
          ],
          origin_prompt: [],
        },
      }),
    );
    const r = await apiary(
      'score',
      'gta',
      '--mode',
      'step',
      '--data',
      data,
      '--predictions',
      preds,
      '--json',
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    // 1 gold tool step + 1 truthy reference; name right, arguments differ; answer correct
    expect([out.instAcc, out.toolAcc, out.argAcc, out.summAcc]).toEqual([100, 100, 0, 100]);
    expect(out.notes[0]).toBe('1 of 12 samples have predictions');
  });
});

describe('apiary score gta --mode e2e', () => {
  it('scores an OpenCompass-layout end-to-end file (prediction = [steps], gold = [messages])', async () => {
    const data = join(root, 'src/benchmarks/gta/__fixtures__/data');
    const dir = mkdtempSync(join(tmpdir(), 'gta-score-e2e-'));
    const preds = join(dir, 'gta_bench.json');
    const call = (name: string, args: unknown, error?: unknown) => ({
      role: 'assistant',
      ...(error ? { error } : {}),
      tool_calls: [{ type: 'function', function: { name, arguments: args } }],
    });
    const gold = [
      call('Calculator', { expression: '3.5*60' }),
      { role: 'tool', name: 'Calculator', content: { type: 'text', content: '210.0' } },
      { role: 'assistant', content: '210 minutes' },
    ];
    writeFileSync(
      preds,
      JSON.stringify({
        '1': {
          gold: [gold],
          prediction: [
            [
              call('Calculator', '{bad', { type: 'ARGS_ERROR', msg: 'invalid json format' }),
              { role: 'tool', content: null },
              call('Calculator', { expression: '3.5*60' }),
              { role: 'tool', content: [{ type: 'text', content: '210.0' }] },
              { role: 'assistant', content: ' 210 minutes' },
            ],
          ],
        },
      }),
    );
    const r = await apiary('score', 'gta', '--mode', 'e2e', '--data', data, '--predictions', preds, '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect([out.ansAcc, out.ansAccImg, out.toolCall, out.toolCallError]).toEqual([100, 100, 2, 1]);
    // logic: 2 predicted (one failed), 1 gold, 1 hit
    expect(out.categoryF1.logic).toEqual({ predicted: 2, gold: 1, hit: 1, f1: 66.66600000444443 });
  });
});
