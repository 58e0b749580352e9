import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../catalog/index.js';
import { registerBuiltinPlugins } from '../builtin.js';
import { appBenchRetrievalQueries } from './retrieval-queries.js';
import { loadAppBenchSamples } from './sample.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const data = resolve(process.cwd(), '../shared/data');

describe('AppBench as a retrieval task (shared/data)', () => {
  it('AppBench dev instructions map to gold APIs of the 33-API catalog', () => {
    const catalog = loadCatalog('appbench');
    const qs = appBenchRetrievalQueries(loadAppBenchSamples(`${data}/appbench`, { prefix: 'dev' }), catalog);
    expect(qs).toHaveLength(200);
    expect(qs.every((q) => q.relevant.length >= 1)).toBe(true);
    // dev_ss-0: "Find me economy premium Train tickets …" → Trains.findtrains
    expect(qs[0]?.relevant.map((i) => catalog.apis[i]?.id)).toEqual(['Trains.findtrains']);
  });
});
