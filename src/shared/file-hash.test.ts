import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256OfFiles } from './file-hash.js';

describe('sha256OfFiles', () => {
  it('hashes name, length and bytes of each file in order', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-hash-'));
    writeFileSync(join(dir, 'a.json'), 'ab');
    writeFileSync(join(dir, 'b.json'), 'c');
    const expected = createHash('sha256')
      .update('a.json\u00002\u0000ab')
      .update('b.json\u00001\u0000c')
      .digest('hex');
    expect(sha256OfFiles([join(dir, 'a.json'), join(dir, 'b.json')])).toBe(expected);
    // the same bytes split differently across the files give another hash
    writeFileSync(join(dir, 'a.json'), 'a');
    writeFileSync(join(dir, 'b.json'), 'bc');
    expect(sha256OfFiles([join(dir, 'a.json'), join(dir, 'b.json')])).not.toBe(expected);
    expect(sha256OfFiles([])).toBe(createHash('sha256').digest('hex'));
  });
});
