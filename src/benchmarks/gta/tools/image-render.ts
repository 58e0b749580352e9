import { placeText } from './add-text.js';
import { boxLineWidth } from './draw-box.js';
import { type Box, toolError } from './image-args.js';
import { encodePng, fontFor, paintText, parseColour, readImage, strokeBox, textSize } from './image-draw.js';

/**
 * The pixel work of DrawBox and AddText: decode, draw, encode. Runs in a tool worker thread
 * (tool-threads.ts), where the call's time limit can stop it; the image's header was checked
 * before the bytes were sent (image-limits.ts).
 */

const RED = 0xff0000ff;

export interface DrawBoxTask {
  kind: 'draw-box';
  image: Uint8Array;
  /** The image's path, for error messages. */
  what: string;
  box: Box;
  annotation: string;
}

export interface AddTextTask {
  kind: 'add-text';
  image: Uint8Array;
  what: string;
  text: string;
  position: string;
  colour: string;
}

/** A red box on `box`, the annotation above its top-left corner (inside when there is no room); PNG bytes. */
export async function renderDrawBox(task: DrawBoxTask): Promise<Uint8Array> {
  const img = await readImage('DrawBox', task.image, task.what);
  const { width, height } = img.bitmap;
  const { box } = task;
  const line = boxLineWidth(width, height);
  strokeBox(img, box, RED, line);
  if (task.annotation) {
    const font = await fontFor(Math.max(8, Math.round(Math.min(width, height) / 12)));
    const size = textSize(font, task.annotation);
    const above = box.y1 - line - size.height;
    paintText(img, font, task.annotation, box.x1, above >= 0 ? above : box.y1 + line, RED);
  }
  return encodePng(img);
}

/** `text` at `position` in `colour`; PNG bytes. */
export async function renderAddText(task: AddTextTask): Promise<Uint8Array> {
  const colour = parseColour('AddText', task.colour);
  const img = await readImage('AddText', task.image, task.what);
  const { width, height } = img.bitmap;
  // Roughly a tenth of the image height, as a caption would be.
  const font = await fontFor(Math.max(8, Math.round(height / 10)));
  const at = placeText(task.position, { width, height }, textSize(font, task.text));
  if (!at)
    throw toolError(
      'AddText',
      `position must be "(x, y)" or two letters of l/m/r and t/m/b like "mt" (got "${task.position}")`,
    );
  paintText(img, font, task.text, at.x, at.y, colour);
  return encodePng(img);
}
