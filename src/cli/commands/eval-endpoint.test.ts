import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readResultsFile } from '../../harness/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';
import { ROOT } from '../__fixtures__/run-cli.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

/* Issue 13 item 1: a dead or failing model endpoint must not look like a result. */

const MINI = join(ROOT, 'examples', 'appbench-mini');

/** `apiary <args>` on a clean machine, from an empty temp folder (no apiary.config.json there). */
const runInTempDir = (args: string[]) =>
  runCliInProcess(args, { cwd: mkdtempSync(join(tmpdir(), 'apiary-endpoint-cwd-')) });

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

let server: ScriptedOpenAiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('apiary eval against a dead or failing endpoint', { timeout: 60_000 }, () => {
  it('a closed port stops before the run: one line with the code and the URL, exit 3, no results', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/v1`;
    const r = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      '--base-url',
      url,
      '--model',
      'x',
      '--limit',
      '5',
    ]);
    expect(r.code).toBe(3);
    const errorLines = r.stderr.split('\n').filter((l) => l.startsWith('error'));
    expect(errorLines).toEqual([
      `error [MODEL_UNREACHABLE] model endpoint ${url} did not answer: GET ${url}/models: connect ECONNREFUSED 127.0.0.1:${port}; ` +
        'check --base-url and that the server is running (--no-endpoint-check skips this check)',
    ]);
    expect(r.stdout).toBe('');
  });

  it('samples failing for infrastructure reasons are errors: counted, and the exit status is 3', async () => {
    server = await startScriptedOpenAiServer({ respond: () => ({ fault: 'http500' }) });
    const out = mkdtempSync(join(tmpdir(), 'apiary-endpoint-out-'));
    const r = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--retries',
      '0',
      // every sample, not the stop after 5 in a row (next test)
      '--max-endpoint-failures',
      '9',
      '--out',
      out,
      '--json',
    ]);
    expect(r.code).toBe(3);
    const json = JSON.parse(r.stdout);
    expect(json.summary).toMatchObject({ records: 8, errors: 8, infrastructureErrors: 8 });
    expect(json.stopReason).toBeNull();
    const lines = readResultsFile(join(out, 'results.jsonl')).samples;
    expect(lines).toHaveLength(8);
    for (const l of lines) {
      expect(l.output).toBeNull();
      expect(l.error).toMatch(/^MODEL_CALL_FAILED: model call failed after 1 attempt\(s\) \[http5xx\]/);
    }
  });

  it.each([
    ['HTTP 500', 'http500', '3', 3, 'http5xx'],
    ['garbage', 'invalid-json', undefined, 5, 'invalid-json'],
  ] as const)(
    'an endpoint answering %s stops after N failed samples in a row: one coded line, exit 3, what ran kept',
    async (_, fault, limit, stopped, faultClass) => {
      server = await startScriptedOpenAiServer({ respond: () => ({ fault }) });
      const out = mkdtempSync(join(tmpdir(), 'apiary-endpoint-out-'));
      const r = await runInTempDir([
        'eval',
        'appbench',
        '--data',
        MINI,
        '--base-url',
        server.url,
        '--model',
        'scripted',
        '--retries',
        '0',
        '--concurrency',
        '1',
        ...(limit ? ['--max-endpoint-failures', limit] : []),
        '--out',
        out,
      ]);
      expect(r.code).toBe(3);
      expect(readResultsFile(join(out, 'results.jsonl')).samples).toHaveLength(stopped);
      const errorLines = r.stderr.split('\n').filter((l) => l.startsWith('error'));
      expect(errorLines).toHaveLength(1);
      expect(errorLines[0]).toMatch(
        new RegExp(
          `^error \\[MODEL_CALL_FAILED\\] stopped: ${stopped} consecutive samples failed because the model endpoint failed after its retries \\(last: MODEL_CALL_FAILED: model call failed after 1 attempt\\(s\\) \\[${faultClass}\\]: .*\\) \\(--max-endpoint-failures ${stopped}\\); ${stopped} of 8 samples recorded\\. Check the server at ${server.url.replace(/[.]/g, '\\.')}, then rerun with --resume --out `,
        ),
      );
      expect(existsSync(join(out, 'summary.json'))).toBe(true);
    },
  );

  it('after N consecutive connection failures the run stops instead of going through the dataset', async () => {
    server = await startScriptedOpenAiServer({ respond: () => ({ fault: 'timeout' }) });
    const out = mkdtempSync(join(tmpdir(), 'apiary-endpoint-out-'));
    const r = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--retries',
      '0',
      '--timeout-ms',
      '200',
      '--concurrency',
      '1',
      '--max-connection-failures',
      '3',
      '--out',
      out,
    ]);
    expect(r.code).toBe(3);
    expect(readResultsFile(join(out, 'results.jsonl')).samples).toHaveLength(3);
    expect(r.stderr).toContain(
      'error [MODEL_UNREACHABLE] stopped: 3 consecutive samples could not reach the model endpoint (--max-connection-failures 3); ' +
        '3 of 8 samples recorded',
    );
    expect(existsSync(join(out, 'summary.json'))).toBe(true);
  });
});

describe('apiary eval: a model that answers badly is scored, not an endpoint failure', {
  timeout: 60_000,
}, () => {
  it('hierarchical app selection answering [] every time: no error, exit 0, dropped from official as upstream, corrected counts it empty', async () => {
    server = await startScriptedOpenAiServer({ respond: () => '[]' });
    const out = mkdtempSync(join(tmpdir(), 'apiary-endpoint-out-'));
    const r = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--solver',
      'hierarchical',
      '--out',
      out,
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.infrastructureErrors).toBe(0);
    expect(json.summary).toMatchObject({ records: 8, errors: 0, infrastructureErrors: 0 });
    expect(json.summary.report).toMatchObject({ total: 8, scoredOfficial: 0 });
    expect(json.summary.report.failedIds).toHaveLength(8);
    expect(json.summary.report.corrected).toMatchObject({ n: 8, success: 0, appF1: 0 });
    // five selection turns per sample, no plan asked for
    expect(server.requests).toHaveLength(40);
    for (const l of readResultsFile(join(out, 'results.jsonl')).samples) {
      expect(l.error).toBeNull();
      expect(l.output).toMatchObject({ reply: '', rawReply: '[]', selectedApps: [] });
    }
  });
});

describe('apiary eval: replies with no plan line', { timeout: 60_000 }, () => {
  it('are format errors: a model that answers prose to every sample has a format-error rate of 100', async () => {
    server = await startScriptedOpenAiServer({
      respond: () => 'Sure! I would be glad to help you with that.',
    });
    const r = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      '--base-url',
      server.url,
      '--model',
      'scripted',
      '--out',
      mkdtempSync(join(tmpdir(), 'apiary-endpoint-out-')),
      '--json',
    ]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout).summary.report;
    expect(report.corrected).toMatchObject({ n: 8, formatErrorRate: 1, success: 0 });
    expect(report.failedIds).toEqual([]);
  });
});
