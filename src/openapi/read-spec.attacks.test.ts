import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readOpenApiSpec } from './index.js';

/*
 * A downloaded, hostile OpenAPI spec: its `$ref`s may read only files in the spec's own folder,
 * nothing over the network and nothing at all for a spec read from a URL; files and documents are
 * bounded before they are parsed. Each refusal is INPUT_INVALID naming the file and the pointer of
 * the `$ref`. docs/containment.md "OpenAPI specs".
 */

const SECRET = 'TOPSECRET-d41d8cd9';
/** Where the attacks put their `$ref`: a response schema of GET /pets. */
const SCHEMA_POINTER = '/paths/~1pets/get/responses/200/content/application~1json/schema';

const specWith = (schema: string): string =>
  [
    'openapi: 3.0.0',
    'info: {title: Pets, version: "1"}',
    'paths:',
    '  /pets:',
    '    get:',
    '      operationId: listPets',
    '      responses:',
    "        '200':",
    '          description: ok',
    '          content:',
    '            application/json:',
    `              schema: ${schema}`,
    '',
  ].join('\n');

let root: string;
let specDir: string;
let specFile: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'apiary-spec-attack-'));
  specDir = join(root, 'spec');
  specFile = join(specDir, 'spec.yaml');
  mkdirSync(join(specDir, 'sub'), { recursive: true });
  writeFileSync(join(root, 'secret.yaml'), `secret: ${SECRET}\n`);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const importWithRef = async (ref: string) => {
  writeFileSync(specFile, specWith(`{$ref: ${JSON.stringify(ref)}}`));
  return readOpenApiSpec(specFile);
};

describe('file $refs are confined to the spec folder', () => {
  const outside = (ref: string, real: string) =>
    expect(importWithRef(ref)).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      file: specFile,
      field: `${SCHEMA_POINTER}/$ref`,
      message: `${specFile}: field "${SCHEMA_POINTER}/$ref": $ref ${JSON.stringify(ref.split('#')[0])} reads ${real}, outside the spec's folder ${specDir}; a spec may only refer to files in its own folder and below`,
    });

  it('an absolute path (/etc/passwd, a secret elsewhere)', async () => {
    await outside('/etc/passwd', '/etc/passwd');
    await outside(join(root, 'secret.yaml'), join(root, 'secret.yaml'));
  });

  it('a relative path climbing out (../secret.yaml)', async () => {
    await outside('../secret.yaml', join(root, 'secret.yaml'));
    await outside('sub/../../secret.yaml#/secret', join(root, 'secret.yaml'));
  });

  it('a file:// URL', async () => {
    await outside(pathToFileURL(join(root, 'secret.yaml')).href, join(root, 'secret.yaml'));
  });

  it('a symlink inside the folder pointing out (file and folder links)', async () => {
    symlinkSync(join(root, 'secret.yaml'), join(specDir, 'sub', 'link.yaml'));
    await outside('sub/link.yaml', join(root, 'secret.yaml'));
    symlinkSync(root, join(specDir, 'up'));
    await outside('up/secret.yaml', join(root, 'secret.yaml'));
  });

  it('a referenced file that climbs out itself: the error names that file and its pointer', async () => {
    const inner = join(specDir, 'sub', 'pet.yaml');
    writeFileSync(inner, 'type: object\nproperties:\n  leak: {$ref: "../../secret.yaml"}\n');
    await expect(importWithRef('sub/pet.yaml')).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      file: inner,
      field: '/properties/leak/$ref',
    });
  });

  it('a missing file is named, not read around', async () => {
    await expect(importWithRef('sub/none.yaml')).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${specFile}: field "${SCHEMA_POINTER}/$ref": $ref "sub/none.yaml": no such file ${join(specDir, 'sub', 'none.yaml')}`,
    });
  });

  it('a FIFO in the folder is refused without blocking', async () => {
    execFileSync('mkfifo', [join(specDir, 'sub', 'pipe.yaml')]);
    await expect(importWithRef('sub/pipe.yaml')).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${join(specDir, 'sub', 'pipe.yaml')}: is not a regular file (a pipe or a device); refused`,
    });
  });

  it('files in the folder and below still resolve (nested, symlinked inside, percent-encoded)', async () => {
    writeFileSync(join(specDir, 'common.yaml'), 'Name: {type: string, maxLength: 30}\n');
    writeFileSync(
      join(specDir, 'sub', 'pet one.yaml'),
      'type: object\nproperties:\n  name: {$ref: "../common.yaml#/Name"}\n',
    );
    symlinkSync(join(specDir, 'sub', 'pet one.yaml'), join(specDir, 'sub', 'pet-link.yaml'));
    const viaSub = await importWithRef('sub/pet%20one.yaml');
    const viaLink = await importWithRef('./sub/pet-link.yaml');
    for (const spec of [viaSub, viaLink]) {
      const at = (v: unknown, ...keys: string[]): unknown =>
        keys.reduce((o, k) => (o as Record<string, unknown>)[k], v);
      expect(
        at(spec.doc, 'paths', '/pets', 'get', 'responses', '200', 'content', 'application/json', 'schema'),
      ).toEqual({
        type: 'object',
        properties: { name: { type: 'string', maxLength: 30 } },
      });
    }
  });
});

describe('no $ref is fetched over the network, and a spec from a URL refers to no file', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  let served = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/big.yaml') {
        // no content-length: the size is only known while streaming
        res.writeHead(200, { 'content-type': 'application/yaml' });
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < 20) {
            sent++;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => {});
        return pump();
      }
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(served);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('an http $ref in a file spec: refused, the server never asked', async () => {
    hits.length = 0;
    await expect(importWithRef(`${base}/schemas/pet.yaml`)).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${specFile}: field "${SCHEMA_POINTER}/$ref": $ref "${base}/schemas/pet.yaml" would be fetched over the network; Apiary reads no remote $refs: download the file next to the spec, refer to it by a relative path and import the local copy`,
    });
    expect(hits).toEqual([]);
  });

  it('a spec from a URL: file $refs (absolute, relative, file://) are refused', async () => {
    for (const ref of [
      '/etc/passwd',
      join(root, 'secret.yaml'),
      'secret.yaml',
      pathToFileURL('/etc/passwd').href,
    ]) {
      served = specWith(`{$ref: ${JSON.stringify(ref)}}`);
      hits.length = 0;
      const error = await readOpenApiSpec(`${base}/spec.yaml`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, ref).toMatchObject({
        code: 'INPUT_INVALID',
        file: `${base}/spec.yaml`,
        field: `${SCHEMA_POINTER}/$ref`,
      });
      expect((error as Error).message, ref).toContain(
        'names a file, but a spec read from a URL may only refer inside itself ("#/…")',
      );
      expect(hits).toEqual(['/spec.yaml']);
    }
  });

  it('a spec from a URL over 16 MiB: refused while streaming', async () => {
    await expect(readOpenApiSpec(`${base}/big.yaml`)).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${base}/big.yaml: is larger than 16777216 bytes; download refused`,
    });
  });
});

describe('sizes and shapes are bounded before anything walks them', () => {
  it('a spec file over 16 MiB is refused unread', async () => {
    writeFileSync(specFile, Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
    await expect(readOpenApiSpec(specFile)).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${specFile}: is larger than 16 MiB; refused unread`,
    });
  });

  it('a referenced file over 16 MiB is refused unread', async () => {
    writeFileSync(join(specDir, 'sub', 'big.yaml'), Buffer.alloc(16 * 1024 * 1024 + 1, 0x20));
    await expect(importWithRef('sub/big.yaml')).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${join(specDir, 'sub', 'big.yaml')}: is larger than 16 MiB; refused unread`,
    });
  });

  /** A "billion laughs": 9 levels of 10 aliases each stand for 10^9 strings. */
  const bomb = (indent: string): string => {
    let y = `${indent}a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n`;
    for (let i = 1; i < 9; i++)
      y += `${indent}a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(', ')}]\n`;
    return y;
  };

  it('a YAML alias bomb in the spec or in a referenced file: refused in well under a second', async () => {
    writeFileSync(specFile, `${specWith('{type: string}')}x-bomb:\n${bomb('  ')}`);
    const started = Date.now();
    await expect(readOpenApiSpec(specFile)).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${specFile}: not YAML or JSON: Excessive alias count indicates a resource exhaustion attack`,
    });
    writeFileSync(join(specDir, 'sub', 'bomb.yaml'), bomb(''));
    await expect(importWithRef('sub/bomb.yaml')).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${join(specDir, 'sub', 'bomb.yaml')}: not YAML or JSON: Excessive alias count indicates a resource exhaustion attack`,
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('deep nesting: 100,000 brackets, and 640 levels built from 8 aliases, are INPUT_INVALID', async () => {
    const head = `${specWith('{type: string}')}x-deep: `;
    writeFileSync(specFile, `${head}${'['.repeat(100_000)}${']'.repeat(100_000)}\n`);
    const started = Date.now();
    await expect(readOpenApiSpec(specFile)).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${specFile}: nested deeper than 500 levels at offset ${head.length + 500}; refused`,
    });
    expect(Date.now() - started).toBeLessThan(500);
    let chain = 'x-chain:\n  l0: &l0 {v: 1}\n';
    for (let i = 1; i <= 8; i++) chain += `  l${i}: &l${i} ${'{v: '.repeat(80)}*l${i - 1}${'}'.repeat(80)}\n`;
    writeFileSync(specFile, `${specWith('{type: string}')}${chain}`);
    await expect(readOpenApiSpec(specFile)).rejects.toMatchObject({
      code: 'INPUT_INVALID',
      message: `${specFile}: nested deeper than 500 levels (YAML aliases count as the nesting they stand for); refused`,
    });
  });
});
