import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContentPart } from '../../../apps/index.js';

/**
 * Writes a drawn image (PNG bytes from a tool thread) into the call's output folder. The name is
 * derived from the tool, the input image and the arguments, so the same call writes the same
 * file; written only once the drawing finished, so a stopped call leaves no half-written file.
 */
export async function writeImageResult(
  png: Uint8Array,
  outputDir: string,
  tool: string,
  key: unknown,
): Promise<ContentPart> {
  await mkdir(outputDir, { recursive: true });
  const id = createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16);
  const path = join(outputDir, `${tool.toLowerCase()}-${id}.png`);
  await writeFile(path, png);
  return { type: 'image', path, mediaType: 'image/png' };
}
