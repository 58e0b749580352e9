import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import { InputInvalidError } from '../shared/index.js';
import { align8, headerError, readBinaryHeader, writeBinaryFile } from './binary-file.js';
import { Bm25Index, type Bm25Parts } from './bm25.js';
import { plainAnalyze } from './build-retriever.js';
import type { DenseModel } from './dense-encoder.js';
import { denseConfigSchema, denseModelProblem } from './dense-model-file.js';
import type { FieldIndexes } from './field-features.js';
import type { RankerModel } from './linear-ranker.js';
import { TermTable } from './term-table.js';
import { type DocWordLists, docWordListsProblem } from './word-match.js';

/**
 * Retrieval index files (`.apix`): every BM25 index a catalog's lexical retrievers and `ranked`
 * need, so a process loads them instead of re-analysing the corpus (6–15 s on ToolBench).
 *
 * Layout: the 8 bytes "APIX0001", u32 LE header length, the JSON header (`IndexHeader`), zero
 * padding to 8 bytes, then the sections (typed arrays and UTF-8 text) each 8-byte aligned at the
 * offsets the header lists. The header records the format version, the catalog's content hash
 * (a changed catalog makes the file stale) and a CRC-32 of the section bytes (a damaged file is
 * refused with a clear error instead of giving wrong rankings). Version 3 added the optional
 * dense encoder and its document vectors (`dense.*` sections), version 4 the documents' word
 * lists for the dense retriever's word matching, version 5 the groups' families (`familyOf`, the
 * ToolBench categories `family.coverage` needs: a version-4 file would silently score it 0);
 * older files are refused with a "rebuild" message.
 */
export const INDEX_FORMAT_VERSION = 5;
const MAGIC = 'APIX0001';

const bm25Meta = z.object({ k1: z.number(), b: z.number(), size: z.number().int().min(0) });
const section = z.object({
  name: z.string(),
  type: z.enum(['f32', 'u32', 'utf8']),
  offset: z.number().int().min(0),
  length: z.number().int().min(0),
});
const rankerSchema = z.object({
  weights: z.record(z.string(), z.number()),
  scaled: z.array(z.string()),
  info: z.record(z.string(), z.unknown()).optional(),
});
const headerSchema = z.object({
  format: z.literal('apiary-retrieval-index'),
  version: z.number().int(),
  catalog: z.string(),
  catalogHash: z.string(),
  size: z.number().int().min(0),
  /** BM25 indexes by field name (text, second, name, description, group.*, plain). */
  bm25: z.record(z.string(), bm25Meta),
  groups: z.number().int().min(0).optional(),
  ranker: rankerSchema.optional(),
  /**
   * The dense encoder (sections dense.vocabulary, dense.weights, dense.table, dense.vectors, and
   * the word lists dense.words, dense.wordOffsets, dense.wordIds).
   */
  dense: z.object({ config: denseConfigSchema, info: z.record(z.string(), z.unknown()) }).optional(),
  info: z.record(z.string(), z.unknown()),
  sections: z.array(section),
  crc32: z.number().int(),
});
type IndexHeader = z.infer<typeof headerSchema>;

/** What an index file holds. */
export interface RetrievalIndex {
  /** Catalog name (toolbench, appbench, …). */
  catalog: string;
  /** Content hash of the catalog the indexes were built from (`sha256Hex`). */
  catalogHash: string;
  indexes: FieldIndexes;
  /** The `bm25-plain` index. */
  plain?: Bm25Index;
  /** Weights of `ranked` (copied from a model file at build time). */
  ranker?: RankerModel;
  /** The dense encoder, the document vectors it made (n × dim, L2-normalised) and the documents' words. */
  dense?: { model: DenseModel; vectors: Float32Array; docWords: DocWordLists };
  /** A printable label and a one-line detail per document (so a query needs no corpus). */
  labels?: string[];
  details?: string[];
  /** Provenance: build seconds, model file, … */
  info?: Record<string, unknown>;
}

const INDEX_FIELDS = ['text', 'second', 'name', 'description'] as const;
const GROUP_FIELDS = [
  ['group.text', 'text'],
  ['group.text.b03', 'textB03'],
  ['group.text.k2b05', 'textK2'],
  ['group.name', 'name'],
  ['group.description', 'description'],
] as const;

/** The named BM25 indexes of a RetrievalIndex, in file order. */
function namedIndexes(index: RetrievalIndex): Array<[string, Bm25Index]> {
  const out: Array<[string, Bm25Index]> = [];
  const ix = index.indexes;
  for (const f of INDEX_FIELDS) {
    const b = ix[f];
    if (b) out.push([f, b]);
  }
  if (ix.group) for (const [name, key] of GROUP_FIELDS) if (ix.group[key]) out.push([name, ix.group[key]]);
  if (index.plain) out.push(['plain', index.plain]);
  return out;
}

/** Writes an index file (temp file + rename, so a reader never sees half a file). */
export function saveRetrievalIndex(path: string, index: RetrievalIndex): void {
  const sections: IndexHeader['sections'] = [];
  const chunks: Uint8Array[] = [];
  let offset = 0;
  const add = (name: string, type: 'f32' | 'u32' | 'utf8', data: Uint8Array) => {
    sections.push({ name, type, offset, length: data.byteLength });
    chunks.push(data);
    const padded = align8(data.byteLength);
    if (padded > data.byteLength) chunks.push(new Uint8Array(padded - data.byteLength));
    offset += padded;
  };
  const bytes = (a: Float32Array | Uint32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const bm25: IndexHeader['bm25'] = {};
  for (const [name, b] of namedIndexes(index)) {
    const p = b.toParts();
    bm25[name] = { k1: p.k1, b: p.b, size: p.size };
    const table = p.termTable ?? TermTable.build(p.vocabulary ?? []);
    const t = table.arrays;
    add(`${name}.termSlots`, 'u32', bytes(t.slots));
    add(`${name}.termOffsets`, 'u32', bytes(t.offsets));
    add(`${name}.termBytes`, 'utf8', t.bytes);
    add(`${name}.idf`, 'f32', bytes(p.idf));
    add(`${name}.offsets`, 'u32', bytes(p.offsets));
    add(`${name}.postDocs`, 'u32', bytes(p.postDocs));
    add(`${name}.postWeights`, 'f32', bytes(p.postWeights));
  }
  const g = index.indexes.group;
  if (g) add('groupOf', 'u32', bytes(g.groupOf));
  if (g?.familyOf) add('familyOf', 'u32', bytes(g.familyOf));
  const dense = index.dense;
  if (dense) {
    add('dense.vocabulary', 'utf8', Buffer.from(JSON.stringify(dense.model.vocabulary), 'utf8'));
    add('dense.weights', 'f32', bytes(dense.model.weights));
    add('dense.table', 'f32', bytes(dense.model.table));
    add('dense.vectors', 'f32', bytes(dense.vectors));
    add('dense.words', 'utf8', Buffer.from(JSON.stringify(dense.docWords.words), 'utf8'));
    add('dense.wordOffsets', 'u32', bytes(dense.docWords.offsets));
    add('dense.wordIds', 'u32', bytes(dense.docWords.ids));
  }
  if (index.labels) add('labels', 'utf8', Buffer.from(JSON.stringify(index.labels), 'utf8'));
  if (index.details) add('details', 'utf8', Buffer.from(JSON.stringify(index.details), 'utf8'));
  let crc = 0;
  for (const c of chunks) crc = crc32(c, crc);
  const header: IndexHeader = {
    format: 'apiary-retrieval-index',
    version: INDEX_FORMAT_VERSION,
    catalog: index.catalog,
    catalogHash: index.catalogHash,
    size: index.indexes.text.size,
    bm25,
    ...(g ? { groups: g.count } : {}),
    ...(index.ranker
      ? { ranker: { weights: { ...index.ranker.weights }, scaled: [...index.ranker.scaled] } }
      : {}),
    ...(dense ? { dense: { config: dense.model.config, info: dense.model.info } } : {}),
    info: index.info ?? {},
    sections,
    crc32: crc,
  };
  writeBinaryFile(path, MAGIC, header, chunks);
}

/** What `readRetrievalIndexInfo` tells without reading the sections. */
export interface IndexFileInfo {
  version: number;
  catalog: string;
  catalogHash: string;
  size: number;
  info: Record<string, unknown>;
}

function parseHeader(path: string, buf: Buffer): { header: IndexHeader; base: number } {
  const bad = (problem: string, field?: string) => headerError(path, problem, field);
  const { raw, base } = readBinaryHeader(path, buf, MAGIC, {
    notA: 'an apiary retrieval index',
    fix: 'rebuild it with `apiary retrieve index build`',
  });
  const version = (raw as { version?: unknown })?.version;
  if (version !== INDEX_FORMAT_VERSION)
    throw bad(
      `format version ${String(version)}, this apiary reads version ${INDEX_FORMAT_VERSION}; rebuild it with \`apiary retrieve index build\``,
      'version',
    );
  const parsed = headerSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw bad(issue?.message ?? 'invalid header', issue?.path.join('.'));
  }
  return { header: parsed.data, base };
}

/** Reads an index file: throws `InputInvalidError` (never a crash) for a foreign, old-version, truncated or damaged file. */
export function loadRetrievalIndex(path: string): RetrievalIndex {
  const buf = readFileSync(path);
  const { header, base } = parseHeader(path, buf);
  const bad = (problem: string, field: string) =>
    new InputInvalidError({ file: path, record: 'section', field }, problem);
  const end = header.sections.reduce((m, s) => Math.max(m, base + align8(s.offset + s.length)), base);
  if (end > buf.byteLength) throw bad(`file is truncated (${buf.byteLength} of ${end} bytes)`, 'sections');
  if (crc32(buf.subarray(base, end)) !== header.crc32)
    throw bad(
      'checksum mismatch: the file is damaged; rebuild it with `apiary retrieve index build`',
      'crc32',
    );
  const byName = new Map(header.sections.map((s) => [s.name, s]));
  const get = (name: string) => {
    const s = byName.get(name);
    if (!s) throw bad('missing section', name);
    return s;
  };
  // copy into fresh, aligned buffers only when the file buffer's offset is not 4-byte aligned
  const u32 = (name: string): Uint32Array => {
    const s = get(name);
    const at = buf.byteOffset + base + s.offset;
    return at % 4 === 0
      ? new Uint32Array(buf.buffer, at, s.length / 4)
      : new Uint32Array(buf.buffer.slice(at, at + s.length));
  };
  const f32 = (name: string): Float32Array => {
    const s = get(name);
    const at = buf.byteOffset + base + s.offset;
    return at % 4 === 0
      ? new Float32Array(buf.buffer, at, s.length / 4)
      : new Float32Array(buf.buffer.slice(at, at + s.length));
  };
  const text = (name: string): string => {
    const s = get(name);
    return buf.toString('utf8', base + s.offset, base + s.offset + s.length);
  };
  const bm25 = (name: string): Bm25Index | undefined => {
    const meta = header.bm25[name];
    if (!meta) return undefined;
    const termBytes = get(`${name}.termBytes`);
    const termSlots = u32(`${name}.termSlots`);
    const termOffsets = u32(`${name}.termOffsets`);
    if (termOffsets.length < 1 || termOffsets[termOffsets.length - 1] !== termBytes.length)
      throw bad('term offsets do not end at the size of the term bytes', name);
    if (
      termSlots.length === 0 ||
      termSlots.length & (termSlots.length - 1) ||
      termSlots.length < termOffsets.length - 1
    )
      throw bad('term slots are not a power of two above the term count', name);
    const termTable = new TermTable({
      slots: termSlots,
      offsets: termOffsets,
      bytes: new Uint8Array(buf.buffer, buf.byteOffset + base + termBytes.offset, termBytes.length),
    });
    const parts: Bm25Parts = {
      ...meta,
      termTable,
      idf: f32(`${name}.idf`),
      offsets: u32(`${name}.offsets`),
      postDocs: u32(`${name}.postDocs`),
      postWeights: f32(`${name}.postWeights`),
    };
    if (parts.offsets.length !== termTable.size + 1 || parts.idf.length !== termTable.size)
      throw bad('terms, idf and offsets disagree in length', name);
    if (parts.offsets[termTable.size] !== parts.postDocs.length)
      throw bad('offsets do not end at the number of postings', name);
    return new Bm25Index(null, name === 'plain' ? { analyze: plainAnalyze } : {}, parts);
  };
  const textIndex = bm25('text');
  if (!textIndex) throw bad('missing BM25 index', 'text');
  const opt = <K extends string>(key: K, b: Bm25Index | undefined) => (b ? { [key]: b } : {});
  const familyOfSection = (groups: number): Uint32Array => {
    const f = u32('familyOf');
    if (f.length !== groups) throw bad(`${f.length} families for ${groups} groups`, 'familyOf');
    return f;
  };
  let group: FieldIndexes['group'];
  if (header.groups !== undefined) {
    const groupText = bm25('group.text');
    const b03 = bm25('group.text.b03');
    const k2 = bm25('group.text.k2b05');
    if (!groupText || !b03 || !k2) throw bad('missing group index', 'group.text');
    group = {
      groupOf: u32('groupOf'),
      count: header.groups,
      ...(byName.has('familyOf') ? { familyOf: familyOfSection(header.groups) } : {}),
      text: groupText,
      textB03: b03,
      textK2: k2,
      ...opt('name', bm25('group.name')),
      ...opt('description', bm25('group.description')),
    };
  }
  const plain = bm25('plain');
  const out: RetrievalIndex = {
    catalog: header.catalog,
    catalogHash: header.catalogHash,
    indexes: {
      text: textIndex,
      ...opt('second', bm25('second')),
      ...opt('name', bm25('name')),
      ...opt('description', bm25('description')),
      ...(group ? { group } : {}),
    },
    ...(plain ? { plain } : {}),
    ...(header.ranker ? { ranker: { weights: header.ranker.weights, scaled: header.ranker.scaled } } : {}),
    info: header.info,
  };
  if (header.dense) {
    const model: DenseModel = {
      config: header.dense.config,
      info: header.dense.info,
      vocabulary: JSON.parse(text('dense.vocabulary')) as string[],
      weights: f32('dense.weights'),
      table: f32('dense.table'),
    };
    const problem = denseModelProblem(model);
    if (problem) throw bad(problem, 'dense.table');
    const vectors = f32('dense.vectors');
    if (vectors.length !== header.size * model.config.dim)
      throw bad(
        `${vectors.length} floats for ${header.size} documents × ${model.config.dim}`,
        'dense.vectors',
      );
    const docWords: DocWordLists = {
      words: JSON.parse(text('dense.words')) as string[],
      offsets: u32('dense.wordOffsets'),
      ids: u32('dense.wordIds'),
    };
    const wordsProblem = docWordListsProblem(docWords, header.size);
    if (wordsProblem) throw bad(wordsProblem, 'dense.wordIds');
    out.dense = { model, vectors, docWords };
  }
  // labels and details are parsed on first use (a query prints 5 of 46,802; eval none)
  for (const name of ['labels', 'details'] as const)
    if (byName.has(name)) {
      let value: string[] | undefined;
      Object.defineProperty(out, name, {
        enumerable: true,
        get: () => {
          value ??= JSON.parse(text(name)) as string[];
          return value;
        },
      });
    }
  return out;
}

/** The header of an index file (catalog, its hash, provenance), reading only the header's bytes. */
export function readRetrievalIndexInfo(path: string): IndexFileInfo {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(12);
    const got = readSync(fd, head, 0, 12, 0);
    const len = got === 12 && head.toString('latin1', 0, 8) === MAGIC ? head.readUInt32LE(8) : 0;
    const buf = Buffer.alloc(12 + len);
    head.copy(buf, 0, 0, got);
    if (len) readSync(fd, buf, 12, len, 12);
    const { header } = parseHeader(path, buf.subarray(0, got < 12 ? got : buf.length));
    return {
      version: header.version,
      catalog: header.catalog,
      catalogHash: header.catalogHash,
      size: header.size,
      info: header.info,
    };
  } finally {
    closeSync(fd);
  }
}
