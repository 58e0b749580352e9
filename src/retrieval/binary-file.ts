import { closeSync, openSync, renameSync, writeSync } from 'node:fs';
import { InputInvalidError } from '../shared/index.js';

/**
 * The layout shared by Apiary's binary files (retrieval indexes `.apix`, dense encoders `.apdm`):
 * 8 magic bytes, a u32 header length, a JSON header, then 8-byte-aligned binary sections.
 */

export const align8 = (n: number) => (n + 7) & ~7;

/** Writes magic + JSON header + the chunks whole: to a temp file first, then renamed over `path`. */
export function writeBinaryFile(path: string, magic: string, header: unknown, chunks: Uint8Array[]): void {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(align8(12 + json.byteLength));
  prefix.write(magic, 0, 'latin1');
  prefix.writeUInt32LE(json.byteLength, 8);
  json.copy(prefix, 12);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, prefix);
    for (const c of chunks) writeSync(fd, c);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** An error about a binary file's header, naming the file (and the header field). */
export const headerError = (path: string, problem: string, field?: string) =>
  new InputInvalidError({ file: path, record: 'header', ...(field ? { field } : {}) }, problem);

/**
 * The JSON header of a binary file (not yet checked against its schema) and where its sections
 * start. When the magic bytes are wrong the error says what the file is not and how to make one.
 */
export function readBinaryHeader(
  path: string,
  buf: Buffer,
  magic: string,
  foreign: { notA: string; fix: string },
): { raw: unknown; base: number } {
  if (buf.byteLength < 12 || buf.toString('latin1', 0, 8) !== magic)
    throw headerError(path, `not ${foreign.notA} (bad magic bytes); ${foreign.fix}`);
  const len = buf.readUInt32LE(8);
  if (12 + len > buf.byteLength) throw headerError(path, 'truncated header');
  try {
    return { raw: JSON.parse(buf.toString('utf8', 12, 12 + len)), base: align8(12 + len) };
  } catch (e) {
    throw headerError(path, `header is not JSON (${(e as Error).message})`);
  }
}
