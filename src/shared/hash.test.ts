import { describe, expect, it } from 'vitest';
import { fnv1a32, fnv1a32Bytes, sha256Hex } from './hash.js';

describe('fnv1a32', () => {
  it('matches the FNV-1a 32-bit reference values', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
    expect(fnv1a32('apiary')).toBe(690260251);
  });

  it('hashes UTF-16 code units, so non-ASCII text differs from its UTF-8 byte hash', () => {
    expect(fnv1a32('é')).toBe(1812687940);
    expect(fnv1a32Bytes(Buffer.from('é', 'utf8'))).toBe(513665217);
  });
});

describe('fnv1a32Bytes', () => {
  it('equals the string hash on ASCII and hashes only the given slice', () => {
    const bytes = Buffer.from('xxfoobaryy');
    expect(fnv1a32Bytes(Buffer.from('foobar'))).toBe(0xbf9cf968);
    expect(fnv1a32Bytes(bytes, 2, 8)).toBe(0xbf9cf968);
    expect(fnv1a32Bytes(bytes, 3, 3)).toBe(0x811c9dc5);
  });
});

describe('sha256Hex', () => {
  it('hashes strings as UTF-8 and bytes as they are', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex(Buffer.from('abc'))).toBe(sha256Hex('abc'));
    expect(sha256Hex('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });
});
