import type { ContentPart } from '../../../apps/index.js';
import { sha256Hex } from '../../../shared/index.js';
import type { ExecutableTool } from '../../../tools/index.js';
import { boxOnImage, imagePathArg, parseBbox, textArg } from './image-args.js';
import { limitedText, readCheckedImage } from './image-limits.js';
import { writeImageResult } from './image-result.js';
import { toolThreads } from './tool-threads.js';

/** Outline width grows with the image (2 px up to 400 px, then 1 px per 200 px) so boxes stay visible. */
export function boxLineWidth(width: number, height: number): number {
  return Math.max(2, Math.round(Math.max(width, height) / 200));
}

/**
 * GTA's DrawBox: a red box on `bbox` `(x1, y1, x2, y2)`; the optional `annotation` is written in
 * red just above the box's top-left corner (inside the box when there is no room above). The
 * image's header is checked here; decoding, drawing and encoding run on a tool worker thread,
 * where the call's time limit stops them (tool-threads.ts).
 */
export function drawBoxTool(): ExecutableTool {
  const threads = toolThreads();
  return {
    name: 'DrawBox',
    async run(args, ctx): Promise<ContentPart[]> {
      const path = imagePathArg('DrawBox', args, ctx.readable);
      const box = parseBbox('DrawBox', textArg('DrawBox', args, 'bbox'));
      const annotation =
        args.annotation === undefined || args.annotation === null
          ? ''
          : limitedText('DrawBox', 'annotation', textArg('DrawBox', args, 'annotation'));
      const { bytes, header } = await readCheckedImage('DrawBox', path);
      boxOnImage('DrawBox', box, header.width, header.height);
      const png = await threads.run(
        'DrawBox',
        { kind: 'draw-box', image: bytes, what: path, box, annotation },
        ctx.signal,
      );
      const input = sha256Hex(bytes);
      return [await writeImageResult(png as Uint8Array, ctx.outputDir, 'DrawBox', [input, box, annotation])];
    },
    dispose: () => threads.dispose(),
  };
}
