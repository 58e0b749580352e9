import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../shared/index.js';
import { carRental, stylist, twoWeathers, weatherAndFood } from './__fixtures__/hand-made.js';
import { AppBenchManifestSchema, findAppBenchData, pullAppBench } from './pull-appbench.js';

// Hand-made records served as the four category files (never real AppBench data).
const content: Record<string, string> = {
  '/data/test/test_ss.json': JSON.stringify([stylist]),
  '/data/test/test_sm.json': JSON.stringify([carRental, twoWeathers]),
  '/data/test/test_ms.json': JSON.stringify([weatherAndFood]),
  '/data/test/test_mm.json': JSON.stringify([]),
};

describe('pullAppBench (local server on 127.0.0.1)', () => {
  let server: Server;
  let baseUrl: string;
  let root: string;
  const fixed = () => new Date('2026-01-02T03:04:05.000Z');
  beforeAll(async () => {
    server = createServer((req, res) => {
      const body = content[req.url ?? ''];
      if (body === undefined) {
        res.writeHead(404);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/data/test`;
    root = mkdtempSync(join(tmpdir(), 'apiary-pull-'));
  });
  afterAll(() => {
    server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('downloads the four files, records their sha256 and warns about unexpected counts', async () => {
    const dir = join(root, 'a');
    const r = await pullAppBench({ dir, baseUrl, deps: { now: fixed } });
    expect(r.files.map((f) => [f.file, f.records, f.status])).toEqual([
      ['test_ss.json', 1, 'downloaded'],
      ['test_sm.json', 2, 'downloaded'],
      ['test_ms.json', 1, 'downloaded'],
      ['test_mm.json', 0, 'downloaded'],
    ]);
    expect(r.warnings).toHaveLength(4);
    expect(r.warnings[0]).toBe('test_ss.json: 1 records, expected 200 (upstream changed?)');
    const manifest = AppBenchManifestSchema.parse(
      JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')),
    );
    expect(manifest.files['test_sm.json']).toEqual({
      url: `${baseUrl}/test_sm.json`,
      sha256: sha256Hex(content['/data/test/test_sm.json']!),
      bytes: Buffer.byteLength(content['/data/test/test_sm.json']!),
      records: 2,
      downloadedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(readdirSync(dir).sort()).toEqual([
      'manifest.json',
      'test_mm.json',
      'test_ms.json',
      'test_sm.json',
      'test_ss.json',
    ]);
    expect(findAppBenchData(undefined, dir)).toBe(dir);

    // Second run: files are present and match the manifest.
    const again = await pullAppBench({ dir, baseUrl, deps: { now: fixed } });
    expect(again.files.every((f) => f.status === 'present')).toBe(true);
  });

  it('refuses a changed upstream file against the recorded hash (trust on first use)', async () => {
    const dir = join(root, 'b');
    await pullAppBench({ dir, baseUrl, categories: ['ss'] });
    const saved = content['/data/test/test_ss.json']!;
    content['/data/test/test_ss.json'] = JSON.stringify([stylist, stylist]);
    try {
      await expect(pullAppBench({ dir, baseUrl, categories: ['ss'], force: true })).rejects.toMatchObject({
        code: 'NETWORK',
        message: expect.stringMatching(/checksum mismatch/),
      });
      expect(readFileSync(join(dir, 'test_ss.json'), 'utf8')).toBe(saved);
    } finally {
      content['/data/test/test_ss.json'] = saved;
    }
  });

  it('checks pinned hashes', async () => {
    const dir = join(root, 'c');
    await expect(
      pullAppBench({ dir, baseUrl, categories: ['ms'], sha256: { 'test_ms.json': 'ab'.repeat(32) } }),
    ).rejects.toMatchObject({ code: 'NETWORK' });
    expect(existsSync(join(dir, 'test_ms.json'))).toBe(false);
    const ok = await pullAppBench({
      dir,
      baseUrl,
      categories: ['ms'],
      sha256: { 'test_ms.json': sha256Hex(content['/data/test/test_ms.json']!) },
    });
    expect(ok.files[0]!.status).toBe('downloaded');
  });

  it('rejects content that is not AppBench records and keeps no file', async () => {
    const dir = join(root, 'd');
    content['/data/test/test_mm.json'] = JSON.stringify([{ input: 'x' }]);
    try {
      await expect(pullAppBench({ dir, baseUrl, categories: ['mm'] })).rejects.toMatchObject({
        code: 'INPUT_INVALID',
        message: expect.stringContaining('test_mm.json: record 1'),
      });
      expect(existsSync(join(dir, 'test_mm.json'))).toBe(false);
    } finally {
      content['/data/test/test_mm.json'] = JSON.stringify([]);
    }
  });

  it('reports 404 and offline as NETWORK errors naming the URL', async () => {
    await expect(
      pullAppBench({ dir: join(root, 'e'), baseUrl: `${baseUrl}/nope`, categories: ['ss'] }),
    ).rejects.toMatchObject({
      code: 'NETWORK',
      message: expect.stringContaining(`${baseUrl}/nope/test_ss.json`),
    });
    await expect(
      pullAppBench({
        dir: join(root, 'f'),
        baseUrl,
        categories: ['ss'],
        deps: {
          fetch: async () => {
            throw new TypeError('fetch failed', { cause: { code: 'ENOTFOUND' } });
          },
        },
      }),
    ).rejects.toMatchObject({ code: 'NETWORK', message: expect.stringMatching(/test_ss\.json.*ENOTFOUND/) });
  });

  it('findAppBenchData: explicit dir, then a populated cache, else undefined', () => {
    expect(findAppBenchData('/some/dir', join(root, 'a'))).toBe('/some/dir');
    expect(findAppBenchData(undefined, join(root, 'empty'))).toBeUndefined();
  });
});
