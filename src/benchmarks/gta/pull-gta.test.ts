import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../shared/index.js';
import { GtaManifestSchema, pullGta } from './pull-gta.js';

/** `apiary data pull gta` against a local server serving an archive zipped here from our fixtures. */

const has = (bin: string) => spawnSync(bin, ['-v'], { encoding: 'utf8' }).error === undefined;
const missing = ['zip', 'unzip'].filter((b) => !has(b));
const FIXTURE = resolve(import.meta.dirname, '__fixtures__/e2e');

describe.skipIf(missing.length > 0)(
  missing.length
    ? `pullGta (skipped: install the Debian packages ${missing.join(' ')})`
    : 'pullGta (local server on 127.0.0.1)',
  () => {
    let server: Server;
    let base: string;
    let root: string;
    const archives: Record<string, Buffer> = {};
    const fixed = () => new Date('2026-01-02T03:04:05.000Z');

    /** Zips `tree` (a folder) the way the release does: one top folder holding dataset.json and image/. */
    function zipOf(tree: string): Buffer {
      const out = join(root, `${Object.keys(archives).length}.zip`);
      const r = spawnSync('zip', ['-q', '-r', out, '.'], { cwd: tree });
      if (r.status !== 0) throw new Error(`zip failed: ${r.stderr}`);
      return readFileSync(out);
    }

    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'apiary-pull-gta-'));
      const good = join(root, 'good');
      cpSync(FIXTURE, join(good, 'gta_dataset'), { recursive: true });
      archives['/gta_dataset.zip'] = zipOf(good);
      const empty = join(root, 'empty');
      mkdirSync(join(empty, 'other'), { recursive: true });
      writeFileSync(join(empty, 'other', 'readme.txt'), 'no dataset here\n');
      archives['/empty.zip'] = zipOf(empty);
      archives['/broken.zip'] = Buffer.from('not a zip file');
      server = createServer((req, res) => {
        const body = archives[req.url ?? ''];
        if (!body) {
          res.writeHead(404);
          res.end();
          return;
        }
        res.writeHead(200, { 'content-length': body.length });
        res.end(body);
      });
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      server?.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('downloads, verifies the sha256, unpacks dataset.json and image/, records a manifest', async () => {
      const dir = join(root, 'pulled');
      const archive = archives['/gta_dataset.zip']!;
      const sha256 = sha256Hex(archive);
      const r = await pullGta({ dir, url: `${base}/gta_dataset.zip`, sha256, deps: { now: fixed } });
      expect(r.status).toBe('downloaded');
      expect(r.manifest).toEqual({
        url: `${base}/gta_dataset.zip`,
        sha256,
        bytes: archive.length,
        records: 13,
        images: 7,
        downloadedAt: '2026-01-02T03:04:05.000Z',
      });
      expect(r.warnings).toEqual(['dataset.json: 13 queries, expected 229 (another release?)']);
      expect(readdirSync(dir).sort()).toEqual(['dataset.json', 'image', 'manifest.json']);
      expect(readFileSync(join(dir, 'dataset.json'))).toEqual(readFileSync(join(FIXTURE, 'dataset.json')));
      expect(GtaManifestSchema.parse(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')))).toEqual(
        r.manifest,
      );
      // a second pull finds it in place and downloads nothing
      const again = await pullGta({ dir, url: `${base}/missing.zip` });
      expect([again.status, again.manifest.sha256]).toEqual(['present', sha256]);
      // a pinned hash that differs from what is there asks for --force
      await expect(pullGta({ dir, sha256: '0'.repeat(64) })).rejects.toThrow(/run with --force/);
    });

    it('without a pinned hash: trust on first use, with a warning naming the recorded hash', async () => {
      const r = await pullGta({ dir: join(root, 'tofu'), url: `${base}/gta_dataset.zip` });
      expect(r.warnings[1]).toBe(
        `no pinned sha256: recorded ${sha256Hex(archives['/gta_dataset.zip']!)} in manifest.json (later pulls must match it)`,
      );
    });

    it('a checksum mismatch fails and leaves nothing behind', async () => {
      const dir = join(root, 'mismatch');
      await expect(
        pullGta({ dir, url: `${base}/gta_dataset.zip`, sha256: 'a'.repeat(64) }),
      ).rejects.toMatchObject({
        code: 'NETWORK',
        message: `checksum mismatch for ${base}/gta_dataset.zip: expected sha256 ${'a'.repeat(64)}, got ${sha256Hex(archives['/gta_dataset.zip']!)}`,
      });
      expect(readdirSync(dir)).toEqual([]);
    });

    it('says what is wrong with an archive without dataset.json, a broken archive, a missing unzip', async () => {
      await expect(pullGta({ dir: join(root, 'e'), url: `${base}/empty.zip` })).rejects.toThrow(
        `${base}/empty.zip: the archive holds no dataset.json`,
      );
      await expect(pullGta({ dir: join(root, 'b'), url: `${base}/broken.zip` })).rejects.toMatchObject({
        code: 'INPUT_INVALID',
        message: expect.stringMatching(/^cannot unpack .*gta_dataset\.zip: /),
      });
      await expect(
        pullGta({ dir: join(root, 'u'), url: `${base}/gta_dataset.zip`, unzipPath: join(root, 'no-unzip') }),
      ).rejects.toThrow('needs the unzip program: install the Debian package unzip (apt-get install unzip)');
      for (const d of ['e', 'b', 'u']) expect(existsSync(join(root, d, 'dataset.json'))).toBe(false);
    });
  },
);
