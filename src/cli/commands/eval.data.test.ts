import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/index.js';
import { readResultsFile } from '../../harness/index.js';
import { appBenchGoldReply, loadAppBenchDataset, scoreAppBench } from '../../tasks/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';

/* `apiary eval appbench --data ../shared/data/appbench` (dev_*.json, 4 × 50 records). */

const ROOT = resolve(__dirname, '../../..');
const DATA = resolve(process.cwd(), '../shared/data/appbench');
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'apiary-cache-')),
  };
  for (const k of Object.keys(env)) if (k.startsWith('APIARY_') || k === 'OPENAI_API_KEY') delete env[k];
  const child = spawn(process.execPath, ['--import', TSX, join(ROOT, 'src/cli/main.ts'), ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'apiary-cwd-')),
    env,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((res) => child.on('close', (code) => res({ code, stdout, stderr })));
}

describe('apiary eval appbench on the shared dev files', () => {
  const samples = loadAppBenchDataset(DATA).samples;
  const gold = new Map(samples.map((s) => [s.record.input, appBenchGoldReply(s.record)]));
  let server: ScriptedOpenAiServer;
  beforeAll(async () => {
    server = await startScriptedOpenAiServer({
      respond: (req) => gold.get(req.messages.at(-1)!.content) ?? '',
    });
  });
  afterAll(() => server.close());

  it('detects the dev_ prefix and runs the baseline over all 200 records', async () => {
    const out = mkdtempSync(join(tmpdir(), 'apiary-eval-dev-'));
    const r = await runCli(['eval', 'appbench', '--data', DATA, '--out', out, '--concurrency', '8']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('dev_*.json, 200 samples in ss, sm, ms, mm');
    const contents = readResultsFile(join(out, 'results.jsonl'));
    expect(contents.samples).toHaveLength(200);
    expect(contents.samples.filter((l) => l.error !== null)).toEqual([]);
  });

  it('gold replies over HTTP score exactly as scoring them directly', async () => {
    const out = mkdtempSync(join(tmpdir(), 'apiary-eval-dev-'));
    const r = await runCli([
      'eval',
      'appbench',
      '--data',
      DATA,
      '--base-url',
      server.url,
      '--model',
      'gold',
      '--out',
      out,
      '--concurrency',
      '16',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.summary).toMatchObject({ samples: 200, errors: 0 });
    // The flat agent keeps the gold lines as they are, so the report equals the direct score of the gold.
    const direct = scoreAppBench(
      samples.map((sample) => ({
        sample,
        prediction: { id: sample.id, reply: appBenchGoldReply(sample.record) },
      })),
      loadCatalog('appbench'),
    );
    expect(json.summary.report).toEqual(JSON.parse(JSON.stringify(direct)));
  });
});
