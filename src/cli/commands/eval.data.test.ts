import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBenchGoldReply, loadAppBenchDataset, scoreAppBench } from '../../benchmarks/appbench/index.js';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { loadCatalog } from '../../catalog/index.js';
import { readResultsFile } from '../../harness/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';
import { runCli } from '../__fixtures__/run-cli.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

/* `apiary eval appbench --data ../shared/data/appbench` (dev_*.json, 4 × 50 records). */

const DATA = resolve(process.cwd(), '../shared/data/appbench');

/** `apiary <args>` on a clean machine, in a fresh temp folder. */
const runInTempDir = (args: string[]) => runCli(args, { cwd: mkdtempSync(join(tmpdir(), 'apiary-cwd-')) });

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
    const r = await runInTempDir(['eval', 'appbench', '--data', DATA, '--out', out, '--concurrency', '8']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('dev_*.json, 200 samples in ss, sm, ms, mm');
    const contents = readResultsFile(join(out, 'results.jsonl'));
    expect(contents.samples).toHaveLength(200);
    expect(contents.samples.filter((l) => l.error !== null)).toEqual([]);
  });

  it('gold replies over HTTP score exactly as scoring them directly', async () => {
    const out = mkdtempSync(join(tmpdir(), 'apiary-eval-dev-'));
    const r = await runInTempDir([
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
