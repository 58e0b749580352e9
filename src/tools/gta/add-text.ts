import { readFileSync } from 'node:fs';
import type { ContentPart } from '../../apps/index.js';
import { sha256Hex } from '../../shared/index.js';
import type { ExecutableTool } from '../tool.js';
import { imagePathArg, textArg, toolError } from './image-args.js';

/** Where the text goes: its top-left pixel. */
export interface TextPlacement {
  x: number;
  y: number;
}

const POINT = /^\s*\(\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*\)\s*$/;

/**
 * GTA's AddText positions: `(x, y)` is the text's left-bottom corner (fractions 0 < x, y < 1 are
 * proportions of the image, as AgentLego reads them), or two letters, one of l/m/r (left, middle,
 * right) and one of t/m/b (top, middle, bottom), like "mt" for middle-top (either order).
 * A margin of 1/20 of the image keeps edge positions off the border.
 */
export function placeText(
  position: string,
  image: { width: number; height: number },
  text: { width: number; height: number },
): TextPlacement | undefined {
  const { width: w, height: h } = image;
  const point = POINT.exec(position);
  if (point) {
    let [x, y] = [Number(point[1]), Number(point[2])];
    if (x > 0 && x < 1 && y > 0 && y < 1) [x, y] = [x * w, y * h];
    else if (x < 0 || y < 0) return undefined;
    return { x: Math.round(x), y: Math.round(y) - text.height };
  }
  const code = position.trim().toLowerCase();
  if (!/^[lmrtb]{2}$/.test(code)) return undefined;
  let [horizontal, vertical] = [code[0] as string, code[1] as string];
  if ('tb'.includes(horizontal) || 'lr'.includes(vertical)) [horizontal, vertical] = [vertical, horizontal];
  if (!'lmr'.includes(horizontal) || !'tmb'.includes(vertical)) return undefined;
  const margin = Math.floor(w / 20);
  const x = { l: margin, m: Math.floor((w - text.width) / 2), r: w - margin - text.width }[
    horizontal
  ] as number;
  const vMargin = Math.floor(h / 20);
  const y = { t: vMargin, m: Math.floor((h - text.height) / 2), b: h - vMargin - text.height }[
    vertical
  ] as number;
  return { x, y };
}

/** GTA's AddText: `text` at `position` in `color` (a CSS colour name or `#rrggbb`, default red). */
export function addTextTool(): ExecutableTool {
  return {
    name: 'AddText',
    async run(args, ctx): Promise<ContentPart[]> {
      const { fontFor, paintText, readImage, textSize, writeImageResult, parseColour } = await import(
        './image-draw.js'
      );
      const path = imagePathArg('AddText', args, ctx.readable);
      const text = textArg('AddText', args, 'text');
      const position = textArg('AddText', args, 'position');
      const colourName = textArg('AddText', args, 'color', 'red');
      const colour = parseColour('AddText', colourName);
      const img = await readImage('AddText', path);
      const { width, height } = img.bitmap;
      // Roughly a tenth of the image height, as a caption would be.
      const font = await fontFor(Math.max(8, Math.round(height / 10)));
      const at = placeText(position, { width, height }, textSize(font, text));
      if (!at)
        throw toolError(
          'AddText',
          `position must be "(x, y)" or two letters of l/m/r and t/m/b like "mt" (got "${position}")`,
        );
      paintText(img, font, text, at.x, at.y, colour);
      const input = sha256Hex(readFileSync(path));
      return [await writeImageResult(img, ctx.outputDir, 'AddText', [input, text, position, colourName])];
    },
  };
}
