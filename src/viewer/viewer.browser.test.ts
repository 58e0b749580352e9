import { appendFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ViewerHints } from '../plugins/index.js';
import { PLOT_SIZE, toyScoring, writeToyRun, XSS_REPLY } from './__fixtures__/toy-run.js';
import { type RunningViewer, startViewer } from './index.js';

/*
 * The viewer end to end in a real browser: Debian's chromium driven by playwright-core (no browser
 * download), a fresh profile, the server on a free loopback port, assertions on what is shown.
 */

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const haveChromium = existsSync(CHROMIUM);
/** Waits up to 5 s (the machine may be busy) for a value from the page. */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 5000 });
/** Hints of the toy task: the reply as the answer, a score's `note` as a fact (only s-events has either). */
const toyHints: ViewerHints = {
  answer: (o) => (o as { reply?: string } | null)?.reply ?? null,
  scoreFacts: (s) => {
    const note = (s as { note?: string } | null)?.note;
    return note ? [['note', note]] : [];
  },
};
const ALL = ['s-pass', 's-xss', 's-tool', 's-decode', 's-infra', 's-solver', 's-parts'];

describe.skipIf(!haveChromium)(
  'trace viewer in chromium (needs the Debian package chromium)',
  { timeout: 60_000 },
  () => {
    let viewer: RunningViewer;
    let context: BrowserContext;
    let page: Page;
    const dialogs: string[] = [];

    beforeAll(async () => {
      const run = await writeToyRun(mkdtempSync(join(tmpdir(), 'apiary-viewer-browser-')));
      viewer = await startViewer(run, { scoring: toyScoring, hints: toyHints, port: 0 });
      context = await chromium.launchPersistentContext(
        mkdtempSync(join(tmpdir(), 'apiary-chromium-profile-')),
        {
          executablePath: CHROMIUM,
          args: ARGS,
          viewport: { width: 1400, height: 1000 },
        },
      );
      page = await context.newPage();
      page.setDefaultTimeout(5000); // a missing element fails the test in seconds, not 30 s
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await page.goto(viewer.url);
      await page.waitForSelector('body[data-ready="1"]');
    });
    afterAll(async () => {
      await context?.close();
      await viewer?.close();
    });

    const listIds = () => page.locator('#list-body td.id').allTextContents();
    /** Clicks and waits for the list to show `ids` (the list reloads from the hash). */
    async function expectList(ids: string[]) {
      await poll(listIds).toEqual(ids);
    }

    it('loads the run: title, filter counts, every sample with its score, pass and errors', async () => {
      expect(await page.locator('#run-title').textContent()).toBe('toy · scripted · m');
      expect(await page.locator('#f-outcome button').allTextContents()).toEqual([
        'All 7',
        'Passed 2',
        'Failed 5',
      ]);
      expect(await page.locator('#f-error button').allTextContents()).toEqual([
        'Any',
        'No error 3',
        'Infra 1',
        'Solver 1',
        'Decode 1',
        'Tool 1',
      ]);
      await expectList(ALL);
      expect(await page.locator('#list-body td.score').allTextContents()).toEqual([
        '1',
        '0',
        '0.5000',
        '0',
        '0',
        '0',
        '1',
      ]);
      expect(await page.locator('#list-body td.pass').allTextContents()).toEqual([
        'pass',
        'fail',
        'fail',
        'fail',
        'fail',
        'fail',
        'pass',
      ]);
      expect(await page.locator('#list-body tr').nth(3).locator('.badge').allTextContents()).toEqual([
        'decode',
      ]);
      expect(await page.locator('#list-range').textContent()).toBe('1–7 of 7');
    });

    it('filters by outcome, error kind and score range with clicks', async () => {
      await page.getByRole('button', { name: 'Failed 5' }).click();
      await expectList(['s-xss', 's-tool', 's-decode', 's-infra', 's-solver']);
      await page.getByRole('button', { name: 'Tool 1' }).click();
      await expectList(['s-tool']);
      await page.getByRole('button', { name: 'Infra 1' }).click();
      await expectList(['s-infra']);
      await page.getByRole('button', { name: 'No error 3' }).click();
      await expectList(['s-xss']);
      expect(page.url()).toContain('outcome=failed');
      expect(page.url()).toContain('error=none');
      await page.getByRole('button', { name: 'All 7' }).click();
      await page.getByRole('button', { name: 'Any' }).click();
      await expectList(ALL);
      await page.fill('#f-min', '0.5');
      await page.fill('#f-max', '1');
      await page.click('#apply-range');
      await expectList(['s-pass', 's-tool', 's-parts']);
      await page.fill('#f-min', '');
      await page.fill('#f-max', '');
      await page.click('#apply-range');
      await expectList(ALL);
    });

    it('opens a sample: verdict, steps, call arguments, timings, tokens, stop reason, and its image loaded', async () => {
      await page.locator('#list-body tr', { hasText: 's-pass' }).click();
      const detail = page.locator('#detail');
      await poll(() => detail.locator('h2').textContent()).toBe('s-pass');
      expect(await detail.locator('.verdict p.pass').textContent()).toBe('passed');
      expect(await detail.locator('.verdict table.metrics').textContent()).toBe('accuracy1');
      expect(await detail.locator('.step h3').allTextContents()).toEqual(['Step 1', 'Step 2']);
      const call = detail.locator('.call').first();
      expect(await call.locator('h4').textContent()).toBe('Plot_draw Plot.draw · 12 ms');
      expect(JSON.parse((await call.locator('pre.json').first().textContent())!)).toEqual({
        title: 'Sales',
        values: [3, 1, 2],
      });
      expect(await call.locator('.result pre').first().textContent()).toBe('Drew 3 bars.');
      const img = call.locator('figure img');
      await expect
        .poll(() =>
          img.evaluate((el) => {
            const i = el as unknown as { complete: boolean; naturalWidth: number; naturalHeight: number };
            return [i.complete, i.naturalWidth, i.naturalHeight];
          }),
        )
        .toEqual([true, PLOT_SIZE.width, PLOT_SIZE.height]);
      const turn = detail.locator('.turn').first();
      expect(await turn.locator('dl.kv').textContent()).toBe(
        'decisioncallstokens120 in / 30 outlatency41 msattempts1',
      );
      expect(await detail.locator('.stop dl.kv').textContent()).toBe(
        'stop reasonfinalanswerHere is the plot.tokens120 in / 30 outtotal time97 ms',
      );
      expect(page.url()).toContain('n=0');
    });

    it('shows tool errors, result rows as a table, and refuses images outside the run folder', async () => {
      await page.locator('#list-body tr', { hasText: 's-tool' }).click();
      const detail = page.locator('#detail');
      await poll(() => detail.locator('h2').textContent()).toBe('s-tool');
      expect(await detail.locator('.call.err .label.error').textContent()).toBe('error INPUT_INVALID');
      expect(await detail.locator('.call.err pre.error').textContent()).toBe(
        'field "date": expected YYYY-MM-DD',
      );
      expect(await detail.locator('table.rows tbody tr').allTextContents()).toEqual(['Paris21', 'Oslo9']);
      await expect
        .poll(() => detail.locator('figcaption.refused').allTextContents())
        .toEqual([
          '../outside.png (not shown: missing, or outside the run folder)',
          `${viewer.index.folder}/images/link.png (not shown: missing, or outside the run folder)`,
        ]);
      expect(await detail.locator('figure img').count()).toBe(0);
    });

    it('a record without a trace: its output, and the images its content parts name', async () => {
      await page.locator('#list-body tr', { hasText: 's-parts' }).click();
      const detail = page.locator('#detail');
      await poll(() => detail.locator('h2').textContent()).toBe('s-parts');
      expect(await detail.locator('.trace').count()).toBe(0);
      expect(JSON.parse((await detail.locator('.output pre.json').textContent())!)).toMatchObject({
        answer: 'A chart.',
      });
      const img = detail.locator('.images figure img');
      await expect
        .poll(() => img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth))
        .toBe(2);
      expect(await detail.locator('.images figcaption').textContent()).toBe('images/plot.png');
    });

    it('shows a model reply holding markup as text, and runs none of it', async () => {
      await page.locator('#list-body tr', { hasText: 's-xss' }).click();
      const detail = page.locator('#detail');
      await poll(() => detail.locator('h2').textContent()).toBe('s-xss');
      expect(await detail.locator('.reply pre').textContent()).toBe(XSS_REPLY);
      expect(await detail.locator('.stop dl.kv dd').nth(1).textContent()).toBe(XSS_REPLY);
      expect(await detail.locator('script, img[src="x"]').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined();
      expect(dialogs).toEqual([]);
    });

    it('Reload shows records a running eval appended since the page loaded', async () => {
      const record = {
        type: 'sample',
        id: 's-appended',
        epoch: 1,
        category: 'b',
        output: null,
        error: 'MODEL_UNREACHABLE: no answer',
        usage: null,
        modelCalls: 0,
        startedAt: '2026-01-02T03:04:09.000Z',
        durationMs: 5,
        score: { accuracy: 0 },
      };
      appendFileSync(viewer.index.resultsFile, `${JSON.stringify(record)}\n`);
      await page.getByRole('button', { name: 'Reload' }).click();
      await poll(listIds).toEqual([...ALL, 's-appended']);
      expect(await page.locator('#f-error button').nth(2).textContent()).toBe('Infra 2');
      expect(await page.locator('#f-outcome button').first().textContent()).toBe('All 8');
    });

    it("draws a record's events as its timeline: turns with usage, calls with outcome, unknown kinds raw", async () => {
      const usage = { inputTokens: 50, outputTokens: 7 };
      const record = {
        type: 'sample',
        id: 's-events',
        epoch: 1,
        category: 'b',
        output: { reply: 'cold' },
        error: null,
        usage,
        modelCalls: 2,
        startedAt: '2026-01-02T03:04:10.000Z',
        durationMs: 90,
        score: { accuracy: 1, note: 'right city' },
        events: [
          {
            type: 'turn',
            step: 1,
            sent: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
            reply: { text: '', toolCalls: [{ id: 'c1', name: 'Weather_get', input: { city: 'Oslo' } }] },
            decision: 'calls',
            usage,
            latencyMs: 30,
          },
          {
            type: 'call',
            step: 1,
            id: 'c1',
            tool: 'Weather_get',
            app: 'Weather',
            api: 'get',
            args: { city: 'Oslo' },
            ok: false,
            error: { code: 'INPUT_INVALID', message: 'city: unknown' },
            durationMs: 4,
          },
          { type: 'ask-user', step: 1, question: 'Which Oslo?' },
          { type: 'stop', step: 2, reason: 'final', answer: 'cold', usage, totalMs: 80 },
        ],
      };
      appendFileSync(viewer.index.resultsFile, `${JSON.stringify(record)}\n`);
      await page.getByRole('button', { name: 'Reload' }).click();
      await poll(listIds).toEqual([...ALL, 's-appended', 's-events']);
      await page.locator('#list-body tr', { hasText: 's-events' }).click();
      const detail = page.locator('#detail');
      await poll(() => detail.locator('h2').textContent()).toBe('s-events');
      expect(await detail.locator('.step h3').allTextContents()).toEqual(['Step 1', 'Step 2']);
      expect(await detail.locator('.turn dl.kv').textContent()).toBe(
        'decisioncallstokens50 in / 7 outlatency30 ms',
      );
      expect(await detail.locator('.call.err h4').textContent()).toBe('Weather_get Weather.get · 4 ms');
      expect(await detail.locator('.call.err .label.error').textContent()).toBe('error INPUT_INVALID');
      expect(await detail.locator('.event.other h4').textContent()).toBe('ask-user');
      expect(JSON.parse((await detail.locator('.event.other pre.json').textContent())!)).toEqual({
        type: 'ask-user',
        step: 1,
        question: 'Which Oslo?',
      });
      expect(await detail.locator('.stop dl.kv').textContent()).toBe(
        'stop reasonfinalanswercoldtokens50 in / 7 outtotal time80 ms',
      );
      expect(await detail.locator('.events-source').count()).toBe(0);
      expect(JSON.parse((await detail.locator('.output pre.json').textContent())!)).toEqual({
        reply: 'cold',
      });
      // the task's hints: its answer, and a fact of its score
      expect(await detail.locator('.answer .result pre').textContent()).toBe('cold');
      expect(await detail.locator('.verdict dl.kv').textContent()).toBe('noteright city');
      // a record of an older file, with neither events nor a trace in its output
      await page.locator('#list-body tr', { hasText: 's-parts' }).click();
      await poll(() => detail.locator('h2').textContent()).toBe('s-parts');
      expect(await detail.locator('.no-events').textContent()).toBe(
        'Recorded before events: this record has no event log.',
      );
    });
  },
);

describe.skipIf(haveChromium)('trace viewer in chromium', () => {
  it.skip('skipped: /usr/bin/chromium is absent (install the Debian package chromium)', () => {});
});
