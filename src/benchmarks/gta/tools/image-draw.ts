import { cssColorToHex, intToRGBA, Jimp, type JimpInstance, loadFont, measureText } from 'jimp';
import { SANS_8_WHITE, SANS_16_WHITE, SANS_32_WHITE, SANS_64_WHITE } from 'jimp/fonts';
import { type Box, toolError } from './image-args.js';

/**
 * Drawing for GTA's image tools with jimp, in the tools' worker threads (image-render.ts; jimp
 * takes a while to load, and most commands never draw). Internal to the tools domain: its
 * declarations name jimp types, which would pull jimp's own (partly untyped) dependencies into the
 * package's public types.
 */

/** Decodes image bytes (whose header the caller checked: see image-limits.ts); `what` names them in errors. */
export async function readImage(tool: string, bytes: Uint8Array, what: string): Promise<JimpInstance> {
  try {
    return (await Jimp.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) as JimpInstance;
  } catch (e) {
    throw toolError(tool, `cannot read image ${what}: ${(e as Error).message}`, e);
  }
}

/** A CSS colour (`red`, `#00ff00`, `rgb(1,2,3)`) as RGBA; jimp reads unknown names as black, so those are refused. */
export function parseColour(tool: string, name: string): number {
  const hex = cssColorToHex(name.trim());
  const black = /^(black|#0{3}|#0{6}|rgb\(\s*0\s*,\s*0\s*,\s*0\s*\))$/i.test(name.trim());
  if (hex === 0x000000ff && !black) throw toolError(tool, `unknown colour "${name}"`);
  return hex;
}

/**
 * Pixels of a box outline `width` wide, clipped to the image: only the visible part of each edge
 * is walked, so the work is bounded by the image, not by the box (a box of 10^12 pixels is cheap).
 */
export function strokeBox(img: JimpInstance, box: Box, colour: number, width: number): void {
  const { width: w, height: h } = img.bitmap;
  const row = (y: number, from: number, to: number) => {
    if (y < 0 || y >= h) return;
    for (let x = Math.max(0, from); x <= Math.min(w - 1, to); x++) img.setPixelColor(colour, x, y);
  };
  const column = (x: number, from: number, to: number) => {
    if (x < 0 || x >= w) return;
    for (let y = Math.max(0, from); y <= Math.min(h - 1, to); y++) img.setPixelColor(colour, x, y);
  };
  for (let t = 0; t < width; t++) {
    row(box.y1 - t, box.x1 - t, box.x2 + t);
    row(box.y2 + t, box.x1 - t, box.x2 + t);
    column(box.x1 - t, box.y1 - t, box.y2 + t);
    column(box.x2 + t, box.y1 - t, box.y2 + t);
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
  const { width: w, height: h, data } = img.bitmap;
  // Text wholly outside the image draws nothing: no layer is made for it.
  if (x >= w || y >= h || x + size.width <= 0 || y + size.height <= 0) return;
  const layer = new Jimp({ width: Math.max(1, size.width), height: Math.max(1, size.height), color: 0 });
  layer.print({ font, x: 0, y: 0, text });
  const { r, g, b } = intToRGBA(colour);
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

/** The drawn image as PNG bytes. */
export async function encodePng(img: JimpInstance): Promise<Uint8Array> {
  return new Uint8Array(await img.getBuffer('image/png'));
}
