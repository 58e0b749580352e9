import { fnv1a32 } from '../shared/index.js';

/** The arrays of a term table, as an index file stores them. */
export interface TermTableParts {
  /** Open-addressing slots (power-of-two length): term id + 1, 0 = empty. */
  slots: Uint32Array;
  /** UTF-8 bytes of term i: bytes[offsets[i], offsets[i + 1]). */
  offsets: Uint32Array;
  bytes: Uint8Array;
}

const decoder = new TextDecoder();

/**
 * A read-only term → id dictionary over typed arrays: FNV-1a (over UTF-16 code units) into a
 * linear-probing table, terms compared against their UTF-8 bytes. Loading one is free (views on
 * the file buffer), where a `Map` of the ~340,000 ToolBench index terms takes 0.2–0.4 s to build.
 */
export class TermTable {
  readonly size: number;
  private readonly mask: number;
  constructor(private readonly parts: TermTableParts) {
    this.size = parts.offsets.length - 1;
    this.mask = parts.slots.length - 1;
    if (parts.slots.length & this.mask) throw new RangeError('term table slots must be a power of two');
  }

  static build(vocabulary: readonly string[]): TermTable {
    const encoder = new TextEncoder();
    const encoded = vocabulary.map((t) => encoder.encode(t));
    const offsets = new Uint32Array(vocabulary.length + 1);
    encoded.forEach((e, i) => {
      offsets[i + 1] = (offsets[i] as number) + e.length;
    });
    const bytes = new Uint8Array(offsets[vocabulary.length] as number);
    encoded.forEach((e, i) => {
      bytes.set(e, offsets[i] as number);
    });
    let cap = 2;
    while (cap < vocabulary.length * 2) cap *= 2;
    const slots = new Uint32Array(cap);
    const mask = cap - 1;
    vocabulary.forEach((t, id) => {
      let s = fnv1a32(t) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = id + 1;
    });
    return new TermTable({ slots, offsets, bytes });
  }

  get arrays(): TermTableParts {
    return this.parts;
  }

  /** Does term id's UTF-8 spelling equal `term`? (ASCII compared byte by byte, else decoded.) */
  private equals(id: number, term: string): boolean {
    const { offsets, bytes } = this.parts;
    const start = offsets[id] as number;
    const end = offsets[id + 1] as number;
    if (end - start === term.length) {
      let ascii = true;
      for (let i = 0; i < term.length; i++) {
        const c = term.charCodeAt(i);
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        if (bytes[start + i] !== c) return false;
      }
      if (ascii) return true;
    } else {
      // a pure-ASCII term has as many bytes as characters: a length mismatch rules it out
      let ascii = true;
      for (let i = 0; i < term.length && ascii; i++) if (term.charCodeAt(i) >= 0x80) ascii = false;
      if (ascii) return false;
    }
    return decoder.decode(bytes.subarray(start, end)) === term;
  }

  get(term: string): number | undefined {
    const { slots } = this.parts;
    let s = fnv1a32(term) & this.mask;
    for (;;) {
      const v = slots[s] as number;
      if (v === 0) return undefined;
      if (this.equals(v - 1, term)) return v - 1;
      s = (s + 1) & this.mask;
    }
  }

  /** Every term, in id order (decoded). */
  terms(): string[] {
    const { offsets, bytes } = this.parts;
    const out: string[] = [];
    for (let i = 0; i < this.size; i++)
      out.push(decoder.decode(bytes.subarray(offsets[i] as number, offsets[i + 1] as number)));
    return out;
  }
}
