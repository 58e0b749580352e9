import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Jimp } from 'jimp';
import { headerLine, type RunSpec, ResultsWriter, type SampleLine } from '../../harness/index.js';
import type { SampleScoring } from '../index.js';

/*
 * A small run folder of a made-up task, written with the harness's own writer (so long texts
 * become blob lines): seven records covering pass, fail, each kind of error, an image inside the
 * folder, one outside it, tool rows, and a model reply holding markup.
 */

/** Shared by two samples and ≥ 2048 characters: stored once as a blob line. */
export const LONG_SYSTEM = `You are a careful assistant. ${'Use the tools of the catalog. '.repeat(80)}`;
export const XSS_REPLY = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">';
export const PLOT_SIZE = { width: 2, height: 3 };

/** Score `{accuracy}`: the metric is the accuracy, a sample passes at 1. */
export const toyScoring: SampleScoring = {
  metrics: (s) => ({ accuracy: (s as { accuracy: number }).accuracy }),
  passed: (s) => (s as { accuracy: number }).accuracy === 1,
};

const spec: RunSpec = {
  version: 2,
  task: { name: 'toy', version: '1', options: {} },
  solver: { name: 'scripted', options: {} },
  model: { id: 'm', baseUrl: 'http://127.0.0.1:9/v1' },
  sampling: { temperature: 0, topP: null, maxOutputTokens: 256 },
  data: { path: '/nowhere', sha256: 'abc' },
  limit: null,
  size: 7,
  seed: 7,
  epochs: 1,
  concurrency: 1,
  price: null,
  gitRevision: null,
  packageVersion: '0.1.0',
  startedAt: '2026-01-02T03:04:05.000Z',
};

const usage = { inputTokens: 120, outputTokens: 30 };
const turn = (step: number, text: string, toolCalls: unknown[] = [], decision = 'calls', system?: string) => ({
  type: 'turn',
  step,
  sent: {
    ...(system ? { system } : {}),
    messages: step === 1 ? [{ role: 'user', content: 'Plot the sales of last week' }] : [],
  },
  reply: { text, toolCalls },
  decision,
  usage,
  latencyMs: 41,
  attempts: 1,
});
const stop = (step: number, reason: string, answer: string | null) => ({
  type: 'stop',
  step,
  reason,
  answer,
  usage,
  totalMs: 97,
});

function sample(
  id: string,
  category: string,
  output: unknown,
  accuracy: number,
  error: string | null = null,
): SampleLine {
  return {
    type: 'sample',
    id,
    epoch: 1,
    category,
    output,
    error,
    usage: error ? null : usage,
    modelCalls: error ? 0 : 2,
    startedAt: '2026-01-02T03:04:06.000Z',
    durationMs: 250 + id.length,
    score: { accuracy },
  };
}

/** Writes the run into `dir/run` (and a PNG beside it, outside the run); returns the run folder. */
export async function writeToyRun(dir: string): Promise<string> {
  const run = join(dir, 'run');
  mkdirSync(join(run, 'images'), { recursive: true });
  const png = await new Jimp({ ...PLOT_SIZE, color: 0x3366ccff }).getBuffer('image/png');
  writeFileSync(join(run, 'images', 'plot.png'), png);
  writeFileSync(join(dir, 'outside.png'), png);
  symlinkSync(join(dir, 'outside.png'), join(run, 'images', 'link.png'));

  const w = ResultsWriter.open(join(run, 'results.jsonl'));
  w.append(headerLine(spec));
  const plotCall = { id: 'c1', name: 'Plot_draw', input: { title: 'Sales', values: [3, 1, 2] } };
  w.append(
    sample(
      's-pass',
      'a',
      {
        agent: { decodeFailures: 0, callErrors: 0 },
        trace: [
          turn(1, 'I will draw it.', [plotCall], 'calls', LONG_SYSTEM),
          {
            type: 'call',
            step: 1,
            id: 'c1',
            tool: 'Plot_draw',
            app: 'Plot',
            api: 'draw',
            args: plotCall.input,
            ok: true,
            result: 'Drew 3 bars.\n[image](images/plot.png)',
            durationMs: 12,
          },
          turn(2, 'Here is the plot.', [], 'final'),
          stop(2, 'final', 'Here is the plot.'),
        ],
      },
      1,
    ),
  );
  w.append(
    sample(
      's-xss',
      'a',
      {
        agent: { decodeFailures: 0, callErrors: 0 },
        trace: [turn(1, XSS_REPLY, [], 'final', LONG_SYSTEM), stop(1, 'final', XSS_REPLY)],
      },
      0,
    ),
  );
  const weather = { id: 'c2', name: 'Weather_get', input: { cities: ['Paris', 'Oslo'] } };
  const book = { id: 'c3', name: 'Hotel_book', input: { city: 'Oslo', date: 'next friday' } };
  w.append(
    sample(
      's-tool',
      'a',
      {
        agent: { decodeFailures: 0, callErrors: 1 },
        trace: [
          turn(1, '', [weather, book]),
          {
            type: 'call',
            step: 1,
            id: 'c2',
            tool: 'Weather_get',
            app: 'Weather',
            api: 'get',
            args: weather.input,
            ok: true,
            result: `{"city":"Paris","temp":21}\n{"city":"Oslo","temp":9}\n[image](../outside.png)\n[image](${join(run, 'images', 'link.png')})`,
            durationMs: 8,
          },
          {
            type: 'call',
            step: 1,
            id: 'c3',
            tool: 'Hotel_book',
            app: 'Hotel',
            api: 'book',
            args: book.input,
            ok: false,
            error: { code: 'INPUT_INVALID', message: 'field "date": expected YYYY-MM-DD' },
            durationMs: 3,
          },
          stop(1, 'repair-limit', null),
        ],
      },
      0.5,
    ),
  );
  w.append(
    sample(
      's-decode',
      'b',
      {
        agent: { decodeFailures: 1, callErrors: 0 },
        trace: [turn(1, 'Action: {oops', [], 'decode-failure'), stop(1, 'decode-limit', null)],
      },
      0,
    ),
  );
  w.append(sample('s-infra', 'b', null, 0, 'MODEL_CALL_FAILED: HTTP 500 after 3 attempts'));
  w.append(sample('s-solver', 'b', null, 0, 'PARSE_FAILED: no plan in the reply'));
  // no trace: a solver whose output holds content parts
  w.append(
    sample(
      's-parts',
      'b',
      { answer: 'A chart.', content: [{ type: 'image', path: 'images/plot.png', mediaType: 'image/png' }] },
      1,
    ),
  );
  w.close();
  return run;
}
