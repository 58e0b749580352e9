import { readFileSync } from 'node:fs';
import { ApiaryError, InputInvalidError, NotFoundError } from './errors.js';

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

/** Reads a file as text; every failure is a typed error naming the path ({@link fileReadError}). */
export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw fileReadError(path, error);
  }
}

/** Parses JSON text; a syntax error (e.g. a truncated file) names the file and the position. */
export function parseJsonText(text: string, file: string): unknown {
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
