import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * SHA-256 over the content of several files, in the order given. Each file contributes its base
 * name, its byte length and its bytes, so moving bytes from one file to the next, or renaming a
 * file, changes the hash. Used to pin a run to the exact data it read.
 */
export function sha256OfFiles(files: readonly string[]): string {
  const hash = createHash('sha256');
  for (const file of files) {
    const bytes = readFileSync(file);
    hash.update(`${basename(file)}\u0000${bytes.length}\u0000`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}
