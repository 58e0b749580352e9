import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Jimp } from 'jimp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiaryError } from '../../../shared/index.js';
import { imageGenTools, imageGenToolsFromEnv, imageStylizationTool, textToImageTool } from './image-gen.js';

interface ImagesRequest {
  path: string;
  contentType: string;
  authorization: string | undefined;
  /** JSON body (generations) or the multipart fields (edits; files as their bytes). */
  fields: Record<string, unknown>;
}

let dir: string;
let server: Server;
let base: string;
const requests: ImagesRequest[] = [];
/** What the server answers next: a status and a raw body. */
const answers: { status: number; body: string }[] = [];
let bluePng: Buffer;
let redJpeg: Buffer;

const b64Answer = (bytes: Buffer) => ({
  status: 200,
  body: JSON.stringify({ data: [{ b64_json: bytes.toString('base64') }] }),
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'apiary-imagegen-'));
  bluePng = await new Jimp({ width: 4, height: 3, color: 0x0000ffff }).getBuffer('image/png');
  redJpeg = await new Jimp({ width: 2, height: 2, color: 0xff0000ff }).getBuffer('image/jpeg');
  writeFileSync(join(dir, 'input.jpg'), redJpeg);
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      let fields: Record<string, unknown> = {};
      if (contentType.startsWith('multipart/form-data')) {
        const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
        for (const [key, value] of form.entries())
          fields[key] = typeof value === 'string' ? value : Buffer.from(await value.arrayBuffer());
      } else fields = JSON.parse(raw.toString('utf8'));
      requests.push({ path: req.url ?? '', contentType, authorization: req.headers.authorization, fields });
      const answer = answers.shift() ?? { status: 404, body: '{"error":{"message":"unscripted"}}' };
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

const endpoint = () => ({ baseURL: base, model: 'sd-turbo', apiKey: 'sk-test' });
const sha16 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex').slice(0, 16);

describe('image-generation tools against a loopback images endpoint', () => {
  it('TextToImage posts the keywords with the quality suffix and saves the PNG in outputDir', async () => {
    answers.push(b64Answer(bluePng));
    const out = join(dir, 'run1');
    const parts = await textToImageTool({ endpoint: endpoint(), size: '512x512', maxRetries: 0 }).run(
      { keywords: 'a cat, sunset' },
      { outputDir: out, readable: [dir] },
    );
    const path = join(out, `TextToImage-${sha16(bluePng)}.png`);
    expect(parts).toEqual([{ type: 'image', path, mediaType: 'image/png' }]);
    expect(readFileSync(path).equals(bluePng)).toBe(true);
    const req = requests.at(-1)!;
    expect(req.path).toBe('/v1/images/generations');
    expect(req.authorization).toBe('Bearer sk-test');
    expect(req.fields).toEqual({
      model: 'sd-turbo',
      prompt: 'a cat, sunset, best quality, extremely detailed',
      n: 1,
      size: '512x512',
      response_format: 'b64_json',
    });
  });

  it('ImageStylization sends the input image as PNG with the instruction to /images/edits; a JPEG answer is saved as PNG', async () => {
    answers.push(b64Answer(redJpeg));
    const parts = await imageStylizationTool({ endpoint: endpoint(), maxRetries: 0 }).run(
      { image: join(dir, 'input.jpg'), instruction: 'make it blue' },
      { outputDir: dir, readable: [dir] },
    );
    const req = requests.at(-1)!;
    expect(req.path).toBe('/v1/images/edits');
    expect(req.contentType.startsWith('multipart/form-data')).toBe(true);
    expect(req.fields.model).toBe('sd-turbo');
    expect(req.fields.prompt).toBe('make it blue');
    expect(req.fields.n).toBe('1');
    // the JPEG input went out as a PNG of the same 2x2 red pixels
    const sent = req.fields.image as Buffer;
    expect([...sent.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const decoded = await Jimp.read(sent);
    expect([decoded.bitmap.width, decoded.bitmap.height]).toEqual([2, 2]);
    const saved = (parts[0] as { path: string }).path;
    expect(saved.startsWith(join(dir, 'ImageStylization-'))).toBe(true);
    expect([...readFileSync(saved).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });

  it('HTTP 500, a body that is not JSON and a missing input image are TOOL_FAILED', async () => {
    const tool = textToImageTool({ endpoint: endpoint(), maxRetries: 0 });
    answers.push({ status: 500, body: '{"error":{"message":"GPU on fire"}}' });
    const err = (await tool
      .run({ keywords: 'x' }, { outputDir: dir, readable: [dir] })
      .catch((e: unknown) => e)) as ApiaryError;
    expect(err).toBeInstanceOf(ApiaryError);
    expect(err.code).toBe('TOOL_FAILED');
    expect(err.message).toBe('TextToImage: the image model sd-turbo failed: GPU on fire');
    answers.push({ status: 200, body: 'not json' });
    const bad = (await tool
      .run({ keywords: 'x' }, { outputDir: dir, readable: [dir] })
      .catch((e: unknown) => e)) as ApiaryError;
    expect(bad.code).toBe('TOOL_FAILED');
    expect(bad.message).toMatch(/^TextToImage: the image model sd-turbo failed: /);
    const before = requests.length;
    await expect(
      imageStylizationTool({ endpoint: endpoint() }).run(
        { image: join(dir, 'gone.png'), instruction: 'x' },
        { outputDir: dir, readable: [dir] },
      ),
    ).rejects.toThrow(`ImageStylization: cannot read image ${join(dir, 'gone.png')}: no such file`);
    // outside the granted folders: refused before anything is read or sent
    await expect(
      imageStylizationTool({ endpoint: endpoint() }).run(
        { image: '/etc/passwd', instruction: 'x' },
        { outputDir: dir, readable: [dir] },
      ),
    ).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
      message:
        'ImageStylization: image "/etc/passwd" is outside the folders this tool may read (grant more with --allow-dir)',
    });
    expect(requests.length).toBe(before);
  });

  it('imageGenToolsFromEnv reads APIARY_IMAGE_* variables', async () => {
    const [tti] = imageGenToolsFromEnv({ APIARY_IMAGE_BASE_URL: base, APIARY_IMAGE_MODEL: 'env-model' });
    answers.push(b64Answer(bluePng));
    await tti!.run({ keywords: 'k' }, { outputDir: dir, readable: [dir] });
    expect(requests.at(-1)!.fields.model).toBe('env-model');
    expect(requests.at(-1)!.authorization).toBeUndefined();
  });

  it('unconfigured, both tools say which flags and variables to set', () => {
    expect(imageGenTools({ endpoint: undefined }).map((t) => [t.name, t.unavailable?.()])).toEqual([
      [
        'TextToImage',
        'set APIARY_IMAGE_BASE_URL and APIARY_IMAGE_MODEL (or --image-base-url and --image-model; key in APIARY_IMAGE_API_KEY) to an OpenAI-compatible images endpoint (/v1/images/generations and /v1/images/edits)',
      ],
      [
        'ImageStylization',
        'set APIARY_IMAGE_BASE_URL and APIARY_IMAGE_MODEL (or --image-base-url and --image-model; key in APIARY_IMAGE_API_KEY) to an OpenAI-compatible images endpoint (/v1/images/generations and /v1/images/edits)',
      ],
    ]);
  });
});
