import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { intToRGBA, Jimp } from 'jimp';
import { afterAll, describe, expect, it } from 'vitest';
import { addTextTool, placeText } from './add-text.js';
import { boxLineWidth, drawBoxTool } from './draw-box.js';
import { parseBbox } from './image-args.js';
import { parseColour } from './image-draw.js';

const dir = mkdtempSync(join(tmpdir(), 'apiary-image-tools-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WHITE = 0xffffffff;

async function whiteImage(name: string, width: number, height: number): Promise<string> {
  const path = join(dir, name);
  await new Jimp({ width, height, color: WHITE }).write(path as `${string}.png`);
  return path;
}

async function pixel(path: string, x: number, y: number) {
  const img = await Jimp.read(path);
  const { r, g, b } = intToRGBA(img.getPixelColor(x, y));
  return [r, g, b];
}

/** Pixels that are not white inside a region, as a count. */
async function inked(path: string, x0: number, y0: number, x1: number, y1: number): Promise<number> {
  const img = await Jimp.read(path);
  let n = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (img.getPixelColor(x, y) !== WHITE) n++;
  return n;
}

describe('argument parsing', () => {
  it('reads a bbox in the tool format, with or without brackets, and refuses reversed corners', () => {
    expect(parseBbox('DrawBox', '(3, 4, 12, 8)')).toEqual({ x1: 3, y1: 4, x2: 12, y2: 8 });
    expect(parseBbox('DrawBox', '[3.4,4.6,12,8]')).toEqual({ x1: 3, y1: 5, x2: 12, y2: 8 });
    expect(() => parseBbox('DrawBox', '[12,8,3.4,4.6]')).toThrow(
      'DrawBox: bbox "[12,8,3.4,4.6]" is reversed: x2 must be ≥ x1 and y2 ≥ y1 (corners (x1, y1) top-left, (x2, y2) bottom-right)',
    );
    expect(() => parseBbox('DrawBox', '(3, 8, 12, 4)')).toThrow('DrawBox: bbox "(3, 8, 12, 4)" is reversed');
    // a zero-width box (one line) is not reversed
    expect(parseBbox('DrawBox', '(3, 4, 3, 8)')).toEqual({ x1: 3, y1: 4, x2: 3, y2: 8 });
    expect(() => parseBbox('DrawBox', '(3, 4, 12)')).toThrow(
      'DrawBox: bbox must be "(x1, y1, x2, y2)" (got "(3, 4, 12)")',
    );
  });
  it('reads CSS colours and refuses unknown names', () => {
    expect(parseColour('AddText', 'blue')).toBe(0x0000ffff);
    expect(parseColour('AddText', '#00ff00')).toBe(0x00ff00ff);
    expect(parseColour('AddText', 'black')).toBe(0x000000ff);
    expect(() => parseColour('AddText', 'blurple')).toThrow('AddText: unknown colour "blurple"');
  });
  it('places text at a left-bottom corner, a fraction, or a two-letter position', () => {
    const image = { width: 200, height: 100 };
    const text = { width: 40, height: 10 };
    expect(placeText('(10, 50)', image, text)).toEqual({ x: 10, y: 40 });
    expect(placeText('(0.5, 0.5)', image, text)).toEqual({ x: 100, y: 40 });
    // margin 200/20 = 10 horizontally, 100/20 = 5 vertically
    expect(placeText('mt', image, text)).toEqual({ x: 80, y: 5 });
    expect(placeText('lb', image, text)).toEqual({ x: 10, y: 85 });
    expect(placeText('rm', image, text)).toEqual({ x: 150, y: 45 });
    expect(placeText('tm', image, text)).toEqual({ x: 80, y: 5 });
    expect(placeText('middle', image, text)).toBeUndefined();
    expect(placeText('(-1, 5)', image, text)).toBeUndefined();
  });
});

describe('DrawBox', () => {
  it('draws a red outline on the box and leaves inside and outside untouched', async () => {
    const image = await whiteImage('box-in.png', 40, 30);
    const out = join(dir, 'out-box');
    const [part] = await drawBoxTool().run(
      { image, bbox: '(5, 5, 20, 15)' },
      { outputDir: out, readable: [dir] },
    );
    expect(part).toMatchObject({ type: 'image', mediaType: 'image/png' });
    const path = (part as { path: string }).path;
    expect(path.startsWith(out)).toBe(true);
    expect(boxLineWidth(40, 30)).toBe(2);
    expect(await pixel(path, 5, 5)).toEqual([255, 0, 0]); // corner
    expect(await pixel(path, 12, 15)).toEqual([255, 0, 0]); // bottom edge
    expect(await pixel(path, 4, 10)).toEqual([255, 0, 0]); // second line, outside the edge
    expect(await pixel(path, 12, 10)).toEqual([255, 255, 255]); // inside
    expect(await pixel(path, 3, 10)).toEqual([255, 255, 255]); // beyond the outline
    expect(await pixel(path, 30, 25)).toEqual([255, 255, 255]);
    // the input image is unchanged
    expect(await pixel(image, 5, 5)).toEqual([255, 255, 255]);
  });

  it('writes the annotation above the box', async () => {
    const image = await whiteImage('box-note.png', 200, 120);
    const [part] = await drawBoxTool().run(
      { image, bbox: '(50, 60, 150, 100)', annotation: 'STOP' },
      { outputDir: join(dir, 'out-note'), readable: [dir] },
    );
    const path = (part as { path: string }).path;
    expect(await inked(path, 50, 40, 150, 58)).toBeGreaterThan(20); // text above the box
    expect(await inked(path, 53, 63, 148, 98)).toBe(0); // nothing inside it
  });

  it('reports a missing image and a bad bbox as tool errors', async () => {
    const tool = drawBoxTool();
    await expect(
      tool.run({ image: join(dir, 'nope.png'), bbox: '(1, 1, 2, 2)' }, { outputDir: dir, readable: [dir] }),
    ).rejects.toThrow(`DrawBox: image file not found: ${join(dir, 'nope.png')}`);
    const notImage = join(dir, 'not-image.png');
    writeFileSync(notImage, 'hello');
    await expect(
      tool.run({ image: notImage, bbox: '(1, 1, 2, 2)' }, { outputDir: dir, readable: [dir] }),
    ).rejects.toThrow(`DrawBox: cannot read image ${notImage}`);
  });

  it('refuses a box entirely off the image, naming the box and the image size; draws one partly on it', async () => {
    const image = await whiteImage('box-off.png', 40, 30);
    const tool = drawBoxTool();
    const ctx = { outputDir: join(dir, 'out-off'), readable: [dir] };
    for (const [bbox, named] of [
      ['(50, 5, 60, 15)', '(50, 5, 60, 15)'], // right of it (x1 > 39)
      ['(5, 30, 20, 40)', '(5, 30, 20, 40)'], // below it (y1 > 29)
      ['(-20, 5, -1, 15)', '(-20, 5, -1, 15)'], // left of it
      ['[5, -9.6, 20, -0.6]', '(5, -10, 20, -1)'], // above it (numbers rounded to pixels)
    ] as const) {
      const error = await tool.run({ image, bbox }, ctx).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'TOOL_FAILED',
        message: `DrawBox: bbox ${named} lies entirely off the 40×30 image`,
      });
    }
    const [part] = await tool.run({ image, bbox: '(30, 20, 60, 50)' }, ctx);
    expect(await pixel((part as { path: string }).path, 30, 25)).toEqual([255, 0, 0]); // clipped: left edge shows
  });
});

describe('AddText', () => {
  it('writes coloured text at middle-top and nowhere else', async () => {
    const image = await whiteImage('text-in.png', 200, 160);
    const [part] = await addTextTool().run(
      { image, text: 'Happy', position: 'mt', color: 'blue' },
      { outputDir: join(dir, 'out-text'), readable: [dir] },
    );
    const path = (part as { path: string }).path;
    // font: 16 px (160/10); top margin 160/20 = 8
    expect(await inked(path, 0, 0, 200, 8)).toBe(0);
    expect(await inked(path, 40, 8, 160, 30)).toBeGreaterThan(30);
    expect(await inked(path, 0, 40, 200, 160)).toBe(0);
    // the text is blue: find its darkest pixel
    const img = await Jimp.read(path);
    let blue = 0;
    for (let y = 8; y < 30; y++)
      for (let x = 40; x < 160; x++) {
        const { r, g, b } = intToRGBA(img.getPixelColor(x, y));
        if (r === 0 && g === 0 && b === 255) blue++;
      }
    expect(blue).toBeGreaterThan(10);
  });

  it('defaults to red and places (x, y) as the left-bottom corner', async () => {
    const image = await whiteImage('text-xy.png', 200, 160);
    const [part] = await addTextTool().run(
      { image, text: 'X', position: '(100, 120)' },
      { outputDir: join(dir, 'out-xy'), readable: [dir] },
    );
    const path = (part as { path: string }).path;
    expect(await inked(path, 0, 0, 200, 100)).toBe(0);
    expect(await inked(path, 0, 121, 200, 160)).toBe(0);
    expect(await inked(path, 100, 100, 120, 121)).toBeGreaterThan(5);
    const img = await Jimp.read(path);
    const colours = new Set<string>();
    for (let y = 100; y < 121; y++)
      for (let x = 100; x < 120; x++) {
        const { r, g, b } = intToRGBA(img.getPixelColor(x, y));
        if (r === 255 && g === 0 && b === 0) colours.add('red');
      }
    expect(colours.has('red')).toBe(true);
  });

  it('refuses a position it cannot read', async () => {
    const image = await whiteImage('text-bad.png', 50, 50);
    await expect(
      addTextTool().run({ image, text: 'X', position: 'upper' }, { outputDir: dir, readable: [dir] }),
    ).rejects.toThrow(
      'AddText: position must be "(x, y)" or two letters of l/m/r and t/m/b like "mt" (got "upper")',
    );
  });
});

describe('the authored GTA fixtures', () => {
  const data = join(import.meta.dirname, '../__fixtures__/data');

  it('run every DrawBox and AddText call of the fixtures into images of the input size', async () => {
    const dataset = JSON.parse(readFileSync(join(data, 'dataset.json'), 'utf8')) as Record<
      string,
      {
        dialogs: Array<{
          tool_calls?: Array<{ function: { name: string; arguments: Record<string, string> } }>;
        }>;
      }
    >;
    const calls = Object.values(dataset).flatMap(({ dialogs }) =>
      dialogs.flatMap((d) => d.tool_calls?.map((c) => c.function) ?? []),
    );
    const drawing = calls.filter((c) => c.name === 'DrawBox' || c.name === 'AddText');
    expect(drawing.map((c) => c.name)).toEqual(['DrawBox', 'AddText', 'AddText']);
    const tools = { DrawBox: drawBoxTool(), AddText: addTextTool() };
    for (const call of drawing) {
      const args = { ...call.arguments, image: join(data, String(call.arguments.image)) };
      const [part] = await tools[call.name as keyof typeof tools].run(args, {
        outputDir: join(dir, 'fixtures'),
        readable: [data],
      });
      const out = await Jimp.read((part as { path: string }).path);
      expect([out.bitmap.width, out.bitmap.height]).toEqual([16, 12]);
      if (call.name === 'DrawBox')
        expect(intToRGBA(out.getPixelColor(3, 4))).toMatchObject({ r: 255, g: 0, b: 0 });
    }
  });
});
