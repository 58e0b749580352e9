import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRetrievalIndex, type RankerModel, type RetrievalIndex } from '../../retrieval/index.js';
import { sha256Hex } from '../../shared/index.js';
import { type ToolBenchSuite, toolBenchCorpus } from './suite.js';

/**
 * Version of the ToolBench corpus construction (texts, tool grouping, §3 document text): bump it
 * when `loadToolBenchSuite`/`toolBenchCorpus` change what they index, so index files go stale.
 */
export const TOOLBENCH_CORPUS_VERSION = 1;

/**
 * Content hash of the ToolBench catalog: sha256 of `toolbench/tools.jsonl` and the corpus
 * version, computed from the file's bytes (about 0.2 s for 85 MB) so a query can check its index
 * without parsing the 46,802 APIs.
 */
export function toolBenchCatalogHash(dataDir: string): string {
  const file = sha256Hex(readFileSync(join(dataDir, 'toolbench', 'tools.jsonl')));
  return sha256Hex(`toolbench-corpus-v${TOOLBENCH_CORPUS_VERSION}:${file}`);
}

/** A printable label per API (`category/tool/api`) and its description on one line. */
export function toolBenchLabels(suite: ToolBenchSuite): { labels: string[]; details: string[] } {
  return {
    labels: suite.docs.map((d) => `${d.category}/${d.tool}/${d.api}`),
    details: suite.docs.map((d) => d.description.replace(/\s+/g, ' ').slice(0, 160)),
  };
}

/** Every index of the ToolBench corpus (with labels, so `retrieve query` needs no corpus). */
export function buildToolBenchIndex(
  suite: ToolBenchSuite,
  catalogHash: string,
  opts: { ranker?: RankerModel; info?: Record<string, unknown>; onStep?: (name: string) => void } = {},
): RetrievalIndex {
  return buildRetrievalIndex(toolBenchCorpus(suite), {
    catalog: 'toolbench',
    catalogHash,
    ...toolBenchLabels(suite),
    ...opts,
  });
}
