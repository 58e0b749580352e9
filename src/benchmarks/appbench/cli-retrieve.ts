import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadCatalog } from '../../catalog/index.js';
import { openCliIndex } from '../../cli/retrieval-index.js';
import type { RetrievalDataset } from '../../plugins/index.js';
import {
  buildRetrievalIndex,
  catalogCorpus,
  corpusHash,
  type FieldedCorpus,
  type OpenedIndex,
} from '../../retrieval/index.js';
import { ApiaryError, NotFoundError } from '../../shared/index.js';
import {
  APPBENCH_CATEGORIES,
  type AppBenchSample,
  appBenchRetrievalQueries,
  findAppBenchData,
  loadAppBenchSamples,
} from './index.js';

function appBenchDir(data?: string): string {
  const dir = data && existsSync(join(data, 'appbench')) ? join(data, 'appbench') : findAppBenchData(data);
  if (!dir)
    throw new ApiaryError(
      'NOT_FOUND',
      'no AppBench data: run `apiary data pull appbench` or pass --data DIR',
    );
  return dir;
}

function appBenchSamples(dir: string): AppBenchSample[] {
  for (const prefix of ['test', 'dev'] as const) {
    const categories = APPBENCH_CATEGORIES.filter((c) => existsSync(join(dir, `${prefix}_${c}.json`)));
    if (categories.length) return loadAppBenchSamples(dir, { prefix, categories });
  }
  throw new NotFoundError('AppBench files (test_*.json or dev_*.json) in', dir);
}

function appBenchCorpus(data?: string) {
  const catalog = loadCatalog('appbench', data ? { dataDir: data } : {});
  const corpus: FieldedCorpus = catalogCorpus(catalog);
  return { catalog, corpus, labels: catalog.apis.map((a) => a.id) };
}

function appBenchIndex(
  corpus: FieldedCorpus,
  labels: string[],
  details: string[],
  index: { path?: string; quiet: boolean },
): OpenedIndex {
  const catalogHash = corpusHash(corpus);
  return openCliIndex({
    ...(index.path ? { path: index.path } : {}),
    catalog: 'appbench',
    catalogHash,
    corpus: () => corpus,
    build: (c, onStep) =>
      buildRetrievalIndex(c, { catalog: 'appbench', catalogHash, labels, details, onStep }),
    quiet: index.quiet,
  });
}

/** `apiary retrieve` on AppBench: its catalog's APIs, the gold APIs of each instruction per category. */
export const appBenchRetrieval: RetrievalDataset = {
  async evaluate(ctx) {
    const dir = appBenchDir(ctx.data);
    const { corpus, catalog, labels } = appBenchCorpus(ctx.data);
    const samples = appBenchSamples(dir);
    const opened = ctx.index
      ? appBenchIndex(
          corpus,
          labels,
          catalog.apis.map((a) => a.description),
          ctx.index,
        )
      : undefined;
    const r = await ctx.retriever(corpus, opened);
    for (const cat of APPBENCH_CATEGORIES) {
      const s = samples.filter((x) => x.category === cat);
      if (s.length) await ctx.score(cat, appBenchRetrievalQueries(s, catalog), s.length, r);
    }
    await ctx.score('all', appBenchRetrievalQueries(samples, catalog), samples.length, r);
  },

  buildIndex(ctx) {
    const ab = appBenchCorpus(ctx.data);
    const catalogHash = corpusHash(ab.corpus);
    return openCliIndex({
      ...(ctx.path ? { path: ctx.path } : {}),
      quiet: ctx.quiet,
      catalog: 'appbench',
      catalogHash,
      corpus: () => ab.corpus,
      build: (c, onStep) =>
        buildRetrievalIndex(c, {
          catalog: 'appbench',
          catalogHash,
          labels: ab.labels,
          details: ab.catalog.apis.map((a) => a.description),
          onStep,
          info: ctx.info,
          ...ctx.models,
        }),
      force: true,
    });
  },

  queryCorpus(ctx) {
    const ab = appBenchCorpus(ctx.data);
    const abDetails = ab.catalog.apis.map((a) => a.description);
    const opened = ctx.index ? appBenchIndex(ab.corpus, ab.labels, abDetails, ctx.index) : undefined;
    return {
      ...(opened ? { opened } : {}),
      corpus: () => ab.corpus,
      labels: () => ab.labels,
      details: () => abDetails,
    };
  },
};
