import { open } from 'node:fs/promises';
import { imageSize } from 'image-size';
import { ApiaryError } from '../../../shared/index.js';
import { toolError } from './image-args.js';

/**
 * Limits on the images a tool decodes. Decoding allocates 4 bytes per pixel whatever the file's
 * size (a 48 KB PNG can declare 20000 × 20000 pixels: 1.6 GB), so the pixel count is read from the
 * header and checked before anything decodes. 40 megapixels holds an 8K frame (7680 × 4320 = 33 MP)
 * and any camera photo GTA uses, and decodes to 160 MB.
 */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** Largest image file read (a 40-megapixel PNG of a photo is about 60 MB). */
export const MAX_IMAGE_BYTES = 64 * 1024 * 1024;

/**
 * Longest text a tool draws (an annotation, a caption): drawing allocates a layer as wide as the
 * text, about 40 px per character at the largest font, so a long text is refused before any layer.
 */
export const MAX_TEXT_CHARS = 1000;

/** `value` when it is at most MAX_TEXT_CHARS long, else a `TOOL_FAILED` naming the argument. */
export function limitedText(tool: string, name: string, value: string): string {
  if (value.length > MAX_TEXT_CHARS)
    throw toolError(tool, `"${name}" is ${value.length} characters long; the limit is ${MAX_TEXT_CHARS}`);
  return value;
}

export interface ImageHeader {
  width: number;
  height: number;
  /** The format image-size recognised (`png`, `jpg`, …). */
  type: string;
}

/**
 * The dimensions an image's header declares, refused (`TOOL_FAILED`, naming `tool` and `what`)
 * when the format is unknown or the pixel count is above MAX_IMAGE_PIXELS. Reads only headers
 * (of the largest image, for files holding several): cost linear in the bytes, nothing decoded.
 */
export function checkImageHeader(bytes: Uint8Array, tool: string, what: string): ImageHeader {
  let size: ReturnType<typeof imageSize>;
  try {
    size = imageSize(bytes);
  } catch (e) {
    throw toolError(tool, `cannot read image ${what}: ${(e as Error).message}`, e);
  }
  const { width, height } = size;
  const type = size.type ?? 'unknown';
  if (!(width > 0 && height > 0))
    throw toolError(tool, `cannot read image ${what}: its ${type} header declares no size`);
  const pixels = width * height;
  if (pixels > MAX_IMAGE_PIXELS)
    throw toolError(
      tool,
      `image ${what} is ${width}×${height} (${pixels} pixels); the limit is ${MAX_IMAGE_PIXELS} pixels`,
    );
  return { width, height, type };
}

/**
 * An image file's bytes, read once (what is checked is what gets decoded): refused above
 * MAX_IMAGE_BYTES (never reading more than that) or when its header fails `checkImageHeader`.
 */
export async function readCheckedImage(
  tool: string,
  path: string,
): Promise<{ bytes: Buffer; header: ImageHeader }> {
  let bytes: Buffer;
  try {
    const file = await open(path, 'r');
    try {
      // One byte more than the limit tells a file over it (even one growing while it is read).
      const buffer = Buffer.alloc(Math.min((await file.stat()).size, MAX_IMAGE_BYTES) + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await file.read(buffer, length, buffer.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buffer.length) break;
      }
      if (length > MAX_IMAGE_BYTES)
        throw toolError(tool, `image ${path} is over ${MAX_IMAGE_BYTES} bytes (the limit for an image file)`);
      bytes = buffer.subarray(0, length);
    } finally {
      await file.close();
    }
  } catch (e) {
    if (e instanceof ApiaryError) throw e;
    throw toolError(tool, `cannot read image ${path}: ${(e as Error).message}`, e);
  }
  return { bytes, header: checkImageHeader(bytes, tool, path) };
}
