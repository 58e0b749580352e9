import { Jimp } from 'jimp';
import { ApiaryError } from '../../../shared/index.js';
import type { ExecutableTool, ToolRunContext } from '../../../tools/index.js';
import { endpointHint, type ModelEndpointFlags, modelEndpointFromEnv } from '../../../tools/index.js';
import {
  createVisionClient,
  type ImageBytes,
  readImageArg,
  textArg,
  type VisionClient,
} from './vision-client.js';
import { formatBoxes, parseBboxArg, parseBoxes, parseCount, parseLatex } from './vision-parse.js';

/**
 * GTA's five perception tools on a vision-language model: TextToBbox, CountGivenObject,
 * ImageDescription, RegionAttributeDescription and MathOCR. Each asks the model for its answer in
 * the format GTA's gold steps hold and parses the reply defensively. Without a client (nothing
 * configured) each tool is unavailable and says which flags or variables to set.
 */
export interface VisionToolOptions {
  /** The model to ask; undefined: the tool is unavailable. */
  client: VisionClient | undefined;
}

/** The prompts, exported so tests and docs show exactly what the model is asked. */
export const VISION_PROMPTS = {
  textToBbox: (text: string, width: number, height: number) =>
    `Find every "${text}" in this image, which is ${width}x${height} pixels. ` +
    'Answer with one line per object, best match first, in exactly this format:\n' +
    '(x1, y1, x2, y2), score S\n' +
    'where (x1, y1) is the top-left and (x2, y2) the bottom-right corner in pixels and S is your ' +
    'confidence from 0 to 100. If there is no such object, answer: none',
  countGivenObject: (text: string) =>
    `How many ${text} are there in this image? Answer with a single integer and nothing else.`,
  imageDescription: () => 'Describe this image briefly, in one or two sentences.',
  regionAttribute: (attribute: string) =>
    `This image is a region cropped from a larger picture. Describe the ${attribute} of the object in it. ` +
    'Answer briefly, in a few words or one sentence.',
  mathOcr: () =>
    'Transcribe the math expression in this image as LaTeX. Answer with the LaTeX only: no $ signs, ' +
    'no code fences, no explanation.',
};

function visionTool(
  name: string,
  opts: VisionToolOptions,
  run: (client: VisionClient, args: Record<string, unknown>, ctx: ToolRunContext) => Promise<string>,
): ExecutableTool {
  return {
    name,
    unavailable: () => (opts.client ? undefined : endpointHint('vision')),
    async run(args, ctx) {
      if (!opts.client)
        throw new ApiaryError('TOOL_FAILED', `${name} is not available: ${endpointHint('vision')}`);
      return [{ type: 'text', text: await run(opts.client, args, ctx) }];
    },
  };
}

async function decode(tool: string, image: ImageBytes) {
  try {
    return await Jimp.read(Buffer.from(image.data));
  } catch (error) {
    throw new ApiaryError('TOOL_FAILED', `${tool}: cannot decode the image: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The `top1` flag: a bool in toolmeta; models also send `"false"`, `0`, `1`. */
function top1Arg(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return !['false', '0', 'no', ''].includes(value.trim().toLowerCase());
  return Boolean(value);
}

/** TextToBbox(image, text, top1 = true) → `(x1, y1, x2, y2), score S` lines, or `No object found.` */
export function textToBboxTool(opts: VisionToolOptions): ExecutableTool {
  return visionTool('TextToBbox', opts, async (client, args, { readable, signal }) => {
    const image = await readImageArg('TextToBbox', args.image, readable);
    const text = textArg('TextToBbox', args, 'text');
    const { width, height } = (await decode('TextToBbox', image)).bitmap;
    const reply = await client.ask(
      'TextToBbox',
      VISION_PROMPTS.textToBbox(text, width, height),
      image,
      signal,
    );
    return formatBoxes(parseBoxes(reply, { width, height }), top1Arg(args.top1));
  });
}

/** CountGivenObject(image, text) → an integer, as text. */
export function countGivenObjectTool(opts: VisionToolOptions): ExecutableTool {
  return visionTool('CountGivenObject', opts, async (client, args, { readable, signal }) => {
    const image = await readImageArg('CountGivenObject', args.image, readable);
    const text = textArg('CountGivenObject', args, 'text');
    const reply = await client.ask('CountGivenObject', VISION_PROMPTS.countGivenObject(text), image, signal);
    const n = parseCount(reply);
    if (n === undefined)
      throw new ApiaryError(
        'TOOL_FAILED',
        `CountGivenObject: no count in the model's reply: ${JSON.stringify(reply.slice(0, 200))}`,
      );
    return String(n);
  });
}

/** ImageDescription(image) → a short description. */
export function imageDescriptionTool(opts: VisionToolOptions): ExecutableTool {
  return visionTool('ImageDescription', opts, async (client, args, { readable, signal }) => {
    const image = await readImageArg('ImageDescription', args.image, readable);
    return (await client.ask('ImageDescription', VISION_PROMPTS.imageDescription(), image, signal)).trim();
  });
}

/**
 * RegionAttributeDescription(image, bbox, attribute): the box region is cropped first (pixels
 * x1 ≤ x < x2, y1 ≤ y < y2, clipped to the image as numpy slicing does), then described.
 */
export function regionAttributeDescriptionTool(opts: VisionToolOptions): ExecutableTool {
  const name = 'RegionAttributeDescription';
  return visionTool(name, opts, async (client, args, { readable, signal }) => {
    const image = await readImageArg(name, args.image, readable);
    const bboxText = textArg(name, args, 'bbox');
    const attribute = textArg(name, args, 'attribute');
    const bbox = parseBboxArg(bboxText);
    if (!bbox)
      throw new ApiaryError(
        'TOOL_FAILED',
        `${name}: bbox ${JSON.stringify(bboxText)} is not (x1, y1, x2, y2)`,
      );
    const picture = await decode(name, image);
    const { width, height } = picture.bitmap;
    const clip = (v: number, max: number) => Math.min(Math.max(v, 0), max);
    const [x1, y1, x2, y2] = [
      clip(bbox[0], width),
      clip(bbox[1], height),
      clip(bbox[2], width),
      clip(bbox[3], height),
    ];
    if (x2 <= x1 || y2 <= y1)
      throw new ApiaryError(
        'TOOL_FAILED',
        `${name}: bbox ${JSON.stringify(bboxText)} holds no pixel of the ${width}x${height} image`,
      );
    picture.crop({ x: x1, y: y1, w: x2 - x1, h: y2 - y1 });
    const region: ImageBytes = {
      data: new Uint8Array(await picture.getBuffer('image/png')),
      mediaType: 'image/png',
    };
    return (await client.ask(name, VISION_PROMPTS.regionAttribute(attribute), region, signal)).trim();
  });
}

/** MathOCR(image) → the LaTeX of the expression. */
export function mathOcrTool(opts: VisionToolOptions): ExecutableTool {
  return visionTool('MathOCR', opts, async (client, args, { readable, signal }) => {
    const image = await readImageArg('MathOCR', args.image, readable);
    return parseLatex(await client.ask('MathOCR', VISION_PROMPTS.mathOcr(), image, signal));
  });
}

/** The five vision tools over one client. */
export function visionTools(opts: VisionToolOptions): ExecutableTool[] {
  return [
    textToBboxTool(opts),
    countGivenObjectTool(opts),
    imageDescriptionTool(opts),
    regionAttributeDescriptionTool(opts),
    mathOcrTool(opts),
  ];
}

/**
 * The five vision tools on the endpoint that flags or `APIARY_VISION_*` variables configure;
 * unavailable (with the hint) when nothing is configured.
 */
export function visionToolsFromEnv(
  env: Record<string, string | undefined>,
  flags: ModelEndpointFlags = {},
): ExecutableTool[] {
  const endpoint = modelEndpointFromEnv('vision', env, flags);
  return visionTools({ client: endpoint ? createVisionClient({ endpoint }) : undefined });
}
