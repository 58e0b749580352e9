import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Jimp } from 'jimp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiaryError } from '../../../shared/index.js';
import {
  type ScriptedOpenAiServer,
  type ScriptedReply,
  startScriptedOpenAiServer,
} from '../../../test/index.js';
import { modelEndpointFromEnv } from '../../../tools/model-endpoint.js';
import { toolHandler } from '../../../tools/tool.js';
import {
  countGivenObjectTool,
  imageDescriptionTool,
  mathOcrTool,
  regionAttributeDescriptionTool,
  textToBboxTool,
  VISION_PROMPTS,
  visionTools,
  visionToolsFromEnv,
} from './vision.js';
import { createVisionClient } from './vision-client.js';

let dir: string;
let server: ScriptedOpenAiServer;
let photo: string;
let photoBytes: Buffer;
const replies: ScriptedReply[] = [];
const ctx = () => ({ outputDir: dir, readable: [dir] });
const textOf = async (p: Promise<unknown>) => ((await p) as { type: 'text'; text: string }[])[0]!.text;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'apiary-vision-'));
  // 40x30 white picture with a red 10x5 block at x 20..29, y 10..14
  const image = new Jimp({ width: 40, height: 30, color: 0xffffffff });
  for (let x = 20; x < 30; x++) for (let y = 10; y < 15; y++) image.setPixelColor(0xff0000ff, x, y);
  photo = join(dir, 'photo.png');
  photoBytes = await image.getBuffer('image/png');
  writeFileSync(photo, photoBytes);
  writeFileSync(join(dir, 'notes.txt'), 'not an image');
  server = await startScriptedOpenAiServer({ respond: () => replies.shift() ?? 'unscripted' });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const client = () =>
  createVisionClient({
    endpoint: { baseURL: server.url, model: 'qwen-vl' },
    retry: { maxRetries: 0 },
  });

/** The user turn's parts of the last request: the image data URL and the prompt text. */
function lastParts() {
  const req = server.requests.at(-1)!;
  expect(req.model).toBe('qwen-vl');
  expect(req.body.temperature).toBe(0);
  const content = req.body.messages[0].content as {
    type: string;
    text?: string;
    image_url?: { url: string };
  }[];
  expect(content.map((p) => p.type)).toEqual(['image_url', 'text']);
  return { url: content[0]!.image_url!.url, text: content[1]!.text! };
}

describe('vision tools against a scripted OpenAI-compatible server', () => {
  it('TextToBbox sends the image as a base64 PNG data URL with the prompt and formats the top box', async () => {
    replies.push(
      'Sure!\n(20.4, 10, 29.5, 14.6), score 0.875\n[1, 2, 3, 4] score: 91%\n(0,0,100,100), score 40',
    );
    const out = await textOf(
      textToBboxTool({ client: client() }).run({ image: photo, text: 'red block' }, ctx()),
    );
    // top1: the 91 box; corners in pixels, {:.0f} rounding (half to even)
    expect(out).toBe('(1, 2, 3, 4), score 91');
    const { url, text } = lastParts();
    expect(url).toBe(`data:image/png;base64,${photoBytes.toString('base64')}`);
    expect(text).toBe(VISION_PROMPTS.textToBbox('red block', 40, 30));
    expect(text).toContain('which is 40x30 pixels');
  });

  it('TextToBbox with top1 false keeps boxes scoring over 50, clamped to the image; none → "No object found."', async () => {
    replies.push(
      '(20.4, 10, 29.5, 14.6), score 0.875\n[1, 2, 3, 4] score: 91%\n(0,0,100,100), score 40\n(-5, 3, 50, 2.5), score 77',
    );
    const tool = textToBboxTool({ client: client() });
    expect(await textOf(tool.run({ image: photo, text: 'red block', top1: 'false' }, ctx()))).toBe(
      '(20, 10, 30, 15), score 88\n(1, 2, 3, 4), score 91\n(0, 2, 40, 3), score 77',
    );
    replies.push('none');
    expect(await textOf(tool.run({ image: photo, text: 'cat' }, ctx()))).toBe('No object found.');
  });

  it('CountGivenObject answers the integer of the reply', async () => {
    const tool = countGivenObjectTool({ client: client() });
    replies.push('There are 12 apples.');
    expect(await textOf(tool.run({ image: photo, text: 'apples' }, ctx()))).toBe('12');
    expect(lastParts().text).toBe(
      'How many apples are there in this image? Answer with a single integer and nothing else.',
    );
    replies.push('I can see three.');
    expect(await textOf(tool.run({ image: photo, text: 'apples' }, ctx()))).toBe('3');
    replies.push('I am not sure.');
    await expect(tool.run({ image: photo, text: 'apples' }, ctx())).rejects.toThrow(
      `CountGivenObject: no count in the model's reply: "I am not sure."`,
    );
  });

  it('ImageDescription and MathOCR return the text; MathOCR strips fences and $ delimiters', async () => {
    replies.push('  A red block on a white background.\n');
    expect(await textOf(imageDescriptionTool({ client: client() }).run({ image: photo }, ctx()))).toBe(
      'A red block on a white background.',
    );
    expect(lastParts().text).toBe('Describe this image briefly, in one or two sentences.');
    replies.push('```latex\n$$\\frac{1}{2} + x^2$$\n```');
    expect(await textOf(mathOcrTool({ client: client() }).run({ image: photo }, ctx()))).toBe(
      '\\frac{1}{2} + x^2',
    );
    expect(lastParts().text).toBe(VISION_PROMPTS.mathOcr());
  });

  it('RegionAttributeDescription sends only the cropped region', async () => {
    replies.push('Red.');
    const tool = regionAttributeDescriptionTool({ client: client() });
    const out = await textOf(
      tool.run({ image: photo, bbox: '(20.9, 10, 30, 15)', attribute: 'color' }, ctx()),
    );
    expect(out).toBe('Red.');
    const { url, text } = lastParts();
    expect(text).toBe(
      'This image is a region cropped from a larger picture. Describe the color of the object in it. Answer briefly, in a few words or one sentence.',
    );
    expect(url.startsWith('data:image/png;base64,')).toBe(true);
    const crop = await Jimp.read(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64'));
    expect([crop.bitmap.width, crop.bitmap.height]).toEqual([10, 5]);
    // every pixel of the crop is the red block
    for (let x = 0; x < 10; x++)
      for (let y = 0; y < 5; y++) expect(crop.getPixelColor(x, y)).toBe(0xff0000ff);
    await expect(
      tool.run({ image: photo, bbox: '(50, 50, 60, 60)', attribute: 'color' }, ctx()),
    ).rejects.toThrow(
      'RegionAttributeDescription: bbox "(50, 50, 60, 60)" holds no pixel of the 40x30 image',
    );
    await expect(tool.run({ image: photo, bbox: 'left half', attribute: 'color' }, ctx())).rejects.toThrow(
      'RegionAttributeDescription: bbox "left half" is not (x1, y1, x2, y2)',
    );
  });

  it('an image outside the granted folders is refused alike, existing or not, and never sent to the model', async () => {
    const sent = server.requests.length;
    const elsewhere = mkdtempSync(join(tmpdir(), 'apiary-vision-elsewhere-'));
    try {
      writeFileSync(join(elsewhere, 'private.png'), photoBytes);
      for (const tool of visionTools({ client: client() }))
        for (const image of [join(elsewhere, 'private.png'), join(elsewhere, 'none.png')]) {
          const args = { image, text: 'cat', bbox: '(0, 0, 5, 5)', attribute: 'colour' };
          const err = (await tool.run(args, ctx()).catch((e: unknown) => e)) as ApiaryError;
          expect([err.code, err.message]).toEqual([
            'PERMISSION_DENIED',
            `${tool.name}: image "${image}" is outside the folders this tool may read (grant more with --allow-dir)`,
          ]);
        }
      expect(server.requests.length).toBe(sent);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('a missing or non-image file, HTTP 500 and a broken body are TOOL_FAILED with clear messages', async () => {
    const tool = imageDescriptionTool({ client: client() });
    const missing = join(dir, 'nope.png');
    const err = await tool.run({ image: missing }, ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiaryError);
    expect((err as ApiaryError).code).toBe('TOOL_FAILED');
    expect((err as ApiaryError).message).toBe(`ImageDescription: cannot read image ${missing}: no such file`);
    await expect(tool.run({ image: join(dir, 'notes.txt') }, ctx())).rejects.toThrow(
      `ImageDescription: ${join(dir, 'notes.txt')} is not a PNG, JPEG, GIF, WebP or BMP image`,
    );
    replies.push({ fault: 'http500' });
    const http = (await tool.run({ image: photo }, ctx()).catch((e: unknown) => e)) as ApiaryError;
    expect(http.code).toBe('TOOL_FAILED');
    expect(http.message).toMatch(
      /^ImageDescription: the vision model qwen-vl failed: .*internal error \(scripted\)/,
    );
    replies.push({ fault: 'invalid-json' });
    const broken = (await tool.run({ image: photo }, ctx()).catch((e: unknown) => e)) as ApiaryError;
    expect(broken.code).toBe('TOOL_FAILED');
    expect(broken.message).toMatch(/^ImageDescription: the vision model qwen-vl failed: /);
  });
});

describe('vision configuration', () => {
  it('unconfigured tools say which flags and variables to set', async () => {
    const tools = visionTools({ client: undefined });
    expect(tools.map((t) => t.name)).toEqual([
      'TextToBbox',
      'CountGivenObject',
      'ImageDescription',
      'RegionAttributeDescription',
      'MathOCR',
    ]);
    const hint =
      'set APIARY_VISION_BASE_URL and APIARY_VISION_MODEL (or --vision-base-url and --vision-model; key in APIARY_VISION_API_KEY) to an OpenAI-compatible chat endpoint serving a vision-language model';
    expect(tools[0]!.unavailable?.()).toBe(hint);
    await expect(
      toolHandler(tools[4]!, { outputDir: dir, readable: [dir] }).call(
        'MathOCR',
        { image: photo },
        {} as never,
      ),
    ).rejects.toThrow(`MathOCR is not available: ${hint}`);
  });

  it('visionToolsFromEnv builds working tools from APIARY_VISION_* variables', async () => {
    const tools = visionToolsFromEnv({ APIARY_VISION_BASE_URL: server.url, APIARY_VISION_MODEL: 'qwen-vl' });
    expect(tools.map((t) => t.unavailable?.())).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    replies.push('A block.');
    expect(await textOf(tools[2]!.run({ image: photo }, ctx()))).toBe('A block.');
    expect(lastParts().text).toBe(VISION_PROMPTS.imageDescription());
    expect(visionToolsFromEnv({})[0]!.unavailable?.()).toMatch(/^set APIARY_VISION_BASE_URL/);
  });

  it('reads the endpoint from flags before the environment; half a configuration is a usage error', () => {
    expect(modelEndpointFromEnv('vision', {})).toBeUndefined();
    expect(
      modelEndpointFromEnv(
        'vision',
        {
          APIARY_VISION_BASE_URL: 'http://env/v1/',
          APIARY_VISION_MODEL: 'env-model',
          APIARY_VISION_API_KEY: 'sk',
        },
        { model: 'flag-model' },
      ),
    ).toEqual({ baseURL: 'http://env/v1', model: 'flag-model', apiKey: 'sk' });
    expect(() => modelEndpointFromEnv('vision', { APIARY_VISION_MODEL: 'm' })).toThrow(
      'a vision model is set (m) but no endpoint: pass --vision-base-url or set APIARY_VISION_BASE_URL',
    );
  });
});
