import { createHash } from 'node:crypto';

/**
 * The package's hashes, in one place so every caller gets the same values:
 * FNV-1a 32-bit for cheap, stable bucketing (seeded demo order, hashed features, the word-vector
 * cache's open-addressing table) and sha256 for content identity (downloads, response cache keys).
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a 32-bit over a string's UTF-16 code units (equal to the byte hash for ASCII text). */
export function fnv1a32(text: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/** FNV-1a 32-bit over `bytes[start, end)` (no copy of the slice). */
export function fnv1a32Bytes(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) {
    h ^= bytes[i] as number;
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/** sha256 of a string (as UTF-8) or bytes, as 64 lower-case hex digits. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
