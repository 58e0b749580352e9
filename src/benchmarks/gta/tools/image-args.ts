import { existsSync, statSync } from 'node:fs';
import { ApiaryError } from '../../../shared/index.js';
import { grantedPath, type ReadablePaths } from '../../../tools/index.js';

/** Arguments of GTA's image tools (DrawBox, AddText): files and boxes. No jimp here: it loads on a tool's first run. */
export function toolError(tool: string, message: string, cause?: unknown): ApiaryError {
  return new ApiaryError('TOOL_FAILED', `${tool}: ${message}`, cause === undefined ? undefined : { cause });
}

/** A string argument, required unless `fallback` is given. */
export function textArg(
  tool: string,
  args: Record<string, unknown>,
  name: string,
  fallback?: string,
): string {
  const value = args[name] ?? fallback;
  if (typeof value !== 'string') throw toolError(tool, `"${name}" must be a string`);
  return value;
}

/**
 * An image argument: the path of an existing file (GTA passes image files by path) inside what the
 * call may read (`ctx.readable`); returns its real path, the one to read.
 */
export function imagePathArg(
  tool: string,
  args: Record<string, unknown>,
  readable: ReadablePaths,
  name = 'image',
): string {
  const path = textArg(tool, args, name);
  const real = grantedPath(tool, name, path, readable);
  if (!existsSync(real) || !statSync(real).isFile()) throw toolError(tool, `image file not found: ${path}`);
  return real;
}

export interface Box {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

const NUMBER = String.raw`\s*(-?\d+(?:\.\d+)?)\s*`;
const BBOX = new RegExp(String.raw`^[([]?${NUMBER},${NUMBER},${NUMBER},${NUMBER}[)\]]?$`);
/** Longest bbox text read: four numbers need a few dozen characters (and the regex stays cheap). */
const MAX_BBOX_CHARS = 1000;

/**
 * `(x1, y1, x2, y2)` (brackets optional; numbers rounded to pixels) → a box. Reversed corners
 * (x2 < x1 or y2 < y1) are refused, as Pillow's rectangle (the reference DrawBox's) refuses them:
 * a model that swapped the corners has misread the format, and drawing a guess would hide it.
 * Numbers too large for a float are refused; see boxOnImage for a box beyond the image.
 */
export function parseBbox(tool: string, text: string): Box {
  if (text.length > MAX_BBOX_CHARS)
    throw toolError(tool, `bbox must be "(x1, y1, x2, y2)" (got ${text.length} characters)`);
  const m = BBOX.exec(text.trim());
  if (!m) throw toolError(tool, `bbox must be "(x1, y1, x2, y2)" (got "${text}")`);
  const [x1, y1, x2, y2] = m.slice(1, 5).map((v) => Math.round(Number(v))) as [
    number,
    number,
    number,
    number,
  ];
  if (![x1, y1, x2, y2].every(Number.isFinite))
    throw toolError(tool, `bbox numbers must be finite (got "${text}")`);
  if (x2 < x1 || y2 < y1)
    throw toolError(
      tool,
      `bbox "${text}" is reversed: x2 must be ≥ x1 and y2 ≥ y1 (corners (x1, y1) top-left, (x2, y2) bottom-right)`,
    );
  return { x1, y1, x2, y2 };
}

/**
 * `box` when any of it lies on a `width`×`height` image; a box partly off the image is kept and
 * clipped when drawn (its visible edges still show where it is), one entirely off it is refused.
 */
export function boxOnImage(tool: string, box: Box, width: number, height: number): Box {
  if (box.x2 < 0 || box.y2 < 0 || box.x1 > width - 1 || box.y1 > height - 1)
    throw toolError(
      tool,
      `bbox (${box.x1}, ${box.y1}, ${box.x2}, ${box.y2}) lies entirely off the ${width}×${height} image`,
    );
  return box;
}
