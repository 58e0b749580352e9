import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import envPaths from 'env-paths';
import { ApiaryError, sha256Hex } from '../shared/index.js';
import { Bm25Index } from './bm25.js';
import { plainAnalyze } from './build-retriever.js';
import { type DenseModel, encodeCorpus } from './dense-encoder.js';
import { buildFieldIndexes, type FieldedCorpus } from './field-features.js';
import { loadRetrievalIndex, type RetrievalIndex, saveRetrievalIndex } from './index-file.js';
import type { RankerModel } from './linear-ranker.js';
import { docWordLists } from './word-match.js';

/** Steps of `buildRetrievalIndex` (one per BM25 index), for a progress bar. */
export function indexBuildSteps(corpus: FieldedCorpus): number {
  const g = corpus.groups;
  return (
    2 +
    [corpus.second, corpus.names, corpus.descriptions].filter(Boolean).length +
    (g ? 3 + (g.names ? 1 : 0) + (g.descriptions ? 1 : 0) : 0)
  );
}

export interface BuildIndexOptions {
  catalog: string;
  catalogHash: string;
  labels?: string[];
  details?: string[];
  ranker?: RankerModel;
  /** A dense encoder: the index keeps it and the vectors of the corpus texts (`dense`, `dense-hybrid`). */
  dense?: DenseModel;
  info?: Record<string, unknown>;
  /** Called after each BM25 index is built (`indexBuildSteps` calls in all). */
  onStep?: (name: string) => void;
}

/** Builds every index of a corpus: the field indexes (bm25, bm25-tool, bm25-fields, ranked) and bm25-plain's. */
export function buildRetrievalIndex(corpus: FieldedCorpus, opts: BuildIndexOptions): RetrievalIndex {
  const t0 = performance.now();
  const indexes = buildFieldIndexes(corpus, opts.onStep);
  const plain = new Bm25Index(corpus.texts, { analyze: plainAnalyze });
  opts.onStep?.('plain');
  return {
    catalog: opts.catalog,
    catalogHash: opts.catalogHash,
    indexes,
    plain,
    ...(opts.ranker ? { ranker: opts.ranker } : {}),
    ...(opts.dense
      ? {
          dense: {
            model: opts.dense,
            vectors: encodeCorpus(opts.dense, corpus.texts, corpus.groups),
            docWords: docWordLists(corpus.texts),
          },
        }
      : {}),
    ...(opts.labels ? { labels: opts.labels } : {}),
    ...(opts.details ? { details: opts.details } : {}),
    info: { ...opts.info, buildSeconds: +((performance.now() - t0) / 1000).toFixed(2) },
  };
}

/** Content hash of a fielded corpus (every field, in order): the identity of a catalog for its index. */
export function corpusHash(corpus: FieldedCorpus): string {
  return sha256Hex(
    JSON.stringify([
      corpus.texts,
      corpus.second ?? null,
      corpus.names ?? null,
      corpus.descriptions ?? null,
      corpus.groups ? { ...corpus.groups, groupOf: [...corpus.groups.groupOf] } : null,
    ]),
  );
}

/** `<user cache>/retrieval/<catalog>-<hash prefix>.apix`: a changed catalog gets a new file. */
export function defaultIndexPath(catalog: string, catalogHash: string): string {
  const safe = catalog.replace(/[^A-Za-z0-9_.-]+/g, '_');
  return join(
    envPaths('apiary', { suffix: '' }).cache,
    'retrieval',
    `${safe}-${catalogHash.slice(0, 16)}.apix`,
  );
}

/** Index files of a catalog in the user cache folder (one per catalog version seen). */
export function cachedIndexFiles(catalog: string): string[] {
  const dir = dirname(defaultIndexPath(catalog, '0'.repeat(16)));
  if (!existsSync(dir)) return [];
  const prefix = `${catalog.replace(/[^A-Za-z0-9_.-]+/g, '_')}-`;
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && /^[0-9a-f]{16}\.apix$/.test(f.slice(prefix.length)))
    .map((f) => join(dir, f));
}

export interface OpenIndexOptions {
  /** Index file to use (default `defaultIndexPath`). */
  path?: string;
  catalog: string;
  catalogHash: string;
  /** Builds the index when the file is missing, stale (other catalog hash) or unreadable. */
  build: () => RetrievalIndex;
  /** Notes for people (why a file is rebuilt, where it is written). */
  log?: (message: string) => void;
  /** Build and write even when the file is current. */
  force?: boolean;
}

export interface OpenedIndex {
  index: RetrievalIndex;
  path: string;
  /** 'loaded' from the file, or 'built' (first use, stale or damaged file). */
  from: 'loaded' | 'built';
  ms: number;
}

/**
 * The index of a catalog: loaded from its file when that file is current, else built and written
 * (a stale or damaged file is replaced, with a note, never a crash). Cached files of other
 * versions of the catalog are kept (two data folders do not evict each other's index).
 */
export function openRetrievalIndex(opts: OpenIndexOptions): OpenedIndex {
  const t0 = performance.now();
  const path = opts.path ?? defaultIndexPath(opts.catalog, opts.catalogHash);
  if (!opts.force && existsSync(path)) {
    let index: RetrievalIndex | undefined;
    try {
      index = loadRetrievalIndex(path);
    } catch (e) {
      opts.log?.(`index ${path} is unusable (${(e as Error).message}): rebuilding`);
    }
    // another catalog's index is not overwritten: the path was probably given by mistake
    if (index && index.catalog !== opts.catalog)
      throw new ApiaryError(
        'USAGE',
        `index ${path} holds catalog ${index.catalog}, not ${opts.catalog}: pass another --index file`,
      );
    if (index?.catalogHash === opts.catalogHash)
      return { index, path, from: 'loaded', ms: performance.now() - t0 };
    if (index)
      opts.log?.(`index ${path} was built for another version of catalog ${index.catalog}: rebuilding`);
  }
  const index = opts.build();
  mkdirSync(dirname(path), { recursive: true });
  saveRetrievalIndex(path, index);
  opts.log?.(`index written to ${path}`);
  return { index, path, from: 'built', ms: performance.now() - t0 };
}
