import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiaryError, InputInvalidError } from './errors.js';

/** IO a download needs; tests inject their own `fetch`. */
export interface DownloadDeps {
  fetch: typeof globalThis.fetch;
}

export interface DownloadOptions {
  /** Expected sha256 (hex); a mismatch fails and leaves nothing behind. */
  sha256?: string;
  /** Checks the complete content before it is moved into place (throw to reject). */
  validate?: (content: Buffer) => void;
  /** Abort when no complete response arrives in this time (default 60 s). */
  timeoutMs?: number;
  /** Refuse a response larger than this (declared or streamed): `INPUT_INVALID` naming the URL. */
  maxBytes?: number;
  deps?: Partial<DownloadDeps>;
}

export interface DownloadResult {
  url: string;
  path: string;
  sha256: string;
  bytes: number;
  content: Buffer;
}

let tempCounter = 0;
/** A sibling temp path (same folder, so the final rename is atomic). */
function tempPathFor(dest: string): string {
  tempCounter += 1;
  return join(dirname(dest), `.${basename(dest)}.${process.pid}.${tempCounter}.part`);
}

/** Writes a file atomically: a sibling temp file, then a rename. */
export function writeFileAtomic(dest: string, content: string | Buffer): void {
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = tempPathFor(dest);
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, dest);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

function describe(error: unknown): string {
  const e = error as { message?: string; cause?: { code?: string; message?: string } };
  const code = e?.cause?.code;
  return [e?.message ?? String(error), code && !e?.message?.includes(code) ? `(${code})` : '']
    .filter(Boolean)
    .join(' ');
}

/**
 * Downloads `url` to `dest`: streams into a sibling temp file while hashing, checks the
 * sha256 and the optional validator, then renames into place. Any failure (offline, HTTP
 * status, interrupted transfer, checksum, validation) throws a NETWORK/INPUT_INVALID error
 * naming the URL and removes the temp file, so `dest` is never partial.
 */
export async function downloadFile(
  url: string,
  dest: string,
  opts: DownloadOptions = {},
): Promise<DownloadResult> {
  const fetchFn = opts.deps?.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await fetchFn(url, {
      signal: AbortSignal.timeout(opts.timeoutMs ?? 60_000),
      redirect: 'follow',
    });
  } catch (error) {
    throw new ApiaryError('NETWORK', `cannot download ${url}: ${describe(error)} (offline?)`, {
      cause: error,
    });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw new ApiaryError(
      'NETWORK',
      `cannot download ${url}: HTTP ${response.status} ${response.statusText}`.trim(),
    );
  }
  const tooLarge = (): InputInvalidError =>
    new InputInvalidError({ file: url }, `is larger than ${opts.maxBytes} bytes; download refused`);
  if (opts.maxBytes !== undefined && Number(response.headers.get('content-length')) > opts.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = tempPathFor(dest);
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let bytes = 0;
  const file = await open(tmp, 'w');
  try {
    try {
      if (response.body) {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          const buf = Buffer.from(chunk);
          hash.update(buf);
          chunks.push(buf);
          bytes += buf.length;
          if (opts.maxBytes !== undefined && bytes > opts.maxBytes) throw tooLarge();
          await file.write(buf);
        }
      }
    } catch (error) {
      if (error instanceof InputInvalidError) throw error; // too large: not a network failure
      throw new ApiaryError('NETWORK', `download of ${url} was interrupted: ${describe(error)}`, {
        cause: error,
      });
    }
    const declared = Number(response.headers.get('content-length'));
    if (
      response.headers.has('content-length') &&
      !response.headers.has('content-encoding') &&
      declared !== bytes
    )
      throw new ApiaryError(
        'NETWORK',
        `download of ${url} was interrupted: got ${bytes} of ${declared} bytes`,
      );
    const sha256 = hash.digest('hex');
    if (opts.sha256 && opts.sha256.toLowerCase() !== sha256)
      throw new ApiaryError(
        'NETWORK',
        `checksum mismatch for ${url}: expected sha256 ${opts.sha256.toLowerCase()}, got ${sha256}`,
      );
    const content = Buffer.concat(chunks);
    opts.validate?.(content);
    await file.close();
    renameSync(tmp, dest);
    return { url, path: dest, sha256, bytes, content };
  } catch (error) {
    await file.close().catch(() => undefined);
    rmSync(tmp, { force: true });
    throw error;
  }
}
