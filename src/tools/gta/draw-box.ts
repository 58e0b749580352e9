import { readFileSync } from 'node:fs';
import type { ContentPart } from '../../apps/index.js';
import { sha256Hex } from '../../shared/index.js';
import type { ExecutableTool } from '../tool.js';
import { imagePathArg, parseBbox, textArg } from './image-args.js';

const RED = 0xff0000ff;

/** Outline width grows with the image (2 px up to 400 px, then 1 px per 200 px) so boxes stay visible. */
export function boxLineWidth(width: number, height: number): number {
  return Math.max(2, Math.round(Math.max(width, height) / 200));
}

/**
 * GTA's DrawBox: a red box on `bbox` `(x1, y1, x2, y2)`; the optional `annotation` is written in
 * red just above the box's top-left corner (inside the box when there is no room above).
 */
export function drawBoxTool(): ExecutableTool {
  return {
    name: 'DrawBox',
    async run(args, ctx): Promise<ContentPart[]> {
      const { fontFor, paintText, readImage, strokeBox, textSize, writeImageResult } = await import(
        './image-draw.js'
      );
      const path = imagePathArg('DrawBox', args, ctx.readable);
      const box = parseBbox('DrawBox', textArg('DrawBox', args, 'bbox'));
      const annotation =
        args.annotation === undefined || args.annotation === null
          ? ''
          : textArg('DrawBox', args, 'annotation');
      const img = await readImage('DrawBox', path);
      const { width, height } = img.bitmap;
      const line = boxLineWidth(width, height);
      strokeBox(img, box, RED, line);
      if (annotation) {
        const font = await fontFor(Math.max(8, Math.round(Math.min(width, height) / 12)));
        const size = textSize(font, annotation);
        const above = box.y1 - line - size.height;
        paintText(img, font, annotation, box.x1, above >= 0 ? above : box.y1 + line, RED);
      }
      const input = sha256Hex(readFileSync(path));
      return [await writeImageResult(img, ctx.outputDir, 'DrawBox', [input, box, annotation])];
    },
  };
}
