import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../benchmarks/builtin.js';
import { indexCatalog } from './catalog-index.js';
import { loadCatalog } from './load-catalog.js';

registerBuiltinPlugins(); // `loadCatalog` knows the built-in catalogs by name

const dataDir = resolve(process.cwd(), '../shared/data');

describe('catalogs from ../shared/data', () => {
  it('AppBench: 15 apps / 33 APIs', () => {
    const c = loadCatalog('appbench', { dataDir });
    expect([c.apps.length, c.apis.length]).toEqual([15, 33]);
  });

  it('SGD: 45 services / 88 intents (train 26/53, dev 17/30, test 21/38 before merging), 40 transactional', () => {
    const c = loadCatalog('sgd', { dataDir });
    expect([c.apps.length, c.apis.length]).toEqual([45, 88]);
    expect(c.apis.filter((a) => a.transactional)).toHaveLength(40);
  });

  it('ShortcutsBench: 1,414 APIs', () => {
    const c = loadCatalog('shortcuts', { dataDir });
    expect(c.apis).toHaveLength(1414);
    expect(c.apis.filter((a) => a.app === 'is.workflow.actions')).toHaveLength(354);
  });

  it('GTA: 14 tools', () => {
    expect(loadCatalog('gta', { dataDir }).apis).toHaveLength(14);
  });

  it('ToolBench: 12,300 tools / 46,802 APIs in 49 categories', () => {
    const c = loadCatalog('toolbench', { dataDir });
    expect([c.apps.length, c.apis.length]).toEqual([12300, 46802]);
    expect(new Set(c.apps.map((a) => a.category)).size).toBe(49);
    // Duplicate API names inside a tool are suffixed so (app, name) stays a key.
    expect(c.apis.filter((a) => / \[\d+\]$/.test(a.name))).toHaveLength(177);
    expect(() => indexCatalog(c)).not.toThrow();
  });
});
