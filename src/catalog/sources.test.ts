import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { PluginRegistry } from '../plugins/index.js';
import { ApiaryError, NotFoundError } from '../shared/index.js';
import { loadCatalog } from './load-catalog.js';
import type { Catalog } from './schema.js';
import { type CatalogSource, CatalogSourceRegistry, requireDataFile } from './sources.js';

const tiny = (name: string): Catalog => ({
  name,
  apps: [{ id: 'Echo', name: 'Echo', description: 'says it back', owner: 'app:Echo' }],
  apis: [],
});

const source = (name: string, aliases?: string[]): CatalogSource => ({
  name,
  ...(aliases ? { aliases } : {}),
  description: `the ${name} catalog`,
  load: (opts) => tiny(`${name}@${opts.dataDir ?? '-'}`),
});

describe('catalog sources', () => {
  it('loadCatalog finds a registered source by name or alias and passes the data folder on', () => {
    const sources = new CatalogSourceRegistry();
    sources.register(source('echo', ['echoes']));
    expect(loadCatalog('echo', { sources, dataDir: '/d' }).name).toBe('echo@/d');
    expect(loadCatalog('echoes', { sources }).name).toBe('echo@-');
  });

  it('an unknown bare name lists the registered names (not aliases), in registration order', () => {
    const sources = new CatalogSourceRegistry();
    sources.register(source('zeta', ['z']));
    sources.register(source('alpha'));
    expect(() => loadCatalog('nope', { sources })).toThrowError(
      new NotFoundError('catalog', 'nope', ['zeta', 'alpha', 'or a catalog JSON file']),
    );
    expect(() => loadCatalog('nope', { sources })).toThrowError(
      'unknown catalog "nope" (available: zeta, alpha, or a catalog JSON file)',
    );
  });

  it('refuses a taken name or alias, and registers all of a list or none', () => {
    const sources = new CatalogSourceRegistry();
    const echo = source('echo', ['echoes']);
    sources.register(echo);
    sources.register(echo); // the same value again: nothing happens
    expect(() => sources.register(source('echoes'))).toThrowError(
      new ApiaryError('USAGE', 'catalog "echoes" is already registered'),
    );
    expect(() => sources.registerAll([source('fresh'), source('echo')])).toThrowError(
      'catalog "echo" is already registered',
    );
    expect(() => sources.register(source('Bad Name'))).toThrowError(
      'invalid catalog name "Bad Name" (lower-case letters, digits, dashes)',
    );
    expect(sources.names()).toEqual(['echo']);
  });

  it('a missing data file names the file and the hint', () => {
    const saved = process.env.APIARY_DATA;
    delete process.env.APIARY_DATA;
    try {
      const empty = mkdtempSync(join(tmpdir(), 'apiary-sources-'));
      expect(() => requireDataFile('echo/none.json', { dataDir: empty }, 'pass --data DIR')).toThrowError(
        'unknown data file "echo/none.json" (available: pass --data DIR)',
      );
    } finally {
      if (saved !== undefined) process.env.APIARY_DATA = saved;
    }
  });

  it('registering a plugin registers its catalogs; a refused catalog leaves the plugin out', () => {
    const sources = new CatalogSourceRegistry();
    const plugins = new PluginRegistry(sources);
    plugins.register({ name: 'echo-bench', description: 'echo', catalogs: [source('echo')] });
    expect(loadCatalog('echo', { sources }).name).toBe('echo@-');
    expect(() =>
      plugins.register({ name: 'other', description: 'x', catalogs: [source('echo')] }),
    ).toThrowError('catalog "echo" is already registered');
    expect(plugins.list().map((p) => p.name)).toEqual(['echo-bench']);
  });

  it('the built-in plugins register the five built-in catalogs, in the order the hint always listed them', () => {
    const sources = new CatalogSourceRegistry();
    registerBuiltinPlugins(new PluginRegistry(sources));
    expect(sources.names()).toEqual(['appbench', 'sgd', 'gta', 'shortcuts', 'toolbench']);
    expect(sources.get('shortcutsbench')).toBe(sources.get('shortcuts'));
    expect(() => loadCatalog('apbench', { sources })).toThrowError(
      'unknown catalog "apbench" (available: appbench, sgd, gta, shortcuts, toolbench, or a catalog JSON file)',
    );
  });
});
