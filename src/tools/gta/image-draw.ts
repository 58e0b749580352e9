import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cssColorToHex, intToRGBA, Jimp, type JimpInstance, loadFont, measureText } from 'jimp';
import { SANS_8_WHITE, SANS_16_WHITE, SANS_32_WHITE, SANS_64_WHITE } from 'jimp/fonts';
import type { ContentPart } from '../../apps/index.js';
import { type Box, toolError } from './image-args.js';

/**
 * Drawing for GTA's image tools with jimp. The tools import this module on their first run (jimp
 * takes a while to load, and most commands never draw). Internal to the tools domain: its
 * declarations name jimp types, which would pull jimp's own (partly untyped) dependencies into the
 * package's public types.
 */

export async function readImage(tool: string, path: string): Promise<JimpInstance> {
  try {
    return (await Jimp.read(path)) as JimpInstance;
  } catch (e) {
    throw toolError(tool, `cannot read image ${path}: ${(e as Error).message}`, e);
  }
}

/** A CSS colour (`red`, `#00ff00`, `rgb(1,2,3)`) as RGBA; jimp reads unknown names as black, so those are refused. */
export function parseColour(tool: string, name: string): number {
  const hex = cssColorToHex(name.trim());
  const black = /^(black|#0{3}|#0{6}|rgb\(\s*0\s*,\s*0\s*,\s*0\s*\))$/i.test(name.trim());
  if (hex === 0x000000ff && !black) throw toolError(tool, `unknown colour "${name}"`);
  return hex;
}

/** Pixels of a box outline `width` wide, clipped to the image. */
export function strokeBox(img: JimpInstance, box: Box, colour: number, width: number): void {
  const { width: w, height: h } = img.bitmap;
  const paint = (x: number, y: number) => {
    if (x >= 0 && y >= 0 && x < w && y < h) img.setPixelColor(colour, x, y);
  };
  for (let t = 0; t < width; t++) {
    for (let x = box.x1 - t; x <= box.x2 + t; x++) {
      paint(x, box.y1 - t);
      paint(x, box.y2 + t);
    }
    for (let y = box.y1 - t; y <= box.y2 + t; y++) {
      paint(box.x1 - t, y);
      paint(box.x2 + t, y);
    }
  }
}

const FONTS = [
  { size: 8, path: SANS_8_WHITE },
  { size: 16, path: SANS_16_WHITE },
  { size: 32, path: SANS_32_WHITE },
  { size: 64, path: SANS_64_WHITE },
] as const;
type Font = Awaited<ReturnType<typeof loadFont>>;
const fontCache = new Map<number, Promise<Font>>();

/** The largest bundled font no taller than `px` (at least the 8 px one); loaded once. */
export function fontFor(px: number): Promise<Font> {
  const choice = [...FONTS].reverse().find((f) => f.size <= px) ?? FONTS[0];
  let font = fontCache.get(choice.size);
  if (!font) {
    font = loadFont(choice.path);
    fontCache.set(choice.size, font);
  }
  return font;
}

export function textSize(font: Font, text: string): { width: number; height: number } {
  return { width: measureText(font, text), height: font.common.lineHeight };
}

/**
 * Prints `text` with its top-left corner at (x, y) in `colour`. Jimp's bitmap fonts are white;
 * the glyphs are drawn on a transparent layer and their alpha blends the colour into the image.
 */
export function paintText(
  img: JimpInstance,
  font: Font,
  text: string,
  x: number,
  y: number,
  colour: number,
): void {
  const size = textSize(font, text);
  const layer = new Jimp({ width: Math.max(1, size.width), height: Math.max(1, size.height), color: 0 });
  layer.print({ font, x: 0, y: 0, text });
  const { r, g, b } = intToRGBA(colour);
  const { width: w, height: h, data } = img.bitmap;
  const src = layer.bitmap.data;
  for (let ly = 0; ly < layer.bitmap.height; ly++)
    for (let lx = 0; lx < layer.bitmap.width; lx++) {
      const a = (src[(ly * layer.bitmap.width + lx) * 4 + 3] as number) / 255;
      const [px, py] = [x + lx, y + ly];
      if (a === 0 || px < 0 || py < 0 || px >= w || py >= h) continue;
      const i = (py * w + px) * 4;
      data[i] = Math.round(r * a + (data[i] as number) * (1 - a));
      data[i + 1] = Math.round(g * a + (data[i + 1] as number) * (1 - a));
      data[i + 2] = Math.round(b * a + (data[i + 2] as number) * (1 - a));
      data[i + 3] = Math.max(data[i + 3] as number, Math.round(a * 255));
    }
}

/**
 * Writes the drawn image as PNG into the call's output folder. The name is derived from the
 * tool, the input image and the arguments, so the same call writes the same file.
 */
export async function writeImageResult(
  img: JimpInstance,
  outputDir: string,
  tool: string,
  key: unknown,
): Promise<ContentPart> {
  mkdirSync(outputDir, { recursive: true });
  const id = createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16);
  const path = join(outputDir, `${tool.toLowerCase()}-${id}.png`);
  await img.write(path as `${string}.png`);
  return { type: 'image', path, mediaType: 'image/png' };
}
