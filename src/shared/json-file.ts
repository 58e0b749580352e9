import { readFileSync } from 'node:fs';
import { InputInvalidError, NotFoundError } from './errors.js';

/** Reads a file as text; a missing file is a NotFoundError naming the path. */
export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError('file', path);
    throw error;
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
