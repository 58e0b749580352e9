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
 * `(x1, y1, x2, y2)` (brackets optional; numbers rounded to pixels) → a box with x1 ≤ x2, y1 ≤ y2.
 * Numbers too large for a float are refused; a box beyond the image is clipped when it is drawn.
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
  return { x1: Math.min(x1, x2), y1: Math.min(y1, y2), x2: Math.max(x1, x2), y2: Math.max(y1, y2) };
}
