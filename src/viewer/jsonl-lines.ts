import { createReadStream } from 'node:fs';

/** One line of a JSONL file: where it starts, its length in bytes (without the newline) and its bytes. */
export interface JsonlLine {
  offset: number;
  length: number;
  bytes: Buffer;
  /** False for a last line with no newline after it (a write that never completed). */
  terminated: boolean;
}

/**
 * The lines of a file with their byte offsets, read as a stream from byte `start` (a line start):
 * memory holds one chunk and the current line, never the file, so a 1 GB results file can be indexed.
 */
export async function* jsonlLines(
  file: string,
  opts: { start?: number; chunkBytes?: number } = {},
): AsyncGenerator<JsonlLine> {
  const start = opts.start ?? 0;
  let parts: Buffer[] = [];
  let partsBytes = 0;
  let lineStart = start;
  let pos = start;
  const stream = createReadStream(file, { start, highWaterMark: opts.chunkBytes ?? 1 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let from = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, from);
      if (nl === -1) break;
      const piece = chunk.subarray(from, nl);
      const bytes = parts.length ? Buffer.concat([...parts, piece]) : piece;
      yield { offset: lineStart, length: bytes.length, bytes, terminated: true };
      parts = [];
      partsBytes = 0;
      lineStart = pos + nl + 1;
      from = nl + 1;
    }
    if (from < chunk.length) {
      // copied: the stream may reuse the chunk's memory
      parts.push(Buffer.from(chunk.subarray(from)));
      partsBytes += chunk.length - from;
    }
    pos += chunk.length;
  }
  if (partsBytes > 0) {
    const bytes = Buffer.concat(parts);
    yield { offset: lineStart, length: bytes.length, bytes, terminated: false };
  }
}
