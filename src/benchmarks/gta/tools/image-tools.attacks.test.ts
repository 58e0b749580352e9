import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { intToRGBA, Jimp } from 'jimp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexCatalog, loadCatalog } from '../../../catalog/index.js';
import { appRegistry, dispatchCall } from '../../../exec/index.js';
import { toolHandler } from '../../../tools/tool.js';
import { registerBuiltinPlugins } from '../../builtin.js';
import { blackPng, greyPng } from './__fixtures__/png.js';
import { addTextTool } from './add-text.js';
import { drawBoxTool } from './draw-box.js';
import { checkImageHeader, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, MAX_TEXT_CHARS } from './image-limits.js';
import { ocrTool } from './ocr.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

/**
 * Issue 24, row 9: DrawBox on a 64×64 image with a box of 10^12 pixels ran for over 60 s; on a
 * 48 KB PNG declaring 20000×20000 pixels it decoded 3.2 GB for 147 s; both on the main thread,
 * where the call's time limit could not fire. Each attack goes through dispatchCall.
 */

const dir = mkdtempSync(join(tmpdir(), 'apiary-image-attacks-'));
const out = join(dir, 'out');
const drawBox = drawBoxTool();
const addText = addTextTool();
const ocr = ocrTool();
const catalog = indexCatalog(loadCatalog('gta'));
const apps = appRegistry(
  [drawBox, addText, ocr].map((tool) => toolHandler(tool, { outputDir: out, readable: [dir] })),
);
const call = (tool: string, args: Record<string, unknown>, timeoutMs = 10_000) =>
  dispatchCall({ app: tool, api: tool, args }, { catalog, apps, timeoutMs });

let small: string;
let bomb: string;
let big: string;
let noise: string;
beforeAll(async () => {
  small = join(dir, 'small.png');
  await new Jimp({ width: 64, height: 64, color: 0xffffffff }).write(small as `${string}.png`);
  bomb = join(dir, 'bomb.png');
  writeFileSync(bomb, blackPng(20_000, 20_000));
  big = join(dir, 'big.png'); // 36 MP: within the limit, and seconds of decoding and encoding
  writeFileSync(big, blackPng(6000, 6000));
  noise = join(dir, 'noise.png');
  writeFileSync(
    noise,
    greyPng(1000, 1000, (row) => randomFillSync(row)),
  );
});
afterAll(async () => {
  await Promise.all([drawBox.dispose?.(), addText.dispose?.(), ocr.dispose()]);
  rmSync(dir, { recursive: true, force: true });
});

/** Counts the ticks of a 10 ms timer on this thread while `work` runs. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  const t0 = performance.now();
  try {
    return { value: await work(), ticks, ms: performance.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

describe('image tool attacks (issue 24, row 9)', () => {
  it('limits: 40 megapixels, 64 MiB files, 1000 characters of text', () => {
    expect([MAX_IMAGE_PIXELS, MAX_IMAGE_BYTES, MAX_TEXT_CHARS]).toEqual([40_000_000, 67_108_864, 1000]);
  });

  it('refuses a 20000×20000 PNG bomb from its header in milliseconds, before decoding', async () => {
    expect(statSync(bomb).size).toBeLessThan(60_000);
    for (const [tool, args] of [
      ['DrawBox', { image: bomb, bbox: '(1, 1, 5, 5)' }],
      ['AddText', { image: bomb, text: 'hi', position: 'mt' }],
      ['OCR', { image: bomb }],
    ] as const) {
      const outcome = await call(tool, args);
      expect(outcome).toMatchObject({
        ok: false,
        error: {
          code: 'TOOL_FAILED',
          message: `${tool}: image ${bomb} is 20000×20000 (400000000 pixels); the limit is 40000000 pixels`,
        },
      });
      expect(outcome.durationMs).toBeLessThan(500);
    }
  });

  it('the shared header check reads sizes without decoding and refuses what is not an image', () => {
    expect(checkImageHeader(blackPng(300, 200), 'Plot', 'plot.png')).toEqual({
      width: 300,
      height: 200,
      type: 'png',
    });
    expect(() => checkImageHeader(Buffer.from('hello'), 'Plot', 'x.png')).toThrow(
      'Plot: cannot read image x.png: unsupported file type: undefined',
    );
  });

  it('refuses an image file over 64 MiB without reading past the limit', async () => {
    const huge = join(dir, 'huge.png');
    writeFileSync(huge, blackPng(10, 10));
    truncateSync(huge, MAX_IMAGE_BYTES + 10); // sparse: no disk used
    const outcome = await call('DrawBox', { image: huge, bbox: '(1, 1, 5, 5)' });
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'TOOL_FAILED',
        message: `DrawBox: image ${huge} is over 67108864 bytes (the limit for an image file)`,
      },
    });
  });

  it('clips a box of 10^12 pixels to a 64×64 image: quick, and only the visible edges are drawn', async () => {
    const outcome = await call('DrawBox', { image: small, bbox: '(0, 0, 1000000000000, 1000000000000)' });
    expect(outcome.ok).toBe(true);
    expect(outcome.durationMs).toBeLessThan(3000);
    const path = outcome.ok ? (outcome.content[0] as { path: string }).path : '';
    const img = await Jimp.read(path);
    const rgb = (x: number, y: number) => {
      const { r, g, b } = intToRGBA(img.getPixelColor(x, y));
      return [r, g, b];
    };
    // the top and left edges are red (the outline grows outwards: one of its 2 px is off the
    // image); the right and bottom edges lie outside the image
    expect([rgb(0, 0), rgb(63, 0), rgb(0, 63)]).toEqual([
      [255, 0, 0],
      [255, 0, 0],
      [255, 0, 0],
    ]);
    expect([rgb(63, 63), rgb(32, 32), rgb(1, 1)]).toEqual([
      [255, 255, 255],
      [255, 255, 255],
      [255, 255, 255],
    ]);
  });

  it('refuses numbers too large for a float, and a bbox text too long to be four numbers', async () => {
    const huge = '9'.repeat(400);
    expect(await call('DrawBox', { image: small, bbox: `(0, 0, ${huge}, 5)` })).toMatchObject({
      ok: false,
      error: {
        code: 'TOOL_FAILED',
        message: `DrawBox: bbox numbers must be finite (got "(0, 0, ${huge}, 5)")`,
      },
    });
    const spaces = await call('DrawBox', { image: small, bbox: `${' '.repeat(200_000)}x` });
    expect(spaces).toMatchObject({
      ok: false,
      error: {
        code: 'TOOL_FAILED',
        message: 'DrawBox: bbox must be "(x1, y1, x2, y2)" (got 200001 characters)',
      },
    });
    expect(spaces.durationMs).toBeLessThan(500);
    const farText = await call('AddText', { image: small, text: 'far', position: `(${huge}, 5)` });
    expect(farText).toMatchObject({
      ok: false,
      error: { code: 'TOOL_FAILED', message: expect.stringContaining('AddText: position must be "(x, y)"') },
    });
  });

  it('refuses text of a million characters before drawing anything', async () => {
    const text = 'W'.repeat(1_000_000);
    for (const [tool, args, name] of [
      ['DrawBox', { image: small, bbox: '(1, 1, 5, 5)', annotation: text }, 'annotation'],
      ['AddText', { image: small, text, position: 'mt' }, 'text'],
    ] as const) {
      const outcome = await call(tool, args);
      expect(outcome).toMatchObject({
        ok: false,
        error: {
          code: 'TOOL_FAILED',
          message: `${tool}: "${name}" is 1000000 characters long; the limit is 1000`,
        },
      });
      expect(outcome.durationMs).toBeLessThan(500);
    }
  });

  it("a slow image is stopped at the call's time limit while this thread goes on", async () => {
    const {
      value: outcome,
      ticks,
      ms,
    } = await ticksDuring(() => call('DrawBox', { image: big, bbox: '(10, 10, 5000, 5000)' }, 500));
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', message: 'no answer within 500 ms' },
    });
    expect(ms).toBeLessThan(1000);
    expect(ticks).toBeGreaterThan(20);
    // the pool replaced the ended thread
    expect((await call('DrawBox', { image: small, bbox: '(1, 1, 5, 5)' })).ok).toBe(true);
  });

  it('OCR stopped at the time limit ends its tesseract worker; the next call starts a new one', async () => {
    expect((await call('OCR', { image: small })).ok).toBe(true); // a warm worker
    // 1000×1000 random pixels: about 12 s of layout analysis here
    const { value: outcome, ticks } = await ticksDuring(() => call('OCR', { image: noise }, 1000));
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', message: 'no answer within 1000 ms' },
    });
    expect(ticks).toBeGreaterThan(40);
    // a new worker answers within its start-up time; the old one would still be on the noise
    const next = await call('OCR', { image: small });
    expect(next).toMatchObject({ ok: true, content: [{ type: 'text', text: '' }] });
    expect(next.durationMs).toBeLessThan(5000);
  });
});
