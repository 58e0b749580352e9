import { appendFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { toyScoring, writeToyRun } from './__fixtures__/toy-run.js';
import { indexRun, type RunningViewer, startViewer, VIEWER_TOKEN_BYTES, viewerApp } from './index.js';

/*
 * Attacks on `apiary view` (issue 24, row 17): the run folder is a home folder holding `.ssh/` and
 * `.aws/`, another user of the machine (or a page in the browser) asks the viewer for them. The
 * viewer must answer nothing without the token, and with it only the images the records name.
 */

const TOKEN = 'attack-test-token-0123456789abcdef0123456789';
const cookie = (token: string) => ({ headers: { cookie: `apiary_viewer_default=${token}` } });

let run: string;
let app: ReturnType<typeof viewerApp>;
beforeAll(async () => {
  run = await writeToyRun(mkdtempSync(join(tmpdir(), 'apiary-viewer-attacks-')));
  mkdirSync(join(run, '.ssh'));
  writeFileSync(join(run, '.ssh', 'id_rsa'), 'PRIVATE KEY');
  mkdirSync(join(run, '.aws'));
  writeFileSync(join(run, '.aws', 'credentials'), 'aws_secret_access_key=x');
  writeFileSync(join(run, '.aws', 'shot.png'), 'not shown');
  writeFileSync(join(run, 'notes.txt'), 'private notes');
  writeFileSync(join(run, 'unnamed.png'), 'an image no record names');
  symlinkSync(join(run, '.ssh', 'id_rsa'), join(run, 'images', 'key.png'));
  // a tool result that names secrets as images (a web page or a model can put such lines there)
  const line = JSON.stringify({
    type: 'sample',
    id: 's-named',
    epoch: 1,
    category: 'c',
    output: {
      answer: 'x',
      content: [{ type: 'image', path: '.aws/shot.png' }],
      text: '[image](.ssh/id_rsa)\n[image](.aws/credentials)\n[image](notes.txt)\n[image](images/key.png)',
    },
    error: null,
    usage: null,
    modelCalls: 0,
    startedAt: '2026-01-02T03:04:09.000Z',
    durationMs: 5,
    score: { accuracy: 0 },
  });
  appendFileSync(join(run, 'results.jsonl'), `${line}\n`);
  app = viewerApp(await indexRun(run, toyScoring), { token: TOKEN });
});

const ROUTES = ['/', '/viewer.js', '/viewer.css', '/api/run', '/api/samples', '/api/samples/0'];

describe('the viewer needs its token on every request', () => {
  it('no token, a wrong one, one of another length, an empty one: 403 on every route', async () => {
    for (const route of [...ROUTES, '/api/file?path=images/plot.png']) {
      for (const init of [
        {},
        cookie('x'),
        cookie(`${TOKEN.slice(0, -1)}X`),
        cookie(`${TOKEN}0`),
        cookie(''),
      ]) {
        const res = await app.request(`http://127.0.0.1${route}`, init);
        expect([route, res.status]).toEqual([route, 403]);
        expect(await res.text()).toBe('refused: open the address `apiary view` printed (it holds the token)');
      }
      const wrongQuery = await app.request(
        `http://127.0.0.1${route}${route.includes('?') ? '&' : '?'}token=${TOKEN.slice(1)}`,
      );
      expect([route, wrongQuery.status]).toEqual([route, 403]);
    }
  });

  it('the tokened address sets an HttpOnly SameSite=Strict cookie and drops the token from the address', async () => {
    const res = await app.request(`http://127.0.0.1/?token=${TOKEN}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    expect(res.headers.get('set-cookie')).toBe(
      `apiary_viewer_default=${TOKEN}; Path=/; HttpOnly; SameSite=Strict`,
    );
    for (const route of ROUTES)
      expect((await app.request(`http://127.0.0.1${route}`, cookie(TOKEN))).status).toBe(200);
    // a token in the query works for any route too (scripts, curl)
    expect((await app.request(`http://127.0.0.1/api/run?token=${TOKEN}`)).status).toBe(200);
  });

  it('startViewer prints a URL with a fresh random token of 256 bits; the server checks it', async () => {
    let viewer: RunningViewer | undefined;
    let other: RunningViewer | undefined;
    try {
      viewer = await startViewer(run, { scoring: toyScoring, port: 0 });
      other = await startViewer(run, { scoring: toyScoring, port: 0 });
      const url = new URL(viewer.url);
      expect(url.pathname).toBe('/');
      expect(url.searchParams.get('token')).toBe(viewer.token);
      expect(Buffer.from(viewer.token, 'base64url').length).toBe(VIEWER_TOKEN_BYTES);
      expect(VIEWER_TOKEN_BYTES * 8).toBeGreaterThanOrEqual(128);
      expect(other.token).not.toBe(viewer.token);
      const base = `${url.origin}`;
      expect((await fetch(`${base}/api/run`)).status).toBe(403);
      expect((await fetch(`${base}/api/file?path=images/plot.png`)).status).toBe(403);
      expect((await fetch(`${base}/api/run?token=${other.token}`)).status).toBe(403);
      const first = await fetch(viewer.url, { redirect: 'manual' });
      expect(first.status).toBe(303);
      const set = first.headers.get('set-cookie')!;
      expect(set).toBe(`apiary_viewer_${url.port}=${viewer.token}; Path=/; HttpOnly; SameSite=Strict`);
      const again = await fetch(`${base}/api/run`, { headers: { cookie: set.split(';')[0]! } });
      expect(again.status).toBe(200);
    } finally {
      await viewer?.close();
      await other?.close();
    }
  });
});

describe('with the token, the viewer serves the images the records name and nothing else', () => {
  const file = async (path: string) => {
    const res = await app.request(`http://127.0.0.1/api/file?path=${path}`, cookie(TOKEN));
    return [res.status, await res.text()];
  };
  const NOT_NAMED = "refused: the viewer serves only the images the run's records name";
  const OUTSIDE = 'refused: the viewer serves only files inside the run folder';

  it('a named image inside the run: served', async () => {
    expect((await file('images/plot.png'))[0]).toBe(200);
  });

  it('files under the run folder that are no named image: refused, even when a record names them', async () => {
    expect(await file('.ssh/id_rsa')).toEqual([403, NOT_NAMED]);
    expect(await file('.aws/credentials')).toEqual([403, NOT_NAMED]);
    expect(await file('.aws/shot.png')).toEqual([403, NOT_NAMED]); // named, but in a hidden folder
    expect(await file('notes.txt')).toEqual([403, NOT_NAMED]); // named, but no image
    expect(await file('unnamed.png')).toEqual([403, NOT_NAMED]); // an image no record names
    expect(await file('results.jsonl')).toEqual([403, NOT_NAMED]);
    expect(await file('images/key.png')).toEqual([403, NOT_NAMED]); // named link to the key
    expect(await file('%2essh%2fid_rsa')).toEqual([403, NOT_NAMED]);
    expect(await file(encodeURIComponent(join(run, '.ssh', 'id_rsa')))).toEqual([403, NOT_NAMED]);
    expect(await file('images/..%2f.ssh%2fid_rsa')).toEqual([403, NOT_NAMED]);
  });

  it('outside the run folder: refused by .., encoded .., absolute path, link', async () => {
    expect(await file('../outside.png')).toEqual([403, OUTSIDE]);
    expect(await file('%2e%2e%2foutside.png')).toEqual([403, OUTSIDE]);
    expect(await file('%2Fetc%2Fpasswd')).toEqual([403, OUTSIDE]);
    expect(await file('images/link.png')).toEqual([403, OUTSIDE]);
  });
});
