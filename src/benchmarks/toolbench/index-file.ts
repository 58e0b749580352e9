import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildRetrievalIndex,
  cachedIndexFiles,
  type DenseModel,
  loadRetrievalIndex,
  type RankerModel,
  type RetrievalIndex,
  readRetrievalIndexInfo,
} from '../../retrieval/index.js';
import { sha256Hex } from '../../shared/index.js';
import { type ToolBenchSuite, toolBenchCorpus } from './suite.js';

/**
 * Version of the ToolBench corpus construction (texts, tool grouping, ToolBench document text): bump it
 * when `loadToolBenchSuite`/`toolBenchCorpus` change what they index, so index files go stale.
 */
const TOOLBENCH_CORPUS_VERSION = 1;

/**
 * Content hash of the ToolBench catalog: sha256 of `toolbench/tools.jsonl` and the corpus
 * version, computed from the file's bytes (about 0.2 s for 85 MB) so a query can check its index
 * without parsing the 46,802 APIs.
 */
export function toolBenchCatalogHash(dataDir: string): string {
  const file = sha256Hex(readFileSync(join(dataDir, 'toolbench', 'tools.jsonl')));
  return sha256Hex(`toolbench-corpus-v${TOOLBENCH_CORPUS_VERSION}:${file}`);
}

/** Size and modification time of `tools.jsonl`: an index records them with the hash it was built for. */
function toolBenchSourceStamp(dataDir: string): { size: number; mtimeMs: number } {
  const st = statSync(join(dataDir, 'toolbench', 'tools.jsonl'));
  return { size: st.size, mtimeMs: st.mtimeMs };
}

/**
 * The catalog hash, reusing the one an existing index file recorded when `tools.jsonl` still has
 * the size and modification time that file saw (as make or git do), else hashing the file
 * (0.2–0.5 s for 85 MB).
 */
export function toolBenchCatalogHashFast(dataDir: string, indexFiles: readonly string[]): string {
  const stamp = toolBenchSourceStamp(dataDir);
  for (const f of indexFiles) {
    try {
      const info = readRetrievalIndexInfo(f);
      const seen = info.info.source as { size?: number; mtimeMs?: number } | undefined;
      if (info.catalog === 'toolbench' && seen?.size === stamp.size && seen?.mtimeMs === stamp.mtimeMs)
        return info.catalogHash;
    } catch {
      // unreadable or foreign file: hash the catalog instead
    }
  }
  return toolBenchCatalogHash(dataDir);
}

/**
 * A current ToolBench index from the user cache folder, if one exists (matched by the recorded
 * size and mtime of `tools.jsonl`, as `toolBenchCatalogHashFast`); never builds or writes one.
 * For callers that should use an index when present without owning the cache (the harness task).
 */
export function findCachedToolBenchIndex(dataDir: string): RetrievalIndex | undefined {
  const stamp = toolBenchSourceStamp(dataDir);
  for (const f of cachedIndexFiles('toolbench')) {
    try {
      const seen = readRetrievalIndexInfo(f).info.source as { size?: number; mtimeMs?: number } | undefined;
      if (seen?.size === stamp.size && seen?.mtimeMs === stamp.mtimeMs) return loadRetrievalIndex(f);
    } catch {
      // unreadable: the caller indexes in memory
    }
  }
  return undefined;
}

/** A printable label per API (`category/tool/api`) and its description on one line. */
function toolBenchLabels(suite: ToolBenchSuite): { labels: string[]; details: string[] } {
  return {
    labels: suite.docs.map((d) => `${d.category}/${d.tool}/${d.api}`),
    details: suite.docs.map((d) => d.description.replace(/\s+/g, ' ').slice(0, 160)),
  };
}

/** Every index of the ToolBench corpus (with labels, so `retrieve query` needs no corpus). */
export function buildToolBenchIndex(
  suite: ToolBenchSuite,
  catalogHash: string,
  opts: {
    ranker?: RankerModel;
    dense?: DenseModel;
    info?: Record<string, unknown>;
    onStep?: (name: string) => void;
    /** The data folder of the suite: its tools.jsonl stamp is recorded (`toolBenchCatalogHashFast`). */
    dataDir?: string;
  } = {},
): RetrievalIndex {
  const { dataDir, ...rest } = opts;
  return buildRetrievalIndex(toolBenchCorpus(suite), {
    catalog: 'toolbench',
    catalogHash,
    ...toolBenchLabels(suite),
    ...rest,
    info: { ...opts.info, ...(dataDir ? { source: toolBenchSourceStamp(dataDir) } : {}) },
  });
}
