import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadFile, writeFileAtomic } from './download.js';
import { ApiaryError } from './errors.js';
import { sha256Hex } from './hash.js';

const BODY = Buffer.from('{"hello": "world"}\n'.repeat(50));

/** A real HTTP server on 127.0.0.1 serving hand-made content. */
function startServer(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/ok.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length });
      res.end(BODY);
    } else if (req.url === '/cut.json') {
      // announces the full length, sends a part, then drops the connection
      res.writeHead(200, { 'content-length': BODY.length });
      res.write(BODY.subarray(0, 100), () => setTimeout(() => res.socket?.destroy(), 20));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    }
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)));
}

describe('downloadFile', () => {
  let server: Server;
  let base: string;
  let dir: string;
  beforeAll(async () => {
    server = await startServer();
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'apiary-dl-'));
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const failure = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (error) {
      return error as ApiaryError;
    }
    throw new Error('expected a failure');
  };

  it('downloads, hashes and moves the file into place', async () => {
    const dest = join(dir, 'a', 'ok.json');
    const r = await downloadFile(`${base}/ok.json`, dest, { sha256: sha256Hex(BODY) });
    expect(r.sha256).toBe(sha256Hex(BODY));
    expect(r.bytes).toBe(BODY.length);
    expect(readFileSync(dest)).toEqual(BODY);
    expect(readdirSync(join(dir, 'a'))).toEqual(['ok.json']);
  });

  it('fails on HTTP 404 naming the URL, leaving nothing', async () => {
    const dest = join(dir, 'b', 'missing.json');
    const e = await failure(downloadFile(`${base}/missing.json`, dest));
    expect(e.code).toBe('NETWORK');
    expect(e.message).toContain(`${base}/missing.json`);
    expect(e.message).toContain('404');
  });

  it('refuses a response over maxBytes (declared length) as INPUT_INVALID, leaving nothing', async () => {
    const dest = join(dir, 'm', 'ok.json');
    const e = await failure(downloadFile(`${base}/ok.json`, dest, { maxBytes: BODY.length - 1 }));
    expect([e.code, e.message]).toEqual([
      'INPUT_INVALID',
      `${base}/ok.json: is larger than ${BODY.length - 1} bytes; download refused`,
    ]);
    expect(readdirSync(dir)).not.toContain('m');
    expect((await downloadFile(`${base}/ok.json`, dest, { maxBytes: BODY.length })).bytes).toBe(BODY.length);
  });

  it('fails on a checksum mismatch and keeps no file', async () => {
    const dest = join(dir, 'c', 'ok.json');
    const e = await failure(downloadFile(`${base}/ok.json`, dest, { sha256: '0'.repeat(64) }));
    expect(e.code).toBe('NETWORK');
    expect(e.message).toMatch(/checksum mismatch/);
    expect(readdirSync(join(dir, 'c'))).toEqual([]);
  });

  it('reports a refused connection (offline) as NETWORK naming the URL', async () => {
    const closed = await startServer();
    const port = (closed.address() as AddressInfo).port;
    await new Promise((ok) => closed.close(ok));
    const url = `http://127.0.0.1:${port}/ok.json`;
    const e = await failure(downloadFile(url, join(dir, 'd', 'ok.json')));
    expect(e).toBeInstanceOf(ApiaryError);
    expect(e.code).toBe('NETWORK');
    expect(e.message).toContain(url);
  });

  it('leaves no partial file when the transfer is interrupted', async () => {
    const dest = join(dir, 'e', 'cut.json');
    const e = await failure(downloadFile(`${base}/cut.json`, dest));
    expect(e.code).toBe('NETWORK');
    expect(e.message).toMatch(/interrupted/);
    expect(readdirSync(join(dir, 'e'))).toEqual([]);
  });

  it('rejects content the validator refuses, keeping the previous file', async () => {
    const dest = join(dir, 'f', 'ok.json');
    writeFileAtomic(dest, 'previous');
    const e = await failure(
      downloadFile(`${base}/ok.json`, dest, {
        validate: () => {
          throw new ApiaryError('INPUT_INVALID', 'not AppBench');
        },
      }),
    );
    expect(e.code).toBe('INPUT_INVALID');
    expect(readFileSync(dest, 'utf8')).toBe('previous');
    expect(readdirSync(join(dir, 'f'))).toEqual(['ok.json']);
  });

  it('uses an injected fetch', async () => {
    const dest = join(dir, 'g', 'x.json');
    const r = await downloadFile('https://example.invalid/x.json', dest, {
      deps: { fetch: async () => new Response('injected') },
    });
    expect(readFileSync(dest, 'utf8')).toBe('injected');
    expect(r.sha256).toBe(sha256Hex('injected'));
  });
});
