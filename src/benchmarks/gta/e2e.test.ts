import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveModelSetup } from '../../models/index.js';
import { solveSample } from '../../tasks/solver.js';
import type { AnyTask, LoadedTask } from '../../tasks/task.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';
import { respond } from './__fixtures__/e2e-script.js';
import { type GtaOutput, type GtaSample, type GtaScore, gtaDefinition } from './register.js';
import { summarizeGtaScores } from './report-scores.js';
import { summarizeGtaTask } from './task-report.js';
import { gtaTools, toolStatus } from './tools/registry.js';

/**
 * GTA end to end over a real local HTTP server and the REAL tools (tesseract OCR, mathjs
 * Calculator, jimp DrawBox/AddText, sandboxed Solver/Plot): a scripted model reads each tool's
 * response from the conversation and decides its next action from it, so right answers prove the
 * tools' outputs flowed through the ReAct loop. Fixtures: __fixtures__/e2e (13 authored queries),
 * the model's policies: __fixtures__/e2e-script.ts.
 */

const DATA = resolve(import.meta.dirname, '__fixtures__/e2e');
const SANDBOXED = new Set(['4', '5', '6']);
const sandboxMissing = (() => {
  const solver = toolStatus(gtaTools({}, ['Solver']).get('Solver')!);
  return solver.ready ? undefined : solver.reason;
})();

let server: ScriptedOpenAiServer;
let loaded: LoadedTask;
let runDir: string;
const results = new Map<string, { output: GtaOutput; score: GtaScore }>();

async function solveAll(task: AnyTask, ids: ReadonlySet<string>): Promise<void> {
  for (const sample of task.dataset as GtaSample[]) {
    if (!ids.has(sample.id)) continue;
    const { output } = await solveSample(task, sample, { seed: 0 });
    results.set(sample.id, { output, score: await task.scorer(sample, { output }) });
  }
}

beforeAll(async () => {
  server = await startScriptedOpenAiServer({ respond });
  runDir = mkdtempSync(join(tmpdir(), 'apiary-gta-e2e-'));
  const model = resolveModelSetup({ baseURL: server.url, model: 'scripted' }, { env: {}, cwd: runDir })!;
  loaded = await gtaDefinition.load({
    options: { mode: 'e2e' },
    solver: 'react',
    solverOptions: {},
    model: model.model,
    sampling: {},
    dataDir: DATA,
    seed: 0,
    runDir,
    tools: { embeddings: { baseURL: server.url, model: 'scripted-embeddings' } },
  });
});
afterAll(async () => {
  await loaded?.dispose?.();
  await server?.close();
  rmSync(runDir, { recursive: true, force: true });
});

describe('GTA end to end: a scripted model drives the ReAct loop over the real tools', {
  timeout: 60_000,
}, () => {
  it('OCR, Calculator, DrawBox and AddText queries: every answer right, image-tool arguments as the gold', async () => {
    const ids = new Set(['0', '1', '2', '3', '7', '8', '9', '10', '11', '12']);
    await solveAll(loaded.task, ids);
    const report = summarizeGtaTask([...ids].map((id) => results.get(id)!.score));
    // 7 objective + 1 subjective (identical to a reference: cosine 1 up to rounding) + 3 image-generation
    expect(report.e2e!.counts.records).toBe(10);
    expect(report.e2e!.counts.answerRecords).toBe(7);
    expect(report.e2e!.ansAcc).toBeCloseTo(100, 10);
    expect(report.e2e!.ansAccImg).toBeCloseTo(100, 10);
    expect([report.e2e!.toolCall, report.e2e!.toolCallError]).toEqual([15, 0]);
    expect(report.e2e!.categoryF1.perception).toMatchObject({ predicted: 7, gold: 7, hit: 7 });
    expect(report.e2e!.categoryF1.operation).toMatchObject({ predicted: 3, gold: 3, hit: 3 });
    expect(report.e2e!.categoryF1.logic).toMatchObject({ predicted: 5, gold: 5, hit: 5 });
    // the HTML report reads the same per-sample scores and finds the same numbers
    const html = summarizeGtaScores([...ids].map((id) => results.get(id)!.score));
    expect([html.unreadable, html.ansAcc, html.ansAccImg]).toEqual([
      0,
      report.e2e!.ansAcc,
      report.e2e!.ansAccImg,
    ]);
    expect(html.categoryF1).toEqual(report.e2e!.categoryF1);
    for (const id of ['7', '8', '10']) {
      const out = results.get(id)!.output;
      expect(out.stopReason).toBe('final');
      // the drawn image is kept in the sample's own artefacts folder
      const steps = JSON.parse(out.predictionJson) as Array<{ role: string; content: unknown }>;
      const image = steps
        .flatMap((s) =>
          s.role === 'tool' && Array.isArray(s.content)
            ? (s.content as Array<{ type: string; content: string }>)
            : [],
        )
        .find((c) => c.type === 'image')!;
      expect(image.content.startsWith(join(runDir, 'artefacts', `sample-${id}`))).toBe(true);
      expect(existsSync(image.content)).toBe(true);
    }
  });

  it('records the prediction steps exactly as GTA scores them (receipt: OCR, Calculator, answer)', () => {
    const file = join(DATA, 'image', 'receipt.png');
    const ocr = '(21, 26, 142, 50) Tea 4.50\n(22, 75, 165, 100) Cake 8.00';
    const call = (name: string, args: Record<string, string>) => ({
      role: 'assistant',
      tool_calls: [{ type: 'function', function: { name, arguments: args } }],
    });
    const thought = (content: string) => ({ role: 'assistant', content, meta: { type: 'thought' } });
    const text = (content: string) => ({ role: 'tool', content: [{ type: 'text', content }] });
    expect(JSON.parse(results.get('0')!.output.predictionJson)).toEqual([
      thought('Read the receipt.\n'),
      call('OCR', { image: file }),
      text(ocr),
      thought('Add the two prices.\n'),
      call('Calculator', { expression: '4.50+8.00' }),
      text('12.5'),
      thought('The sum is 12.5.\n'),
      { role: 'assistant', content: 'The two items cost 12.5 together.' },
    ]);
    // what the model saw on its second turn: protocol, files hint (user), query, its reply, "Response:…"
    const second = server.requests.find(
      (r) => r.messages.some((m) => m.content.startsWith('The receipt')) && r.messages.length === 5,
    )!;
    expect(second.messages.map((m) => m.role)).toEqual(['system', 'user', 'user', 'assistant', 'system']);
    expect(
      second.messages[0]!.content.startsWith('You are a assistant who can utilize external tools.\n[{'),
    ).toBe(true);
    expect(second.messages.slice(1).map((m) => m.content)).toEqual([
      `The related files are at \`${file}\``,
      'The receipt lists two items. How much do they cost together?',
      `Thought:Read the receipt.\nAction:OCR\nAction Input:${JSON.stringify({ image: file })}`,
      `Response:${ocr}\n`,
    ]);
    expect(results.get('0')!.score.e2e).toMatchObject({ answerCorrect: true, answerScore: 1 });
  });

  it('every end-to-end output and score fits the schemas the results reader checks', () => {
    expect(results.size).toBeGreaterThan(0);
    for (const { output, score } of results.values()) {
      expect(gtaDefinition.outputSchema!.parse(output)).toEqual(output);
      expect(gtaDefinition.scoreSchema!.parse(score)).toEqual(score);
    }
  });

  it.skipIf(sandboxMissing !== undefined)(
    sandboxMissing
      ? `Solver and Plot queries (skipped: ${sandboxMissing})`
      : 'Solver and Plot queries in the sandbox',
    async () => {
      await solveAll(loaded.task, SANDBOXED);
      const report = summarizeGtaTask([...SANDBOXED].map((id) => results.get(id)!.score));
      expect(report.e2e!.ansAcc).toBe(100);
      expect(report.e2e!.ansAccImg).toBeCloseTo(100, 10);
      expect(results.get('4')!.output.answer).toBe('x = 4');
      expect(results.get('5')!.output.answer).toBe('x = 6 and y = 4');
      expect(results.get('6')!.output.answer).toBe('Here is the plot.');
    },
  );
});
