import { InputInvalidError } from '../../shared/index.js';
import { type Json, type JsonObject, LosslessNumber, setOwn } from './json-value.js';

/**
 * Our own reader of binary property lists (`bplist00`: header, object table, offset table, 32-byte
 * trailer), straight to the lossless JSON of `plistToJson`. The `plist` package expands every
 * reference as it goes: objects may be shared, so 500 bytes whose arrays each hold the next one
 * twice expand 2^40 times (over 60 s and 3.5 GB), and a reference to itself overflows the stack.
 *
 * Here a first pass visits each object of the table once and memoises how many nodes it expands to
 * (a cycle is refused); the file is refused when the whole tree would exceed
 * {@link BINARY_PLIST_LIMITS}.maxNodes or nest deeper than maxDepth. Only then is the tree built,
 * which costs at most maxNodes. The output is a tree (no shared objects), as before.
 */
export const BINARY_PLIST_LIMITS = {
  /**
   * Nodes (values, dictionary keys included) of the expanded tree. A real shortcut has at most a few
   * thousand actions of a few dozen nodes each (~10^5); a million leaves room for ten times the
   * largest and keeps the tree to a few hundred MB at worst.
   */
  maxNodes: 1_000_000,
  /** Nesting of arrays and dictionaries. Shortcuts nest a dozen levels; 1000 is Python's recursion limit. */
  maxDepth: 1000,
};

export interface BinaryPlistLimits {
  maxNodes: number;
  maxDepth: number;
}

const EPOCH_2001_MS = 978_307_200_000;
const TRAILER_BYTES = 32;

/** An object's marker decoded: type nibble, and where its payload starts with how many elements/bytes. */
interface ObjectHead {
  type: number;
  marker: number;
  count: number;
  body: number;
}

export function readBinaryPlist(
  bytes: Uint8Array,
  file: string,
  limits: BinaryPlistLimits = BINARY_PLIST_LIMITS,
): Json {
  const bad = (problem: string): never => {
    throw new InputInvalidError({ file }, `not a readable binary-plist: ${problem}`);
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 8 + TRAILER_BYTES) bad(`${bytes.length} bytes is too short`);
  const trailer = bytes.length - TRAILER_BYTES;

  const uint = (at: number, size: number, what: string): number => {
    if (size < 1 || size > 8) bad(`${what}: ${size}-byte integers are not supported`);
    if (at < 0 || at + size > bytes.length) bad(`${what} at byte ${at} lies outside the file`);
    let v = 0;
    for (let i = 0; i < size; i++) v = v * 256 + bytes[at + i]!;
    if (!Number.isSafeInteger(v)) bad(`${what} ${v} is too large`);
    return v;
  };

  const offsetSize = bytes[trailer + 6]!;
  const refSize = bytes[trailer + 7]!;
  const objectCount = uint(trailer + 8, 8, 'object count');
  const top = uint(trailer + 16, 8, 'top object');
  const tableAt = uint(trailer + 24, 8, 'offset table');
  if (offsetSize < 1 || offsetSize > 8 || refSize < 1 || refSize > 8)
    bad(`offset size ${offsetSize} / reference size ${refSize} (each must be 1 to 8)`);
  if (objectCount === 0 || tableAt + objectCount * offsetSize > trailer)
    bad(`an offset table of ${objectCount} objects at byte ${tableAt} does not fit before the trailer`);
  if (top >= objectCount) bad(`top object ${top} of ${objectCount}`);

  const offsetOf = (index: number): number => {
    const at = uint(tableAt + index * offsetSize, offsetSize, `offset of object ${index}`);
    if (at < 8 || at >= tableAt) bad(`object ${index} at byte ${at} lies outside the object table`);
    return at;
  };

  const head = (index: number): ObjectHead => {
    const at = offsetOf(index);
    const marker = bytes[at]!;
    const type = marker >> 4;
    let count = marker & 0x0f;
    let body = at + 1;
    // strings, data and collections give a larger length as an int object that follows
    if (count === 0x0f && (type === 0x4 || type === 0x5 || type === 0x6 || type === 0xa || type === 0xd)) {
      const intMarker = bytes[body];
      if (intMarker === undefined || intMarker >> 4 !== 0x1) bad(`object ${index}: bad length marker`);
      const size = 1 << (intMarker! & 0x0f);
      count = uint(body + 1, size, `length of object ${index}`);
      body += 1 + size;
    }
    return { type, marker, count, body };
  };

  const ref = (h: ObjectHead, i: number, index: number): number => {
    const r = uint(h.body + i * refSize, refSize, `reference ${i} of object ${index}`);
    if (r >= objectCount) bad(`object ${index} refers to object ${r} of ${objectCount}`);
    return r;
  };

  const inTable = (at: number, length: number, index: number): void => {
    if (at + length > tableAt)
      bad(`object ${index}: ${length} bytes at byte ${at} run past the object table`);
  };

  // Pass 1: expanded size of each object, each visited once; -1 marks one being visited (a cycle).
  const expanded = new Float64Array(objectCount);
  const children = (h: ObjectHead, index: number): number[] => {
    const n = h.type === 0xd ? 2 * h.count : h.count;
    inTable(h.body, n * refSize, index);
    const out: number[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = ref(h, i, index);
    return out;
  };
  const measure = (index: number, depth: number): number => {
    const known = expanded[index]!;
    if (known > 0) return known;
    if (known < 0) bad(`object ${index} contains itself (a reference cycle)`);
    const h = head(index);
    let size = 1;
    if (h.type === 0xa || h.type === 0xd) {
      if (depth >= limits.maxDepth)
        bad(`nested deeper than ${limits.maxDepth} levels (the limit for a shortcut)`);
      expanded[index] = -1;
      for (const child of children(h, index)) {
        size += measure(child, depth + 1);
        if (size > limits.maxNodes)
          bad(
            `expands to more than ${limits.maxNodes.toLocaleString('en-US')} values ` +
              '(the limit for a shortcut; its objects are shared many times over)',
          );
      }
    }
    expanded[index] = size;
    return size;
  };
  measure(top, 0);

  // Pass 2: the tree, within the budget just checked. Strings are immutable: each is decoded once.
  const strings = new Map<number, string>();
  const build = (index: number): Json => {
    const cached = strings.get(index);
    if (cached !== undefined) return cached;
    const h = head(index);
    switch (h.type) {
      case 0x0:
        if (h.marker === 0x00) return null;
        if (h.marker === 0x08) return false;
        if (h.marker === 0x09) return true;
        return bad(`object ${index}: unknown marker 0x${h.marker.toString(16)}`);
      case 0x1:
        return integer(h, index);
      case 0x2:
        return real(h, index);
      case 0x3: {
        inTable(h.body, 8, index);
        const date = new Date(view.getFloat64(h.body) * 1000 + EPOCH_2001_MS);
        if (Number.isNaN(date.getTime())) bad(`object ${index}: a date out of range`);
        return remember(index, date.toISOString());
      }
      case 0x4:
        inTable(h.body, h.count, index);
        return remember(index, Buffer.from(bytes.subarray(h.body, h.body + h.count)).toString('base64'));
      case 0x5:
        inTable(h.body, h.count, index);
        return remember(index, Buffer.from(bytes.subarray(h.body, h.body + h.count)).toString('latin1'));
      case 0x6:
        inTable(h.body, 2 * h.count, index);
        return remember(index, utf16be(h.body, h.count));
      case 0x8: {
        const uid = uint(h.body, (h.marker & 0x0f) + 1, `UID of object ${index}`);
        return { UID: new LosslessNumber(String(uid)) };
      }
      case 0xa:
        return children(h, index).map(build);
      case 0xd: {
        const refs = children(h, index);
        const out: JsonObject = {};
        for (let i = 0; i < h.count; i++) {
          const key = build(refs[i]!);
          if (typeof key !== 'string') bad(`object ${index}: dictionary key ${i} is not a string`);
          setOwn(out, key as string, build(refs[h.count + i]!));
        }
        return out;
      }
      default:
        return bad(`object ${index}: unknown object type 0x${h.type.toString(16)}`);
    }
  };
  const remember = (index: number, s: string): string => {
    strings.set(index, s);
    return s;
  };

  /** Ints of 1, 2 and 4 bytes are unsigned, of 8 and 16 bytes signed (two's complement). */
  const integer = (h: ObjectHead, index: number): Json => {
    const size = 1 << (h.marker & 0x0f);
    if (size > 16) bad(`object ${index}: ${size}-byte integer`);
    inTable(h.body, size, index);
    let v = 0n;
    for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(bytes[h.body + i]!);
    if (size >= 8 && bytes[h.body]! >= 0x80) v -= 1n << BigInt(8 * size);
    return new LosslessNumber(v.toString());
  };

  /** As `plistToJson` writes a JS number: integral values as ints (known limit), others as floats. */
  const real = (h: ObjectHead, index: number): Json => {
    const size = 1 << (h.marker & 0x0f);
    if (size !== 4 && size !== 8) bad(`object ${index}: ${size}-byte real`);
    inTable(h.body, size, index);
    const v = size === 4 ? view.getFloat32(h.body) : view.getFloat64(h.body);
    if (!Number.isFinite(v)) return String(v);
    if (Number.isInteger(v) && Math.abs(v) < 1e21) return new LosslessNumber(v.toFixed(0));
    const s = String(v);
    return new LosslessNumber(/[.eE]/.test(s) ? s : `${s}.0`);
  };

  /** UTF-16 code units as they are (a lone surrogate included), in chunks the call stack can take. */
  const utf16be = (at: number, units: number): string => {
    const parts: string[] = [];
    const chunk: number[] = [];
    for (let i = 0; i < units; i++) {
      chunk.push(view.getUint16(at + 2 * i));
      if (chunk.length === 8192) {
        parts.push(String.fromCharCode(...chunk));
        chunk.length = 0;
      }
    }
    parts.push(String.fromCharCode(...chunk));
    return parts.join('');
  };

  return build(top);
}
