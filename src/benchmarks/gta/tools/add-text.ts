import type { ContentPart } from '../../../apps/index.js';
import { sha256Hex } from '../../../shared/index.js';
import type { ExecutableTool } from '../../../tools/index.js';
import { imagePathArg, textArg } from './image-args.js';
import { limitedText, readCheckedImage } from './image-limits.js';
import { writeImageResult } from './image-result.js';
import { toolThreads } from './tool-threads.js';

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
    if (!Number.isFinite(x) || !Number.isFinite(y)) return undefined;
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

/**
 * GTA's AddText: `text` at `position` in `color` (a CSS colour name or `#rrggbb`, default red).
 * The image's header is checked here; decoding, drawing and encoding run on a tool worker thread,
 * where the call's time limit stops them (tool-threads.ts).
 */
export function addTextTool(): ExecutableTool {
  const threads = toolThreads();
  return {
    name: 'AddText',
    async run(args, ctx): Promise<ContentPart[]> {
      const path = imagePathArg('AddText', args, ctx.readable);
      const text = limitedText('AddText', 'text', textArg('AddText', args, 'text'));
      const position = textArg('AddText', args, 'position');
      const colour = textArg('AddText', args, 'color', 'red');
      const { bytes } = await readCheckedImage('AddText', path);
      const png = await threads.run(
        'AddText',
        { kind: 'add-text', image: bytes, what: path, text, position, colour },
        ctx.signal,
      );
      const input = sha256Hex(bytes);
      return [
        await writeImageResult(png as Uint8Array, ctx.outputDir, 'AddText', [input, text, position, colour]),
      ];
    },
    dispose: () => threads.dispose(),
  };
}
