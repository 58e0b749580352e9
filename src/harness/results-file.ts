import { closeSync, existsSync, fdatasync, fsyncSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { z } from 'zod';
import { AgentTraceEventSchema } from '../agents/index.js';
import { TokenUsageSchema } from '../models/index.js';
import {
  checkJsonDepth,
  InputInvalidError,
  parseWith,
  readTextFile,
  redactSecrets,
  sha256Hex,
} from '../shared/index.js';
import { type RunSpec, RunSpecSchema, RunSpecV1Schema, upgradeRunSpecV1 } from './run-spec.js';

/** First record of a results file. */
const HeaderLineSchema = z.object({ type: z.literal('header'), spec: RunSpecSchema });
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
  usage: TokenUsageSchema.nullable(),
  /** Dollars this sample cost, when the run has a price. */
  cost: z.number().min(0).optional(),
  modelCalls: z.number().int().min(0),
  /** ISO start time and wall duration of this sample. */
  startedAt: z.string(),
  durationMs: z.number().min(0),
  score: z.unknown(),
  /**
   * What the sample did (docs/harness.md, "Sample events"), ending with a stop. Absent only in
   * files recorded before events existed (`recordedBeforeEvents`).
   */
  events: z.array(AgentTraceEventSchema).optional(),
});
export type SampleLine = z.infer<typeof SampleLineSchema>;

/** A record written before sample events existed: reports say so instead of showing no events. */
export const recordedBeforeEvents = (line: Pick<SampleLine, 'events'>): boolean => line.events === undefined;

/** What a results reader checks a task's records against (a `TaskDefinition` is one). */
export interface RecordSchemas {
  outputSchema?: z.ZodType;
  scoreSchema?: z.ZodType;
}

/** The schemas of the task a file's header names, when that task is known (else nothing is checked). */
export type RecordSchemasFor = (taskName: string) => RecordSchemas | undefined;

/**
 * A long text that several samples share (a system prompt listing a whole catalog), written once:
 * sample outputs refer to it as `{"$blob": "<sha256>"}` and readers put the text back.
 */
export const BlobLineSchema = z.object({ type: z.literal('blob'), sha256: z.string(), text: z.string() });
export type BlobLine = z.infer<typeof BlobLineSchema>;

/** Strings at least this long in a sample's output are stored once as blobs. */
export const BLOB_MIN_CHARS = 2048;

/** sha256 of long texts, remembered: the same prompt instance recurs in every sample of a run. */
const blobHashes = new Map<string, string>();
function blobHash(text: string): string {
  let h = blobHashes.get(text);
  if (h === undefined) {
    if (blobHashes.size >= 256) blobHashes.clear();
    h = sha256Hex(text);
    blobHashes.set(text, h);
  }
  return h;
}

const isPlainObject = (v: object) => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * Replaces long strings by blob references; `onNew` is told of each text not stored before. Plain
 * objects and arrays without a long string are returned as they are (no copy: a sample's trace is
 * mostly short strings); other objects are copied as plain data, as JSON would see their own keys.
 */
export function externalize(value: unknown, known: Set<string>, onNew: (blob: BlobLine) => void): unknown {
  if (typeof value === 'string') {
    if (value.length < BLOB_MIN_CHARS) return value;
    const sha256 = blobHash(value);
    if (!known.has(sha256)) {
      known.add(sha256);
      onNew({ type: 'blob', sha256, text: value });
    }
    return { $blob: sha256 };
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = externalize(value[i], known, onNew);
      if (out) out.push(v);
      else if (v !== value[i]) {
        out = value.slice(0, i);
        out.push(v);
      }
    }
    return out ?? value;
  }
  const plain = isPlainObject(value);
  let out: Record<string, unknown> | undefined = plain ? undefined : {};
  const entries = Object.entries(value);
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i]!;
    const e = externalize(v, known, onNew);
    if (out) out[k] = e;
    else if (e !== v) {
      out = {};
      for (let j = 0; j < i; j++) out[entries[j]![0]] = entries[j]![1];
      out[k] = e;
    }
  }
  return out ?? value;
}

/** Puts blob texts back in place of their references (a reference with no text stays as it is). */
export function internalize(value: unknown, blobs: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => internalize(v, blobs));
  if (value !== null && typeof value === 'object') {
    const ref = (value as { $blob?: unknown }).$blob;
    if (typeof ref === 'string' && Object.keys(value).length === 1) return blobs.get(ref) ?? value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = internalize(v, blobs);
    return out;
  }
  return value;
}

const blobLineText = (blob: BlobLine) => `${JSON.stringify(blob)}\n`;

/**
 * A sample record as its line of the results file (with the newline): the output's long strings
 * become blob references; `onBlob` is told of every blob the line refers to whose hash is not in
 * `known` yet (and adds it there), in order.
 */
export function sampleLineText(
  record: SampleLine,
  known: Set<string>,
  onBlob: (blob: BlobLine) => void,
): string {
  const output = externalize(record.output, known, onBlob);
  if (record.events === undefined) return `${JSON.stringify({ ...record, output })}\n`;
  const events = externalize(record.events, known, onBlob);
  return `${JSON.stringify({ ...record, output, events })}\n`;
}

/** A sample line serialised by `sampleLineText`, with the hashes of every blob it refers to. */
export interface SerializedSampleLine {
  text: string;
  blobRefs: string[];
}

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
  /** Hashes of the blobs the file holds (a resumed writer does not write them again). */
  blobs: Set<string>;
  /** Sample records without `events` (recorded before events existed). */
  recordedBeforeEvents: number;
}

/**
 * Reads a results file. A torn last line (the process was killed mid-write) is tolerated and
 * reported through `truncatedTail`/`validBytes`; a bad line anywhere else is an input error.
 */
export function parseResultsText(
  text: string,
  file: string,
  schemasFor?: RecordSchemasFor,
): ResultsFileContents {
  const out: ResultsFileContents = {
    header: null,
    specVersion: null,
    samples: [],
    validBytes: 0,
    truncatedTail: false,
    blobs: new Set(),
    recordedBeforeEvents: 0,
  };
  let typed: z.ZodType | null = null;
  const blobTexts = new Map<string, string>();
  let pos = 0;
  let bytes = 0; // counted line by line: re-measuring the prefix each time would be quadratic
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
    bytes += Buffer.byteLength(raw) + 1;
    if (raw.trim() === '') {
      out.validBytes = bytes;
      continue;
    }
    // outside the try: a deep record is refused, not taken for a torn tail and cut off by a resume
    checkJsonDepth(raw, { file, record: `line ${lineNo}` });
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
      typed = typedRecordSchema(schemasFor?.(out.header.spec.task.name));
    } else if (type === 'blob') {
      const blob = parseWith(BlobLineSchema, json, { file, record: `line ${lineNo}` });
      blobTexts.set(blob.sha256, blob.text);
      out.blobs.add(blob.sha256);
    } else {
      if (!out.header)
        throw new InputInvalidError({ file, record: `line ${lineNo}` }, 'sample record before the header');
      // texts back in place first: an event's fields are checked with their texts
      const raw = json as { output?: unknown; events?: unknown };
      if (blobTexts.size && raw.events !== undefined) raw.events = internalize(raw.events, blobTexts);
      const line = parseWith(SampleLineSchema, json, { file, record: `line ${lineNo}` });
      if (blobTexts.size) line.output = internalize(line.output, blobTexts);
      if (typed) parseWith(typed, line, { file, record: `line ${lineNo}` });
      if (line.events === undefined) out.recordedBeforeEvents++;
      out.samples.push(line);
    }
    out.validBytes = bytes;
  }
  return out;
}

/**
 * A record's output and score against its task's schemas: an issue's path starts with `output` or
 * `score`, so the error names the field. A failed sample's output is null whatever the task.
 */
function typedRecordSchema(schemas: RecordSchemas | undefined): z.ZodType | null {
  if (!schemas?.outputSchema && !schemas?.scoreSchema) return null;
  return z.object({
    ...(schemas.outputSchema ? { output: schemas.outputSchema.nullable() } : {}),
    ...(schemas.scoreSchema ? { score: schemas.scoreSchema } : {}),
  });
}

/**
 * Reads a results file; with `schemasFor` (e.g. the task registry's lookup) every record's output
 * and score are checked against its task's schemas too: a mismatch is INPUT_INVALID naming the
 * file, line and field (`output.reply`, `score.official`).
 */
export function readResultsFile(file: string, schemasFor?: RecordSchemasFor): ResultsFileContents {
  if (!existsSync(file))
    return {
      header: null,
      specVersion: null,
      samples: [],
      validBytes: 0,
      truncatedTail: false,
      blobs: new Set(),
      recordedBeforeEvents: 0,
    };
  return parseResultsText(readTextFile(file), file, schemasFor);
}

/**
 * Appends records to a results file. Every `append` reaches the operating system before it
 * returns (a synchronous write), so a record survives the process being killed right after;
 * `close` also syncs the file to disk.
 */
/** How often a writer flushes to disk in the background during a run. */
const SYNC_EVERY_MS = 1000;

export class ResultsWriter {
  private fd: number | null;
  private readonly blobs: Set<string>;

  private constructor(fd: number, blobs: Set<string>) {
    this.fd = fd;
    this.blobs = blobs;
  }

  /**
   * Opens for appending; `keepBytes` first cuts the file to that length (drops a torn tail);
   * `blobs` are the blobs already in the kept part (from `readResultsFile`).
   */
  static open(file: string, keepBytes?: number, blobs: Iterable<string> = []): ResultsWriter {
    const fd = openSync(file, 'a');
    if (keepBytes !== undefined) ftruncateSync(fd, keepBytes);
    return new ResultsWriter(fd, new Set(blobs));
  }

  /** The record as text: a sample's long strings become blob references, new blobs precede it. */
  private serialize(record: HeaderLine | SampleLine): string {
    if (record.type !== 'sample') return `${JSON.stringify(record)}\n`;
    const blobs: string[] = [];
    const text = sampleLineText(record, this.blobs, (b) => blobs.push(blobLineText(b)));
    return `${blobs.join('')}${text}`;
  }

  /**
   * Appends sample lines serialised elsewhere (`sampleLineText` in a worker thread), in one
   * synchronous write: the blobs each line refers to that the file lacks are written before it,
   * their texts from `blobText`.
   */
  appendSerialized(lines: readonly SerializedSampleLine[], blobText: (sha256: string) => string): void {
    let text = '';
    for (const line of lines) {
      for (const sha256 of line.blobRefs)
        if (!this.blobs.has(sha256)) {
          this.blobs.add(sha256);
          text += blobLineText({ type: 'blob', sha256, text: blobText(sha256) });
        }
      text += line.text;
    }
    if (text) this.appendRaw(text);
  }

  append(record: HeaderLine | SampleLine): void {
    this.appendRaw(this.serialize(record));
  }

  private pending: string[] = [];
  private waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  private scheduled = false;

  /**
   * Appends a record with the others queued in the same turn of the event loop, in one write;
   * resolves once that write has returned (the record then survives a kill of the process).
   */
  appendBatched(record: HeaderLine | SampleLine): Promise<void> {
    this.pending.push(this.serialize(record));
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

  /** Writes lines as they are, but for API keys (the last pass of `redactSecrets` over everything written). */
  appendRaw(text: string): void {
    if (this.fd === null) throw new Error('results file already closed');
    const buf = Buffer.from(redactSecrets(text));
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off);
    this.syncInBackground();
  }

  private lastSync = performance.now();
  private syncing = false;

  /**
   * About once a second, flushes what was written to disk off the main thread (libuv's pool), so
   * records reach the disk during a long run and `close`'s own sync has at most a second's data
   * to flush (a 40,960-record run: 50 ms → a few ms at its end). Best effort: `close` still syncs.
   */
  private syncInBackground(): void {
    if (this.syncing || this.fd === null || performance.now() - this.lastSync < SYNC_EVERY_MS) return;
    this.syncing = true;
    // an error here (disk full, fd closed meanwhile) is for `close`'s own sync to report
    fdatasync(this.fd, () => {
      this.syncing = false;
      this.lastSync = performance.now();
    });
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
