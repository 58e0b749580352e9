import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { InputInvalidError, parseWith } from '../shared/index.js';
import { type RunSpec, RunSpecSchema, RunSpecV1Schema, upgradeRunSpecV1 } from './run-spec.js';

export const UsageSchema = z.object({
  inputTokens: z.number().min(0),
  outputTokens: z.number().min(0),
});

/** First record of a results file. */
export const HeaderLineSchema = z.object({ type: z.literal('header'), spec: RunSpecSchema });
export type HeaderLine = z.infer<typeof HeaderLineSchema>;

/** One finished sample: what the solver produced (or the error), its cost, timing and score. */
export const SampleLineSchema = z.object({
  type: z.literal('sample'),
  id: z.string().min(1),
  /** Which repetition of the sample (1-based); absent in files written before epochs existed. */
  epoch: z.number().int().min(1).default(1),
  category: z.string().nullable(),
  /** The solver's output (for AppBench `{ reply }`), null when it failed. */
  output: z.unknown(),
  /** Why no output was produced (model error after retries, parse failure…), else null. */
  error: z.string().nullable(),
  usage: UsageSchema.nullable(),
  /** Dollars this sample cost, when the run has a price. */
  cost: z.number().min(0).optional(),
  modelCalls: z.number().int().min(0),
  /** ISO start time and wall duration of this sample. */
  startedAt: z.string(),
  durationMs: z.number().min(0),
  score: z.unknown(),
});
export type SampleLine = z.infer<typeof SampleLineSchema>;

export interface ResultsFileContents {
  /** The header, its spec in the current version (older specs are mapped). */
  header: HeaderLine | null;
  /** The spec version as written in the file (1 for mapped version-1 files). */
  specVersion: number | null;
  samples: SampleLine[];
  /** Bytes of the file that hold complete, valid records (everything after is a torn tail). */
  validBytes: number;
  /** A partial last line (from a killed run) was found and is not counted. */
  truncatedTail: boolean;
}

/**
 * Reads a results file. A torn last line (the process was killed mid-write) is tolerated and
 * reported through `truncatedTail`/`validBytes`; a bad line anywhere else is an input error.
 */
export function parseResultsText(text: string, file: string): ResultsFileContents {
  const out: ResultsFileContents = {
    header: null,
    specVersion: null,
    samples: [],
    validBytes: 0,
    truncatedTail: false,
  };
  let pos = 0;
  let lineNo = 0;
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl === -1 ? text.length : nl;
    const raw = text.slice(pos, end);
    lineNo++;
    const isLast = nl === -1 || nl === text.length - 1;
    if (nl === -1) {
      // No newline: the write that ended the file never completed.
      out.truncatedTail = raw.trim() !== '';
      break;
    }
    pos = nl + 1;
    if (raw.trim() === '') {
      out.validBytes = Buffer.byteLength(text.slice(0, pos));
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      if (isLast) {
        out.truncatedTail = true;
        break;
      }
      throw new InputInvalidError(
        { file, record: `line ${lineNo}` },
        `not valid JSON (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    }
    const type = (json as { type?: unknown } | null)?.type;
    if (type === 'header') {
      if (out.header || out.samples.length)
        throw new InputInvalidError({ file, record: `line ${lineNo}` }, 'a second header record');
      const loc = { file, record: `line ${lineNo}` };
      const version = (json as { spec?: { version?: unknown } }).spec?.version;
      if (version === 1) {
        const v1 = parseWith(z.object({ spec: RunSpecV1Schema }), json, loc);
        out.header = { type: 'header', spec: upgradeRunSpecV1(v1.spec) };
      } else out.header = parseWith(HeaderLineSchema, json, loc);
      out.specVersion = typeof version === 'number' ? version : null;
    } else {
      if (!out.header)
        throw new InputInvalidError({ file, record: `line ${lineNo}` }, 'sample record before the header');
      out.samples.push(parseWith(SampleLineSchema, json, { file, record: `line ${lineNo}` }));
    }
    out.validBytes = Buffer.byteLength(text.slice(0, pos));
  }
  return out;
}

export function readResultsFile(file: string): ResultsFileContents {
  if (!existsSync(file))
    return { header: null, specVersion: null, samples: [], validBytes: 0, truncatedTail: false };
  return parseResultsText(readFileSync(file, 'utf8'), file);
}

/**
 * Appends records to a results file. Every `append` reaches the operating system before it
 * returns (a synchronous write), so a record survives the process being killed right after;
 * `close` also syncs the file to disk.
 */
export class ResultsWriter {
  private fd: number | null;

  private constructor(fd: number) {
    this.fd = fd;
  }

  /** Opens for appending; `keepBytes` first cuts the file to that length (drops a torn tail). */
  static open(file: string, keepBytes?: number): ResultsWriter {
    const fd = openSync(file, 'a');
    if (keepBytes !== undefined) ftruncateSync(fd, keepBytes);
    return new ResultsWriter(fd);
  }

  append(record: HeaderLine | SampleLine): void {
    this.appendRaw(`${JSON.stringify(record)}\n`);
  }

  private pending: string[] = [];
  private waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;

  /**
   * Appends a record with the others queued in the same turn of the event loop, in one write;
   * resolves once that write has returned (the record then survives a kill of the process).
   */
  appendBatched(record: HeaderLine | SampleLine): Promise<void> {
    this.pending.push(`${JSON.stringify(record)}\n`);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    return done;
  }

  private flush(): void {
    this.scheduled = false;
    const text = this.pending.join('');
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    try {
      this.appendRaw(text);
    } catch (error) {
      for (const w of waiters) w.reject(error);
      return;
    }
    for (const w of waiters) w.resolve();
  }

  appendRaw(text: string): void {
    if (this.fd === null) throw new Error('results file already closed');
    const buf = Buffer.from(text);
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
  }

  close(): void {
    if (this.fd === null) return;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
      this.fd = null;
    }
  }
}

export function headerLine(spec: RunSpec): HeaderLine {
  return { type: 'header', spec };
}
