import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { buildHtmlReport } from './build.js';
import { loadReportRun } from './run.js';

/*
 * The report page laid out by a real browser (Debian's chromium through playwright-core, as the
 * viewer's browser test): five runs with long folder names at 1400 px must not widen the page.
 */

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
];

beforeAll(async () => {
  await registerBuiltinPlugins().loadTasks();
});

/** An AppBench run folder with one sample (its score mostly zeros, as an unanswered sample). */
function appbenchRun(root: string, name: string, model: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const zeros = (keys: string[]) => Object.fromEntries(keys.map((k) => [k, 0]));
  const score = {
    id: 'ss-1',
    category: 'ss',
    parallelScale: 1,
    sequentialScale: 1,
    failed: false,
    official: zeros([
      'predApps',
      'goldApps',
      'appHit',
      'predApis',
      'goldApis',
      'apiHit',
      'predArgs',
      'goldArgs',
      'argHit',
      'predDep',
      'goldDep',
      'depHit',
      'complete',
      'appEM',
      'apiEM',
    ]),
    corrected: zeros([
      'predCalls',
      'goldCalls',
      'appHit',
      'apiHit',
      'predArgs',
      'goldArgs',
      'argHit',
      'predDep',
      'goldDep',
      'depHit',
      'predIndep',
      'goldIndep',
      'indepHit',
      'success',
      'appEM',
      'apiEM',
      'formatError',
    ]),
    errors: zeros([
      'missingCalls',
      'extraCalls',
      'keyMissingDep',
      'keyMissingIndep',
      'keyExtraDep',
      'keyExtraIndep',
      'valueDep',
      'valueIndep',
      'valueTime',
      'valueSpace',
      'valueErrors',
    ]),
    goldRepairs: 0,
    goldUnreadable: 0,
  };
  const spec = {
    version: 2,
    task: { name: 'appbench', version: '3', options: {} },
    solver: { name: 'tool-loop', options: { record: 'calls', maxSteps: 10 } },
    model: { id: model, baseUrl: null },
    sampling: { temperature: 0, topP: null, maxOutputTokens: 512 },
    data: { path: '/home/someone/benchmarks/appbench/data/test-split-with-a-long-name', sha256: 'aaaa' },
    limit: null,
    size: 1,
    seed: 0,
    epochs: 1,
    concurrency: 1,
    price: null,
    gitRevision: null,
    packageVersion: '0.0.0',
    startedAt: '2026-01-01T00:00:00.000Z',
  };
  const sample = {
    type: 'sample',
    id: 'ss-1',
    epoch: 1,
    category: 'ss',
    output: null,
    error: null,
    usage: null,
    modelCalls: 1,
    startedAt: '2026-01-01T00:00:01.000Z',
    durationMs: 10,
    score,
  };
  writeFileSync(
    join(dir, 'results.jsonl'),
    `${JSON.stringify({ type: 'header', spec })}\n${JSON.stringify(sample)}\n`,
  );
  return dir;
}

describe.skipIf(!existsSync(CHROMIUM))('HTML report in chromium (needs the Debian package chromium)', () => {
  it('five runs with long folder names fit a 1400 px window: wide tables scroll in their own box', async () => {
    const root = mkdtempSync(join(tmpdir(), 'apiary-report-browser-'));
    const runs = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        loadReportRun(
          appbenchRun(
            root,
            `run-${i}-appbench-tool-loop-2026-01-0${i}T10-00-00-with-a-long-name`,
            `model-${i}`,
          ),
        ),
      ),
    );
    const html = await buildHtmlReport(runs, { now: () => new Date('2026-02-03T04:05:06.000Z') });
    const file = join(root, 'report.html');
    writeFileSync(file, html);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`file://${file}`);
      // a string runs in the page (this file is type-checked without the DOM library)
      const layout = (await page.evaluate(`({
        page: document.documentElement.scrollWidth,
        window: window.innerWidth,
        widestBox: Math.max(...[...document.querySelectorAll('div.table-scroll, figure.chart')]
          .map((e) => e.getBoundingClientRect().right)),
      })`)) as { page: number; window: number; widestBox: number };
      expect(layout.window).toBe(1400);
      expect(layout.page).toBeLessThanOrEqual(1400);
      expect(layout.widestBox).toBeLessThanOrEqual(1400);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
