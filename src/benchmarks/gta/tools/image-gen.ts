import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateImage } from 'ai';
import { Jimp } from 'jimp';
import type { ContentPart } from '../../../apps/index.js';
import { ApiaryError, sha256Hex } from '../../../shared/index.js';
import type { ExecutableTool, ToolRunContext } from '../../../tools/index.js';
import {
  endpointHint,
  type ModelEndpoint,
  type ModelEndpointFlags,
  modelEndpointFromEnv,
} from '../../../tools/index.js';
import { type ImageBytes, readImageArg, sniffImageType, textArg } from './vision-client.js';

/**
 * GTA's creativity tools on an OpenAI-compatible images endpoint through the AI SDK's image model
 * (`@ai-sdk/openai-compatible`): TextToImage posts to `/images/generations`, ImageStylization to
 * `/images/edits` (multipart, the input image as PNG). The image returned is saved as a PNG in the
 * call's `outputDir` and returned as an image content part.
 */
export interface ImageGenToolOptions {
  /** The images endpoint; undefined: the tools are unavailable and say what to configure. */
  endpoint: ModelEndpoint | undefined;
  /** `size` sent with each request, e.g. `512x512` (default: left to the server). */
  size?: `${number}x${number}`;
  /** Retries of a failed request (default 1; the SDK backs off between them). */
  maxRetries?: number;
  /** Per-call timeout (default 300 s: generation is slow). */
  timeoutMs?: number;
}

/** AgentLego's TextToImage adds this to the keywords (its `a_prompt`). */
const TEXT_TO_IMAGE_SUFFIX = 'best quality, extremely detailed';

async function toPng(tool: string, image: ImageBytes): Promise<Uint8Array> {
  if (image.mediaType === 'image/png') return image.data;
  try {
    const decoded = await Jimp.read(Buffer.from(image.data));
    return new Uint8Array(await decoded.getBuffer('image/png'));
  } catch (error) {
    throw new ApiaryError('TOOL_FAILED', `${tool}: cannot convert the ${image.mediaType} image to PNG`, {
      cause: error,
    });
  }
}

/** Saves the image as `<tool>-<sha256 prefix>.png` (same picture, same name: replays stay stable). */
async function savePng(tool: string, data: Uint8Array, ctx: ToolRunContext): Promise<ContentPart[]> {
  const mediaType = sniffImageType(data);
  if (!mediaType)
    throw new ApiaryError('TOOL_FAILED', `${tool}: the endpoint answered data that is not an image`);
  const png = await toPng(tool, { data, mediaType });
  await mkdir(ctx.outputDir, { recursive: true });
  const path = join(ctx.outputDir, `${tool}-${sha256Hex(png).slice(0, 16)}.png`);
  await writeFile(path, png);
  return [{ type: 'image', path, mediaType: 'image/png' }];
}

function imageTool(
  name: string,
  opts: ImageGenToolOptions,
  prompt: (
    args: Record<string, unknown>,
    ctx: ToolRunContext,
  ) => Promise<string | { text: string; images: Uint8Array[] }>,
): ExecutableTool {
  return {
    name,
    unavailable: () => (opts.endpoint ? undefined : endpointHint('image')),
    async run(args, ctx) {
      const endpoint = opts.endpoint;
      if (!endpoint)
        throw new ApiaryError('TOOL_FAILED', `${name} is not available: ${endpointHint('image')}`);
      const request = await prompt(args, ctx);
      const provider = createOpenAICompatible({
        name: 'apiary-images',
        baseURL: endpoint.baseURL,
        ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      });
      const timeout = AbortSignal.timeout(opts.timeoutMs ?? 300_000);
      let data: Uint8Array;
      try {
        const { image } = await generateImage({
          model: provider.imageModel(endpoint.model),
          prompt: request,
          n: 1,
          ...(opts.size ? { size: opts.size } : {}),
          maxRetries: opts.maxRetries ?? 1,
          abortSignal: ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout,
        });
        data = image.uint8Array;
      } catch (error) {
        if (ctx.signal?.aborted) throw error;
        throw new ApiaryError(
          'TOOL_FAILED',
          `${name}: the image model ${endpoint.model} failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
      return savePng(name, data, ctx);
    },
  };
}

/** TextToImage(keywords) → a generated PNG (prompt: the keywords plus AgentLego's quality suffix). */
export function textToImageTool(opts: ImageGenToolOptions): ExecutableTool {
  return imageTool('TextToImage', opts, async (args) => {
    const keywords = textArg('TextToImage', args, 'keywords');
    return `${keywords}, ${TEXT_TO_IMAGE_SUFFIX}`;
  });
}

/** ImageStylization(image, instruction) → the edited PNG (the instruction is the edit prompt). */
export function imageStylizationTool(opts: ImageGenToolOptions): ExecutableTool {
  return imageTool('ImageStylization', opts, async (args, ctx) => {
    const image = await readImageArg('ImageStylization', args.image, ctx.readable);
    const instruction = textArg('ImageStylization', args, 'instruction');
    return { text: instruction, images: [await toPng('ImageStylization', image)] };
  });
}

/** Both image-generation tools over one endpoint. */
export function imageGenTools(opts: ImageGenToolOptions): ExecutableTool[] {
  return [textToImageTool(opts), imageStylizationTool(opts)];
}

/** Both image tools on the endpoint that flags or `APIARY_IMAGE_*` variables configure. */
export function imageGenToolsFromEnv(
  env: Record<string, string | undefined>,
  flags: ModelEndpointFlags = {},
): ExecutableTool[] {
  return imageGenTools({ endpoint: modelEndpointFromEnv('image', env, flags) });
}
