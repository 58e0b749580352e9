import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultIndexPath, saveRetrievalIndex } from '../../retrieval/index.js';
import {
  buildToolBenchIndex,
  findCachedToolBenchIndex,
  toolBenchCatalogHash,
  toolBenchCatalogHashFast,
} from './index-file.js';
import { loadToolBenchSuite } from './suite.js';

const fixtures = join(import.meta.dirname, '__fixtures__');

describe('ToolBench index files', () => {
  it('the catalog hash is reused from an index whose recorded tools.jsonl size and mtime still match', () => {
    const data = mkdtempSync(join(tmpdir(), 'apiary-tb-index-'));
    mkdirSync(join(data, 'toolbench'));
    copyFileSync(join(fixtures, 'tools.jsonl'), join(data, 'toolbench', 'tools.jsonl'));
    const suite = loadToolBenchSuite(data, []);
    const real = toolBenchCatalogHash(data);
    expect(real).toMatch(/^[0-9a-f]{64}$/);
    // an index recording this very file (a marker hash shows the recorded one is what comes back)
    const file = join(data, 'tb.apix');
    const marker = 'a'.repeat(64);
    const index = buildToolBenchIndex(suite, marker, { dataDir: data });
    expect(index.labels?.[0]).toBe(`${suite.docs[0]?.category}/${suite.docs[0]?.tool}/${suite.docs[0]?.api}`);
    saveRetrievalIndex(file, index);
    expect(toolBenchCatalogHashFast(data, [file])).toBe(marker);
    // no index, or an unreadable one: the file is hashed
    expect(toolBenchCatalogHashFast(data, [])).toBe(real);
    expect(toolBenchCatalogHashFast(data, [join(data, 'missing.apix')])).toBe(real);
    // the catalog changed (size differs): hashed again, and the hash differs
    appendFileSync(join(data, 'toolbench', 'tools.jsonl'), '\n');
    const changed = toolBenchCatalogHashFast(data, [file]);
    expect(changed).not.toBe(marker);
    expect(changed).toBe(toolBenchCatalogHash(data));
    expect(changed).not.toBe(real);
  });

  it('findCachedToolBenchIndex: the cached index of this tools.jsonl, else nothing (never builds)', () => {
    const saved = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = mkdtempSync(join(tmpdir(), 'apiary-tb-cache-'));
    try {
      const data = mkdtempSync(join(tmpdir(), 'apiary-tb-data-'));
      mkdirSync(join(data, 'toolbench'));
      copyFileSync(join(fixtures, 'tools.jsonl'), join(data, 'toolbench', 'tools.jsonl'));
      expect(findCachedToolBenchIndex(data)).toBeUndefined();
      const hash = toolBenchCatalogHash(data);
      const path = defaultIndexPath('toolbench', hash);
      mkdirSync(dirname(path), { recursive: true });
      saveRetrievalIndex(path, buildToolBenchIndex(loadToolBenchSuite(data, []), hash, { dataDir: data }));
      expect(findCachedToolBenchIndex(data)?.catalogHash).toBe(hash);
      appendFileSync(join(data, 'toolbench', 'tools.jsonl'), '\n');
      expect(findCachedToolBenchIndex(data)).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = saved;
    }
  });
});
