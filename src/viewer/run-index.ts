import { existsSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  BlobLineSchema,
  parseResultsText,
  type RunSpec,
  restoreBlobRefs,
  type SampleLine,
  SampleLineSchema,
} from '../harness/index.js';
import { ApiaryError, checkJsonDepth, InputInvalidError, parseWith } from '../shared/index.js';
import { jsonlLines } from './jsonl-lines.js';
import { type SampleErrorKind, type SampleScoring, sampleErrorKinds, scoringFor } from './sample-facts.js';

/** What the viewer keeps of one sample record: enough to list and filter it, and where to read the rest. */
export interface SampleEntry {
  /** Position among the file's sample records (0-based): the record's key in the viewer. */
  n: number;
  id: string;
  epoch: number;
  category: string | null;
  error: string | null;
  errorKinds: SampleErrorKind[];
  metrics: Record<string, number>;
  /** null when the task has no pass/fail; a record with an error has not passed. */
  passed: boolean | null;
  durationMs: number;
  modelCalls: number;
  usage: { inputTokens: number; outputTokens: number } | null;
  /** An earlier record has the same (id, epoch): the summary ignores this one. */
  duplicate: boolean;
  /** Byte range of the line in the results file. */
  offset: number;
  length: number;
}

export interface RunIndex {
  folder: string;
  resultsFile: string;
  spec: RunSpec;
  /** The spec version as written (1 for files of run spec v1, read as v2). */
  specVersion: number | null;
  samples: SampleEntry[];
  /** Names of the metrics the records carry, in first-seen order. */
  metricNames: string[];
  /** Whether the task defines pass/fail. */
  hasPass: boolean;
  /** Byte ranges of blob lines (long texts shared by samples), by SHA-256. */
  blobs: Map<string, { offset: number; length: number }>;
  /**
   * Files the records name as images (`[image](path)` lines in texts, `{type: 'image', path}`
   * parts), as written: the only files the viewer serves besides its own page.
   */
  namedFiles: Set<string>;
  /** The file ended in a partial line (an interrupted run, or a run still writing); it is left out. */
  truncatedTail: boolean;
  /** Bytes of the file up to the end of its last complete line (where indexing goes on). */
  validBytes: number;
  /** The file's size when last indexed. */
  bytes: number;
}

/** A run folder (holding results.jsonl) or the results file itself → both paths. */
function locateRun(run: string): { folder: string; resultsFile: string } {
  const abs = resolve(run);
  const resultsFile = abs.endsWith('.jsonl') ? abs : join(abs, 'results.jsonl');
  if (!existsSync(resultsFile)) throw new ApiaryError('NOT_FOUND', `no results file at ${resultsFile}`);
  return { folder: resolve(resultsFile, '..'), resultsFile };
}

/** How to read the scores: one way for any run, or the way of the run's task (known from its header). */
type ScoringOf = SampleScoring | ((spec: RunSpec) => SampleScoring | Promise<SampleScoring>);

/** What indexing needs to go on from where it stopped (a run still being written grows). */
interface IndexProgress {
  scoringOf: ScoringOf;
  scoring: SampleScoring;
  /** (epoch, id) pairs seen, to flag repeated records. */
  seen: Set<string>;
  metricNames: Set<string>;
  /** Lines read before `validBytes` (for messages naming a line). */
  lines: number;
}
const progress = new WeakMap<RunIndex, IndexProgress>();

/**
 * Reads a results file once, as a stream, and keeps per record only what the sample list shows
 * plus the line's byte range: a sample's output and trace are read again when it is opened.
 * A torn last line is left out; a bad line elsewhere is an input error naming the line.
 * `scoringOf` may depend on the spec (the run's task).
 */
export async function indexRun(run: string, scoringOf: ScoringOf = scoringFor()): Promise<RunIndex> {
  const { folder, resultsFile } = locateRun(run);
  const index: RunIndex = {
    folder,
    resultsFile,
    spec: null as unknown as RunSpec, // set by the header line, checked below
    specVersion: null,
    samples: [],
    metricNames: [],
    hasPass: false,
    blobs: new Map(),
    namedFiles: new Set(),
    truncatedTail: false,
    validBytes: 0,
    bytes: 0,
  };
  progress.set(index, {
    scoringOf,
    scoring: typeof scoringOf === 'function' ? scoringFor() : scoringOf,
    seen: new Set(),
    metricNames: new Set(),
    lines: 0,
  });
  await extendIndex(index);
  if (!index.spec) throw new InputInvalidError({ file: resultsFile, record: 'line 1' }, 'no header record');
  return index;
}

/**
 * Brings an index up to date with its file: records appended since are indexed (from the last
 * complete line, so a tail torn then is read again whole); a file that shrank (a resumed run cut its
 * torn tail) is indexed again from the start. Returns the number of records added.
 */
export async function refreshIndex(index: RunIndex): Promise<number> {
  const size = statSync(index.resultsFile).size;
  if (size === index.bytes) return 0;
  if (size < index.validBytes) {
    const fresh = await indexRun(index.resultsFile, progress.get(index)!.scoringOf);
    progress.set(index, progress.get(fresh)!);
    const before = index.samples.length;
    Object.assign(index, fresh);
    return index.samples.length - before;
  }
  const before = index.samples.length;
  await extendIndex(index);
  return index.samples.length - before;
}

async function extendIndex(index: RunIndex): Promise<void> {
  const state = progress.get(index)!;
  const file = index.resultsFile;
  index.truncatedTail = false;
  let lineNo = state.lines;
  for await (const line of jsonlLines(file, { start: index.validBytes })) {
    lineNo++;
    const text = line.bytes.toString('utf8');
    const record = `line ${lineNo}`;
    let json: unknown;
    // outside the try: a too-deep line is refused, even as an unterminated last line
    checkJsonDepth(text, { file, record });
    if (text.trim() !== '')
      try {
        json = JSON.parse(text);
      } catch (error) {
        if (!line.terminated) {
          index.truncatedTail = true;
          break;
        }
        throw new InputInvalidError({ file, record }, `not valid JSON (${(error as Error).message})`, {
          cause: error,
        });
      }
    if (!line.terminated) {
      index.truncatedTail = text.trim() !== ''; // whole JSON but no newline: the harness drops it too
      break;
    }
    if (json !== undefined && indexLine(index, state, json, text, line, record) === 'header')
      if (typeof state.scoringOf === 'function') state.scoring = await state.scoringOf(index.spec);
    state.lines = lineNo;
    index.validBytes = line.offset + line.length + 1;
  }
  index.metricNames = [...state.metricNames];
  index.bytes = statSync(file).size;
}

function indexLine(
  index: RunIndex,
  state: IndexProgress,
  json: unknown,
  text: string,
  line: { offset: number; length: number },
  record: string,
): 'header' | 'blob' | 'sample' {
  const file = index.resultsFile;
  const type = (json as { type?: unknown } | null)?.type;
  if (type === 'header') {
    if (index.spec) throw new InputInvalidError({ file, record }, 'a second header record');
    // the harness reader maps older spec versions
    const parsed = parseResultsText(`${text}\n`, file);
    index.spec = parsed.header!.spec;
    index.specVersion = parsed.specVersion;
    return 'header';
  }
  if (type === 'blob') {
    const blob = parseWith(BlobLineSchema, json, { file, record });
    index.blobs.set(blob.sha256, { offset: line.offset, length: line.length });
    if (mayNameImages(text)) imagesNamed(blob.text, index.namedFiles);
    return 'blob';
  }
  if (!index.spec) throw new InputInvalidError({ file, record }, 'sample record before the header');
  // the events as written, apart: a kind this version does not know must not hide the record
  const { events, ...rest } = json as { events?: unknown };
  const s = parseWith(SampleLineSchema, rest, { file, record });
  if (mayNameImages(text)) {
    imagesNamed(s.output, index.namedFiles);
    imagesNamed(events, index.namedFiles);
  }
  const metrics = state.scoring.metrics(s.score);
  for (const k of Object.keys(metrics)) state.metricNames.add(k);
  const pass = state.scoring.passed(s.score);
  if (pass !== null) index.hasPass = true;
  const key = `${s.epoch}\u0000${s.id}`;
  index.samples.push({
    n: index.samples.length,
    id: s.id,
    epoch: s.epoch,
    category: s.category,
    error: s.error,
    errorKinds: sampleErrorKinds({ error: s.error, output: s.output, events }),
    metrics,
    passed: pass === null ? null : s.error === null && pass,
    durationMs: s.durationMs,
    modelCalls: s.modelCalls,
    usage: s.usage,
    duplicate: state.seen.has(key),
    offset: line.offset,
    length: line.length,
  });
  state.seen.add(key);
  return 'sample';
}

const IMAGE_LINE = /^\[image\]\((.+)\)$/;

/** Whether a record's JSON text can name an image at all (most do not: skip the walk). */
const mayNameImages = (text: string) => text.includes('[image](') || text.includes('"image"');

/**
 * Image paths a value names, as the page finds them: `[image](path)` lines of its texts and
 * content parts `{type: 'image', path}`.
 */
function imagesNamed(value: unknown, out: Set<string>): void {
  if (typeof value === 'string') {
    if (!value.includes('[image](')) return;
    for (const line of value.split('\n')) {
      const m = IMAGE_LINE.exec(line);
      if (m) out.add(m[1]!);
    }
  } else if (Array.isArray(value)) for (const v of value) imagesNamed(v, out);
  else if (value !== null && typeof value === 'object') {
    const part = value as { type?: unknown; path?: unknown };
    if (part.type === 'image' && typeof part.path === 'string') out.add(part.path);
    else for (const v of Object.values(value)) imagesNamed(v, out);
  }
}

/** The blob references (`{"$blob": sha}`) a value holds. */
function blobRefs(value: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) blobRefs(v, out);
  else if (value !== null && typeof value === 'object') {
    const ref = (value as { $blob?: unknown }).$blob;
    if (typeof ref === 'string' && Object.keys(value).length === 1) out.add(ref);
    else for (const v of Object.values(value)) blobRefs(v, out);
  }
  return out;
}

async function readRange(
  file: string,
  ranges: ReadonlyArray<{ offset: number; length: number }>,
): Promise<string[]> {
  const fh = await open(file, 'r');
  try {
    const out: string[] = [];
    for (const r of ranges) {
      const buf = Buffer.alloc(r.length);
      let got = 0;
      while (got < r.length) {
        const { bytesRead } = await fh.read(buf, got, r.length - got, r.offset + got);
        if (bytesRead === 0) throw new ApiaryError('INPUT_INVALID', `${file} changed while it was viewed`);
        got += bytesRead;
      }
      out.push(buf.toString('utf8'));
    }
    return out;
  } finally {
    await fh.close();
  }
}

/**
 * A sample record as the viewer reads it: its events kept as written, not checked against this
 * version's event schema (sample-view.ts reads them kind by kind).
 */
export type ViewedRecord = Omit<SampleLine, 'events'> & { events?: unknown };

/** One record in full (its long texts put back), read from its byte range; undefined for an unknown n. */
export async function readSampleRecord(index: RunIndex, n: number): Promise<ViewedRecord | undefined> {
  const entry = index.samples[n];
  if (!entry) return undefined;
  const [text] = await readRange(index.resultsFile, [entry]);
  const { events, ...rest } = JSON.parse(text!) as { events?: unknown };
  const line: ViewedRecord = SampleLineSchema.parse(rest);
  if (events !== undefined) line.events = events;
  const refs = [...blobRefs([line.output, line.events], new Set())].filter((sha) => index.blobs.has(sha));
  if (refs.length) {
    const texts = await readRange(
      index.resultsFile,
      refs.map((sha) => index.blobs.get(sha)!),
    );
    const map = new Map(refs.map((sha, i) => [sha, (JSON.parse(texts[i]!) as { text: string }).text]));
    line.output = restoreBlobRefs(line.output, map);
    if (line.events !== undefined) line.events = restoreBlobRefs(line.events, map);
  }
  return line;
}
