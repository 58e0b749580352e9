import { readFile } from 'node:fs/promises';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type GenerateDeps, generate, type RetryPolicy } from '../../../models/index.js';
import { ApiaryError } from '../../../shared/index.js';
import type { ModelEndpoint } from '../../../tools/index.js';
import { grantedPath, type ReadablePaths } from '../../../tools/index.js';

/** An image as bytes with its media type, ready to send as an image content part. */
export interface ImageBytes {
  data: Uint8Array;
  mediaType: string;
}

/** The media type from the file's first bytes (PNG, JPEG, GIF, WebP, BMP); undefined otherwise. */
export function sniffImageType(data: Uint8Array): string | undefined {
  const starts = (...bytes: number[]) => bytes.every((b, i) => data[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (
    starts(0x52, 0x49, 0x46, 0x46) &&
    data[8] === 0x57 &&
    data[9] === 0x45 &&
    data[10] === 0x42 &&
    data[11] === 0x50
  )
    return 'image/webp';
  if (starts(0x42, 0x4d)) return 'image/bmp';
  return undefined;
}

/**
 * The `image` argument of a tool: a path to an existing image file inside what the call may read
 * (`readable`: outside is PERMISSION_DENIED); anything else is TOOL_FAILED.
 */
export async function readImageArg(
  tool: string,
  value: unknown,
  readable: ReadablePaths,
  name = 'image',
): Promise<ImageBytes> {
  if (typeof value !== 'string' || value === '')
    throw new ApiaryError('TOOL_FAILED', `${tool}: argument "${name}" must be the path of an image file`);
  const real = grantedPath(tool, name, value, readable);
  let data: Uint8Array;
  try {
    data = new Uint8Array(await readFile(real));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : String(code);
    throw new ApiaryError('TOOL_FAILED', `${tool}: cannot read image ${value}: ${why}`, { cause: error });
  }
  const mediaType = sniffImageType(data);
  if (!mediaType)
    throw new ApiaryError('TOOL_FAILED', `${tool}: ${value} is not a PNG, JPEG, GIF, WebP or BMP image`);
  return { data, mediaType };
}

/** A non-empty string argument, or TOOL_FAILED naming it. */
export function textArg(tool: string, args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new ApiaryError('TOOL_FAILED', `${tool}: argument "${name}" must be a non-empty string`);
  return value;
}

export interface VisionClientOptions {
  endpoint: ModelEndpoint;
  /** Longest reply (default 512 tokens). */
  maxOutputTokens?: number;
  /** Retries and per-attempt timeout (default 2 retries, 120 s). */
  retry?: RetryPolicy;
  /** Injected sleep and clock (tests). */
  deps?: GenerateDeps;
}

/** Asks a vision-language model one question about one image. */
export interface VisionClient {
  readonly model: string;
  ask(tool: string, prompt: string, image: ImageBytes, signal?: AbortSignal): Promise<string>;
}

/**
 * A vision-language model on an OpenAI-compatible chat endpoint, through `generate`: one user turn
 * with the image (sent as a base64 data URL image part) and the prompt, temperature 0. A failed call
 * (after retries) is TOOL_FAILED naming the tool and the endpoint's error.
 */
export function createVisionClient(opts: VisionClientOptions): VisionClient {
  const provider = createOpenAICompatible({
    name: 'apiary-vision',
    baseURL: opts.endpoint.baseURL,
    ...(opts.endpoint.apiKey ? { apiKey: opts.endpoint.apiKey } : {}),
  });
  const model = provider.chatModel(opts.endpoint.model);
  return {
    model: opts.endpoint.model,
    async ask(tool, prompt, image, signal) {
      try {
        const response = await generate(
          {
            model,
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'image', image: image.data, mediaType: image.mediaType },
                  { type: 'text', text: prompt },
                ],
              },
            ],
            settings: { temperature: 0, maxOutputTokens: opts.maxOutputTokens ?? 512 },
            retry: { maxRetries: 2, ...opts.retry },
            ...(signal ? { signal } : {}),
          },
          opts.deps,
        );
        return response.text;
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new ApiaryError(
          'TOOL_FAILED',
          `${tool}: the vision model ${opts.endpoint.model} failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
    },
  };
}
