import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { ApiaryError, InputInvalidError, NotFoundError } from './errors.js';
import { checkJsonDepth } from './json-depth.js';

/**
 * The typed error for a file that cannot be opened: missing, a folder, not permitted. Node's own errors
 * name no path for some of these (`EISDIR: illegal operation on a directory, read`).
 */
export function fileReadError(path: string, error: unknown): ApiaryError {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return new NotFoundError('file', path);
  if (code === 'EISDIR')
    return new InputInvalidError({ file: path }, 'is a folder, not a file; pass the file inside it', {
      cause: error,
    });
  if (code === 'ENOTDIR')
    return new InputInvalidError(
      { file: path },
      'a part of this path is a file, not a folder; check the path',
      {
        cause: error,
      },
    );
  if (code === 'EACCES' || code === 'EPERM')
    return new InputInvalidError(
      { file: path },
      'permission denied; check its permissions or pass another path',
      {
        cause: error,
      },
    );
  if (code === 'EROFS')
    return new InputInvalidError(
      { file: path },
      'on a read-only file system; pass a path on a writable disk',
      {
        cause: error,
      },
    );
  if (code === 'EEXIST')
    return new InputInvalidError(
      { file: path },
      'already exists (a file where a folder is needed?); pass another path',
      {
        cause: error,
      },
    );
  if (error instanceof ApiaryError) return error;
  return new ApiaryError('INTERNAL', `${path}: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
  });
}

/** Reads a whole file as bytes; every failure is a typed error naming the path ({@link fileReadError}). */
export function readBytesFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw fileReadError(path, error);
  }
}

/**
 * Calls `onLine(line, lineNo)` (1-based) for each line of a UTF-8 text file (split at "\n", as
 * `text.split('\n')` would), reading it in chunks: a large file never becomes one string, so
 * each line is its own string (one byte per character unless it holds a non-Latin-1 character)
 * and what is made from one line does not keep the whole file alive. Failures are typed errors
 * naming the path ({@link fileReadError}).
 */
export function forEachLineOfFile(
  path: string,
  onLine: (line: string, lineNo: number) => void,
  chunkBytes = 8 << 20,
): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw fileReadError(path, error);
  }
  try {
    const chunk = Buffer.allocUnsafe(chunkBytes);
    let carry = Buffer.alloc(0);
    let lineNo = 0;
    for (;;) {
      let got: number;
      try {
        got = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw fileReadError(path, error);
      }
      if (got === 0) break;
      // "\n" never occurs inside a multi-byte UTF-8 sequence: lines decode on their own
      const bytes = carry.length ? Buffer.concat([carry, chunk.subarray(0, got)]) : chunk.subarray(0, got);
      let start = 0;
      for (let nl = bytes.indexOf(10, start); nl >= 0; nl = bytes.indexOf(10, start)) {
        onLine(bytes.toString('utf8', start, nl), ++lineNo);
        start = nl + 1;
      }
      carry = Buffer.from(bytes.subarray(start));
    }
    onLine(carry.toString('utf8'), ++lineNo);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a file as text; every failure is a typed error naming the path ({@link fileReadError}).
 * `strictUtf8`: a file that is not UTF-8 (Latin-1, Windows-1252, UTF-16) is refused naming its line,
 * instead of read with U+FFFD in place of each bad byte (`Z\ufffdrich` for a Latin-1 `Zürich`).
 * Off by default: results files may end in a torn line cut inside a character, which a resume repairs.
 */
export function readTextFile(path: string, opts: { strictUtf8?: boolean } = {}): string {
  if (!opts.strictUtf8)
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      throw fileReadError(path, error);
    }
  const bytes = readBytesFile(path);
  if (!isUtf8(bytes)) throw notUtf8Error(path, bytes);
  return bytes.toString('utf8');
}

/** Where the first byte that breaks UTF-8 is: its line (1-based) and value, for the error. */
function notUtf8Error(path: string, bytes: Uint8Array): InputInvalidError {
  const at = firstNonUtf8Byte(bytes);
  let line = 1;
  for (let i = 0; i < at; i++) if (bytes[i] === 0x0a) line++;
  const byte = bytes[at] ?? 0;
  return new InputInvalidError(
    { file: path, record: `line ${line}` },
    `not UTF-8 text (byte 0x${byte.toString(16).padStart(2, '0')} at byte ${at}); save the file as UTF-8`,
  );
}

/**
 * What a lead byte announces: the sequence length and the range of its second byte (no overlongs,
 * no surrogates, nothing above U+10FFFF: the Unicode standard's table 3-7); null for a byte that
 * cannot start a sequence.
 */
function utf8Sequence(lead: number): readonly [length: number, lo: number, hi: number] | null {
  if (lead >= 0xc2 && lead <= 0xdf) return [2, 0x80, 0xbf];
  if (lead === 0xe0) return [3, 0xa0, 0xbf];
  if (lead === 0xed) return [3, 0x80, 0x9f];
  if (lead >= 0xe1 && lead <= 0xef) return [3, 0x80, 0xbf];
  if (lead === 0xf0) return [4, 0x90, 0xbf];
  if (lead >= 0xf1 && lead <= 0xf3) return [4, 0x80, 0xbf];
  if (lead === 0xf4) return [4, 0x80, 0x8f];
  return null;
}

/** Offset of the first byte that does not start or continue a well-formed UTF-8 sequence. */
function firstNonUtf8Byte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const sequence = utf8Sequence(lead);
    if (!sequence) return i;
    const [length, lo, hi] = sequence;
    const second = bytes[i + 1];
    if (second === undefined || second < lo || second > hi) return i;
    for (let k = 2; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
    }
    i += length;
  }
  return bytes.length;
}

/** Parses JSON text; a syntax error (e.g. a truncated file) names the file and the position. */
export function parseJsonText(text: string, file: string): unknown {
  checkJsonDepth(text, { file });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputInvalidError({ file }, `not valid JSON (${(error as Error).message})`, { cause: error });
  }
}

export function readJsonFile(path: string): unknown {
  return parseJsonText(readTextFile(path), path);
}

/** Parses JSON Lines; each bad line is reported with its 1-based line number as the record. */
export function parseJsonLines(text: string, file: string): unknown[] {
  const out: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    checkJsonDepth(line, { file, record: `line ${i + 1}` });
    try {
      out.push(JSON.parse(line));
    } catch (error) {
      throw new InputInvalidError(
        { file, record: `line ${i + 1}` },
        `not valid JSON (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    }
  }
  return out;
}
