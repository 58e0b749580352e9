import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LONG_SYSTEM, toyScoring, writeToyRun } from './__fixtures__/toy-run.js';
import { indexRun, newViewerToken, type RunIndex, viewerApp } from './index.js';

/* The viewer's routes through Hono's app.request (no socket, no browser). */

let run: string;
let index: RunIndex;
let app: ReturnType<typeof viewerApp>;
const token = newViewerToken();
/** What the browser sends once the tokened address was opened. */
const withToken = { headers: { cookie: `apiary_viewer_default=${token}` } };
beforeAll(async () => {
  run = await writeToyRun(mkdtempSync(join(tmpdir(), 'apiary-viewer-')));
  index = await indexRun(run, toyScoring);
  app = viewerApp(index, { token });
});

const get = (path: string) => app.request(`http://127.0.0.1${path}`, withToken);
async function ids(query: string): Promise<string[]> {
  const res = await get(`/api/samples?${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Array<{ id: string }> }).items.map((e) => e.id);
}

describe('viewer routes', () => {
  it('/api/run: the spec, the metrics, and the counts the filter buttons show', async () => {
    const res = await get('/api/run');
    expect(res.status).toBe(200);
    const run = await res.json();
    expect(run).toMatchObject({
      spec: { task: { name: 'toy' }, solver: { name: 'scripted' } },
      records: 7,
      samples: 7,
      metricNames: ['accuracy'],
      hasPass: true,
      categories: ['a', 'b'],
      counts: { passed: 2, failed: 5, errors: { none: 3, infra: 1, solver: 1, decode: 1, tool: 1 } },
      truncatedTail: false,
      headline: null,
    });
  });

  it('/api/samples filters by outcome, error kind, metric range, category and id', async () => {
    expect(await ids('')).toEqual([
      's-pass',
      's-xss',
      's-tool',
      's-decode',
      's-infra',
      's-solver',
      's-parts',
    ]);
    expect(await ids('outcome=passed')).toEqual(['s-pass', 's-parts']);
    // a record with an error has not passed
    expect(await ids('outcome=failed')).toEqual(['s-xss', 's-tool', 's-decode', 's-infra', 's-solver']);
    expect(await ids('error=none')).toEqual(['s-pass', 's-xss', 's-parts']);
    expect(await ids('error=some')).toEqual(['s-tool', 's-decode', 's-infra', 's-solver']);
    expect(await ids('error=tool')).toEqual(['s-tool']);
    expect(await ids('error=decode')).toEqual(['s-decode']);
    expect(await ids('error=infra')).toEqual(['s-infra']);
    expect(await ids('error=solver')).toEqual(['s-solver']);
    expect(await ids('min=0.5')).toEqual(['s-pass', 's-tool', 's-parts']);
    expect(await ids('min=0.1&max=0.9')).toEqual(['s-tool']);
    expect(await ids('metric=accuracy&max=0&category=a')).toEqual(['s-xss']);
    expect(await ids('metric=nope&min=0')).toEqual([]);
    expect(await ids('outcome=failed&error=none')).toEqual(['s-xss']);
    expect(await ids('q=S-IN')).toEqual(['s-infra']);
  });

  it('/api/samples pages: total counts every match, items one page', async () => {
    const res = await get('/api/samples?outcome=failed&offset=2&limit=2');
    const page = (await res.json()) as {
      total: number;
      offset: number;
      limit: number;
      items: Array<{ n: number }>;
    };
    expect(page).toMatchObject({ total: 5, offset: 2, limit: 2 });
    expect(page.items.map((e) => e.n)).toEqual([3, 4]);
    expect(page.items[0]).not.toHaveProperty('offset');
  });

  it('/api/samples refuses a bad filter naming it', async () => {
    const res = await get('/api/samples?outcome=maybe');
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^outcome: Invalid option/);
    expect((await get('/api/samples?limit=0')).status).toBe(400);
  });

  it('/api/samples/:n gives the record in full, long texts put back from blob lines', async () => {
    expect(readFileSync(join(run, 'results.jsonl'), 'utf8').split(LONG_SYSTEM).length).toBe(2); // stored once
    const res = await get('/api/samples/1');
    expect(res.status).toBe(200);
    const { entry, record } = (await res.json()) as {
      entry: { id: string; metrics: unknown; passed: boolean; errorKinds: string[] };
      record: { output: { trace: Array<{ sent?: { system?: string } }> }; score: unknown };
    };
    expect(entry).toMatchObject({ id: 's-xss', metrics: { accuracy: 0 }, passed: false, errorKinds: [] });
    expect(record.output.trace[0]!.sent!.system).toBe(LONG_SYSTEM);
    expect(record.score).toEqual({ accuracy: 0 });
    const infra = (await (await get('/api/samples/4')).json()) as { record: { error: string; output: null } };
    expect(infra.record).toMatchObject({
      error: 'MODEL_CALL_FAILED: HTTP 500 after 3 attempts',
      output: null,
    });
    expect((await get('/api/samples/7')).status).toBe(404);
    expect((await get('/api/samples/-1')).status).toBe(404);
    expect((await get('/api/samples/1e0')).status).toBe(404);
  });

  it('/api/file serves files inside the run folder only', async () => {
    const png = readFileSync(join(run, 'images', 'plot.png'));
    const rel = await get('/api/file?path=images/plot.png');
    expect(rel.status).toBe(200);
    expect(rel.headers.get('content-type')).toBe('image/png');
    expect(rel.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(rel.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await rel.arrayBuffer()).equals(png)).toBe(true);
    const abs = await get(`/api/file?path=${encodeURIComponent(join(run, 'images', 'plot.png'))}`);
    expect(abs.status).toBe(200);
    expect((await get('/api/file?path=images/../images/plot.png')).status).toBe(200);
    // outside: by .., by an absolute path, through a symbolic link, encoded
    expect((await get('/api/file?path=../outside.png')).status).toBe(403);
    expect((await get('/api/file?path=%2e%2e%2Foutside.png')).status).toBe(403);
    expect((await get('/api/file?path=/etc/passwd')).status).toBe(403);
    expect((await get('/api/file?path=images/link.png')).status).toBe(403);
    expect((await get('/api/file?path=.')).status).toBe(403);
    expect((await get('/api/file?path=')).status).toBe(403);
    expect(await (await get('/api/file?path=../outside.png')).text()).toBe(
      'refused: the viewer serves only files inside the run folder',
    );
    expect((await get('/api/file?path=images/none.png')).status).toBe(404);
    expect((await get('/api/file?path=images')).status).toBe(404);
  });

  it('answers only loopback host names (no DNS rebinding) and sends a strict CSP', async () => {
    const evil = await app.request('http://attacker.example/api/run', withToken);
    expect(evil.status).toBe(403);
    expect((await app.request('http://localhost/api/run', withToken)).status).toBe(200);
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('<script src="/viewer.js" defer></script>');
    expect((await get('/viewer.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await get('/nothing')).status).toBe(404);
    const open = viewerApp(index, { token, allowedHosts: null });
    expect((await open.request('http://attacker.example/api/run', withToken)).status).toBe(200);
  });
});

describe('a run still being written', () => {
  it('records appended after start show up; a torn tail is read again once whole; a shrunk file is indexed anew', async () => {
    const live = await writeToyRun(mkdtempSync(join(tmpdir(), 'apiary-viewer-live-')));
    const file = join(live, 'results.jsonl');
    const liveApp = viewerApp(await indexRun(live, toyScoring), { token });
    const overview = async () =>
      (await (await liveApp.request('http://127.0.0.1/api/run', withToken)).json()) as {
        records: number;
        truncatedTail: boolean;
        counts: { passed: number };
      };
    expect((await overview()).records).toBe(7);
    const original = readFileSync(file, 'utf8');
    const line = (id: string, accuracy: number) =>
      JSON.stringify({
        type: 'sample',
        id,
        epoch: 1,
        category: 'c',
        output: null,
        error: null,
        usage: null,
        modelCalls: 0,
        startedAt: '2026-01-02T03:04:09.000Z',
        durationMs: 5,
        score: { accuracy },
      });
    appendFileSync(file, `${line('s-new', 1)}\n`);
    expect(await overview()).toMatchObject({ records: 8, truncatedTail: false, counts: { passed: 3 } });
    const torn = line('s-late', 0.25);
    appendFileSync(file, torn.slice(0, 40));
    expect(await overview()).toMatchObject({ records: 8, truncatedTail: true });
    appendFileSync(file, `${torn.slice(40)}\n`);
    expect(await overview()).toMatchObject({ records: 9, truncatedTail: false });
    const listed = (await (
      await liveApp.request('http://127.0.0.1/api/samples?category=c', withToken)
    ).json()) as {
      items: Array<{ id: string; n: number; metrics: { accuracy: number } }>;
    };
    expect(listed.items.map((e) => [e.n, e.id, e.metrics.accuracy])).toEqual([
      [7, 's-new', 1],
      [8, 's-late', 0.25],
    ]);
    const late = (await (await liveApp.request('http://127.0.0.1/api/samples/8', withToken)).json()) as {
      record: { id: string };
    };
    expect(late.record.id).toBe('s-late');
    writeFileSync(file, original);
    expect((await overview()).records).toBe(7);
  });
});
