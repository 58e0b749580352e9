import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { z } from 'zod';
import { type ContentPart, ContentPartSchema } from '../../apps/index.js';
import {
  ApiaryError,
  type ErrorCode,
  InputInvalidError,
  parseJsonText,
  parseWith,
  sha256Hex,
} from '../../shared/index.js';

/**
 * A recording of tool calls: a folder with `index.jsonl` (one recorded call a line, the last line
 * of a key wins) and `files/` (output files named by their sha256). Shared between users, it makes
 * everyone's runs use the same tool outputs.
 */

export const RECORDING_INDEX = 'index.jsonl';
const RECORDING_FILES = 'files';

/** `record`: run every call and record it; `replay`: only recorded calls (a miss fails); `record-missing`: replay, run and record misses. */
export const RECORD_MODES = ['record', 'replay', 'record-missing'] as const;
export type RecordMode = (typeof RECORD_MODES)[number];

const RecordedFileSchema = z.object({
  /** Path inside the recording (`files/<sha256><ext>`). */
  file: z.string(),
  /** The file's name as the tool wrote it; replay writes it under this name. */
  name: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
});
export type RecordedFile = z.infer<typeof RecordedFileSchema>;

const OutcomeSchema = z.discriminatedUnion('kind', [
  /** Content parts; image and file parts point into the recording (`files/…`). */
  z.object({ kind: z.literal('content'), content: z.array(ContentPartSchema) }),
  /** A result that is not content parts (a record or rows), kept as JSON. */
  z.object({ kind: z.literal('result'), result: z.unknown() }),
  /** The tool refused or failed: replay raises the same error. */
  z.object({ kind: z.literal('error'), code: z.string(), message: z.string() }),
]);

const RecordedToolCallSchema = z.object({
  key: z.string(),
  tool: z.string(),
  api: z.string(),
  args: z.record(z.string(), z.unknown()),
  inputs: z.record(z.string(), z.string()),
  outcome: OutcomeSchema,
  files: z.array(RecordedFileSchema),
});
export type RecordedToolCall = z.infer<typeof RecordedToolCallSchema>;

/** What a run did with its recording; misses are never hidden inside hits. */
export interface RecordingStats {
  /** Calls answered from the recording. */
  hits: number;
  /** Calls not in the recording (in `replay` mode each failed; in `record-missing` each ran). */
  misses: number;
  /** Calls that ran the tool. */
  runs: number;
  /** Calls added to the recording. */
  recorded: number;
}

const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** `3 hits, 1 miss, 1 run, 1 recorded`: the line a run prints about its recording. */
export function formatRecordingStats(s: RecordingStats): string {
  return `${plural(s.hits, 'hit')}, ${plural(s.misses, 'miss', 'misses')}, ${plural(s.runs, 'run')}, ${s.recorded} recorded`;
}

export class ToolRecording {
  readonly stats: RecordingStats = { hits: 0, misses: 0, runs: 0, recorded: 0 };
  private readonly calls = new Map<string, RecordedToolCall>();
  private readonly index: string;

  /** Opens (and in recording modes creates) a recording folder; a malformed index line is an error naming it. */
  constructor(
    readonly dir: string,
    readonly mode: RecordMode,
  ) {
    this.index = join(dir, RECORDING_INDEX);
    if (!existsSync(this.index)) {
      if (mode === 'replay')
        throw new ApiaryError('NOT_FOUND', `no recording at ${dir} (${RECORDING_INDEX} is missing)`);
      mkdirSync(join(dir, RECORDING_FILES), { recursive: true });
      return;
    }
    const lines = readFileSync(this.index, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      const where = { file: this.index, record: `line ${i + 1}` };
      const call = parseWith(RecordedToolCallSchema, parseJsonText(line, `${this.index}:${i + 1}`), where);
      this.calls.set(call.key, call);
    });
  }

  get size(): number {
    return this.calls.size;
  }

  lookup(key: string): RecordedToolCall | undefined {
    return this.calls.get(key);
  }

  /** Checks a recorded file against its checksum and copies it to `outputDir` under its original name. */
  restoreFile(file: RecordedFile, outputDir: string): string {
    const src = join(this.dir, file.file);
    if (!existsSync(src))
      throw new ApiaryError(
        'INPUT_INVALID',
        `recording ${this.dir}: ${file.file} is missing (recorded as ${file.name})`,
      );
    const actual = sha256Hex(readFileSync(src));
    if (actual !== file.sha256)
      throw new ApiaryError(
        'INPUT_INVALID',
        `recording ${this.dir}: ${file.file} is corrupted (sha256 ${actual}, recorded ${file.sha256}); restore the file or record the call again`,
      );
    mkdirSync(outputDir, { recursive: true });
    const dest = join(outputDir, file.name);
    copyFileSync(src, dest);
    return dest;
  }

  /** Copies an output file into the recording, named by its content. */
  storeFile(path: string): RecordedFile {
    const bytes = readFileSync(path);
    const sha256 = sha256Hex(bytes);
    const file = `${RECORDING_FILES}/${sha256}${extname(path)}`;
    const dest = join(this.dir, file);
    if (!existsSync(dest)) {
      mkdirSync(join(this.dir, RECORDING_FILES), { recursive: true });
      copyFileSync(path, dest);
    }
    return { file, name: basename(path), sha256, bytes: bytes.length };
  }

  /** Appends a call to the index (one line, so an interrupted run keeps every complete call). */
  add(call: RecordedToolCall): void {
    appendFileSync(this.index, `${JSON.stringify(call)}\n`);
    this.calls.set(call.key, call);
    this.stats.recorded++;
  }
}

/** A recorded error as the ApiaryError the tool threw. */
export function recordedError(code: string, message: string): ApiaryError {
  return new ApiaryError(code as ErrorCode, message);
}

/** Content parts with their files moved into the recording, and the list of those files. */
export function recordContent(
  recording: ToolRecording,
  content: readonly ContentPart[],
): { content: ContentPart[]; files: RecordedFile[] } {
  const files: RecordedFile[] = [];
  const parts = content.map((part) => {
    if (part.type !== 'image' && part.type !== 'file') return part;
    const stored = recording.storeFile(part.path);
    files.push(stored);
    return { ...part, path: stored.file };
  });
  return { content: parts, files };
}

/** Recorded content parts with their files restored (checksums verified) into `outputDir`. */
export function replayContent(
  recording: ToolRecording,
  call: RecordedToolCall,
  outputDir: string,
): ContentPart[] {
  if (call.outcome.kind !== 'content') return [];
  const byPath = new Map(call.files.map((f) => [f.file, f]));
  return call.outcome.content.map((part) => {
    if (part.type !== 'image' && part.type !== 'file') return part;
    const file = byPath.get(part.path);
    if (!file)
      throw new InputInvalidError(
        { file: join(recording.dir, RECORDING_INDEX), record: call.key, field: 'files' },
        `content part ${part.path} has no file entry`,
      );
    return { ...part, path: recording.restoreFile(file, outputDir) };
  });
}
