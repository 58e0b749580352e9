import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { safeRelativeName } from './work-folder.js';

/** Longest relative name a file may have to come back (deeper files vanish with the tmpfs). */
export const MAX_TRANSFER_NAME = 1024;
/** Room for the per-file header lines on top of the files' bytes. */
export const TRANSFER_HEADER_ROOM = 128 * 1024;

export interface TransferredFile {
  name: string;
  data: Buffer;
}

/**
 * The files in the supervisor's stream: per file a JSON line `{"name", "bytes"}` and the bytes.
 * The stream is the sandbox's word, so it is read as untrusted: a name must be a relative path
 * inside the work folder and not one of `refused`; parsing stops at the first malformed record
 * (a supervisor killed mid-stream, or code that forged records).
 */
export function parseTransfer(stream: Buffer, refused: (name: string) => boolean): TransferredFile[] {
  const files: TransferredFile[] = [];
  const seen = new Set<string>();
  let at = 0;
  while (at < stream.length) {
    const end = stream.indexOf(0x0a, at);
    if (end < 0 || end - at > MAX_TRANSFER_NAME * 8) break;
    let header: { name?: unknown; bytes?: unknown };
    try {
      header = JSON.parse(stream.subarray(at, end).toString('utf8')) as typeof header;
    } catch {
      break;
    }
    const { name, bytes } = header;
    if (typeof name !== 'string' || typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0)
      break;
    if (end + 1 + bytes > stream.length) break;
    const data = stream.subarray(end + 1, end + 1 + bytes);
    at = end + 1 + bytes;
    let safe: string;
    try {
      safe = safeRelativeName(name);
    } catch {
      continue;
    }
    if (name.length > MAX_TRANSFER_NAME || refused(safe) || seen.has(safe)) continue;
    seen.add(safe);
    files.push({ name: safe, data });
  }
  return files;
}

/** Writes transferred files under `dir` (a fresh host folder); a name that clashes with a folder is skipped. */
export async function writeTransferred(dir: string, files: TransferredFile[]): Promise<void> {
  for (const file of files) {
    const target = join(dir, file.name);
    try {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, file.data, { flag: 'wx' });
    } catch {
      // `a` as a file and `a/b` as another: the stream was forged, the first one wins
    }
  }
}
