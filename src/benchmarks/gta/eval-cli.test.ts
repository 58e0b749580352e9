import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../cli/__fixtures__/run-cli.js';
import { runCliInProcess } from '../../cli/__fixtures__/run-cli-in-process.js';
import type { PyJson } from '../../shared/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';
import { respond } from './__fixtures__/e2e-script.js';
import { loadGtaDataset } from './dataset.js';
import { scoreGtaE2e } from './e2e-metrics.js';
import { readGtaStepPredictions } from './predictions.js';

/**
 * `apiary eval gta --mode e2e` end to end through the CLI: a scripted model on a local server, the
 * real OCR, Calculator and AddText, the run recorded, then replayed with the same predictions and
 * no tool run.
 */

const DATA = join(ROOT, 'src', 'benchmarks', 'gta', '__fixtures__', 'e2e');

let server: ScriptedOpenAiServer;
let root: string;
beforeAll(async () => {
  server = await startScriptedOpenAiServer({ respond });
  root = mkdtempSync(join(tmpdir(), 'apiary-eval-gta-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

const lines = (dir: string) =>
  readFileSync(join(dir, 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('apiary eval gta', { timeout: 60_000 }, () => {
  it('--mode e2e records the tool calls, scores in summary.json, images kept per sample; --replay gives the same run', async () => {
    const recording = join(root, 'recording');
    const common = [
      'eval',
      'gta',
      '--mode',
      'e2e',
      '--data',
      DATA,
      '--model',
      'scripted',
      '--base-url',
      server.url,
      '--option',
      'ids=0,2,8',
      '--embeddings-base-url',
      server.url,
      '--embeddings-model',
      'scripted-embeddings',
    ];
    const first = await runCliInProcess([...common, '--out', join(root, 'run1'), '--record', recording]);
    expect(first.stderr).toContain(
      `tool recording ${recording} (record): 0 hits, 0 misses, 4 runs, 4 recorded`,
    );
    expect(first.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(root, 'run1', 'summary.json'), 'utf8'));
    expect(summary.records).toBe(3);
    expect(summary.headline.AnsAcc.mean).toBe(100);
    expect(summary.headline.AnsAccImg.mean).toBeCloseTo(100, 10);
    expect([summary.headline.ToolCall.mean, summary.headline.ToolCallError.mean]).toEqual([4, 0]);
    // the paper's table: this run, then the published rows
    expect(first.stdout).toMatch(
      /^Model +InstAcc +ToolAcc +ArgAcc +SummAcc +P_F1 +O_F1 +L_F1 +C_F1 +AnsAcc +Ans\+I$/m,
    );
    expect(first.stdout).toMatch(
      /^scripted \(this run\) +- +- +- +- +100\.00 +100\.00 +100\.00 +0\.00 +100\.00 +100\.00$/m,
    );
    expect(first.stdout).toMatch(
      /^gpt-4o +86\.42 +70\.38 +35\.19 +72\.77 +75\.56 +80\.00 +78\.75 +82\.35 +41\.52 +-$/m,
    );
    const images = readdirSync(join(root, 'run1', 'artefacts', 'sample-8'));
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/^addtext-.*\.png$/i);

    const second = await runCliInProcess([...common, '--out', join(root, 'run2'), '--replay', recording]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(
      `tool recording ${recording} (replay): 4 hits, 0 misses, 0 runs, 0 recorded`,
    );
    const byId = (dir: string) => {
      const all = lines(dir);
      const blobs = new Map(all.filter((l) => l.type === 'blob').map((l) => [l.sha256, l.text as string]));
      const text = (v: string | { $blob: string }) => (typeof v === 'string' ? v : blobs.get(v.$blob)!);
      return Object.fromEntries(
        all
          .filter((l) => l.type === 'sample')
          .map((l) => [l.id, text(l.output.predictionJson).replaceAll(dir, '<RUN>')]),
      );
    };
    expect(Object.keys(byId(join(root, 'run1'))).sort()).toEqual(['0', '2', '8']);
    expect(byId(join(root, 'run2'))).toEqual(byId(join(root, 'run1')));
    expect(existsSync(join(root, 'run2', 'artefacts', 'sample-8', images[0]!))).toBe(true);

    // apiary score re-scores the run's results.jsonl through the task (no model, no tools)
    const rescored = await runCliInProcess([
      'score',
      'gta',
      '--mode',
      'e2e',
      '--data',
      DATA,
      '--predictions',
      join(root, 'run1', 'results.jsonl'),
      '--option',
      'ids=0,2,8',
      '--json',
    ]);
    expect(rescored.code).toBe(0);
    const metrics = JSON.parse(rescored.stdout).metrics;
    expect([metrics.AnsAcc, metrics.ToolCall, metrics.L_F1]).toEqual([100, 4, summary.headline.L_F1.mean]);

    // the run as an OpenCompass prediction file: gold and prediction hold one list per user turn
    const file = join(root, 'gta_bench.json');
    const exported = await runCliInProcess(['gta', 'predictions', join(root, 'run1'), '--out', file]);
    expect([exported.code, exported.stderr]).toEqual([0, '3 sample(s) of a e2e run\n']);
    const records = readGtaStepPredictions(file);
    expect(records.map((r) => r.key)).toEqual(['0', '2', '8']);
    const dataset = loadGtaDataset(DATA);
    const refs = new Map(dataset.records.map((r) => [r.key, r.gtAnswer]));
    const scores = await scoreGtaE2e(
      records.map((r) => ({
        predictions: r.predictions[0] as PyJson[],
        golds: r.golds[0] as PyJson[],
        reference: refs.get(r.key)!,
      })),
    );
    expect([scores.ansAcc, scores.toolCall, scores.categoryF1.logic.f1]).toEqual([
      100,
      4,
      summary.headline.L_F1.mean,
    ]);
  });

  it('refuses GTA flags on another task and the step solver end to end', async () => {
    const r = await runCliInProcess(['eval', 'appbench', '--mode', 'step']);
    expect([r.code, r.stderr.trim()]).toEqual([
      2,
      'error [USAGE] --mode is a flag of the gta task, not of appbench',
    ]);
    const s = await runCliInProcess([
      'eval',
      'gta',
      '--solver',
      'step',
      '--data',
      DATA,
      '--model',
      'scripted',
      '--base-url',
      server.url,
      '--out',
      join(root, 'never'),
    ]);
    expect([s.code, s.stderr.trim()]).toEqual([
      2,
      'error [USAGE] gta: the step solver is for --mode step; end to end use react or native-tools',
    ]);
  });

  it("--mode step records each sample's tokens, so --max-cost stops the run", async () => {
    const priced = await startScriptedOpenAiServer({
      respond: () => ({ text: 'Final Answer: 1', usage: { prompt_tokens: 100, completion_tokens: 10 } }),
    });
    try {
      const out = join(root, 'step-budget');
      const r = await runCliInProcess([
        'eval',
        'gta',
        '--mode',
        'step',
        '--data',
        join(ROOT, 'src', 'benchmarks', 'gta', '__fixtures__', 'data'),
        '--model',
        'scripted',
        '--base-url',
        priced.url,
        '--concurrency',
        '1',
        // $0.01 per input token: $1 per step, 2 to 4 steps per sample
        '--price-input',
        '10000',
        '--price-output',
        '0',
        '--max-cost',
        '5',
        '--out',
        out,
        '--json',
      ]);
      expect(r.code).toBe(3);
      expect(JSON.parse(r.stdout).stopReason).toBe('budget');
      const samples = lines(out).filter((l) => l.type === 'sample');
      for (const l of samples)
        expect(l.usage).toEqual({ inputTokens: 100 * l.modelCalls, outputTokens: 10 * l.modelCalls });
      const costs = samples.map((l) => l.cost as number);
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      // the budget was reached by the last sample recorded, not before
      expect(sum(costs)).toBeGreaterThanOrEqual(5);
      expect(sum(costs.slice(0, -1))).toBeLessThan(5);
      expect(samples.length).toBeLessThan(12);
    } finally {
      await priced.close();
    }
  });
});
