import { existsSync } from 'node:fs';
import { appBenchCatalog } from '../benchmarks/appbench/catalog.js';
import {
  mergeSgdServices,
  parseSgdSchema,
  type SgdService,
  sgdCatalog,
} from '../benchmarks/appbench/sgd-catalog.js';
import { gtaCatalog } from '../benchmarks/gta/catalog.js';
import { shortcutsBenchCatalog } from '../benchmarks/shortcutsbench/catalog.js';
import { toolBenchCatalog } from '../benchmarks/toolbench/catalog.js';
import { NotFoundError, parseJsonText, parseWith, readJsonFile, readTextFile } from '../shared/index.js';
import { findDataFile } from './data-paths.js';
import { type Catalog, CatalogSchema } from './schema.js';

export interface LoadCatalogOptions {
  /** Folder laid out like the official releases; defaults to $APIARY_DATA, then the bundled data. */
  dataDir?: string;
}

/** The names `loadCatalog` knows without a file. */
const BUILT_IN_CATALOGS = ['appbench', 'sgd', 'gta', 'shortcuts', 'toolbench'] as const;

function requireFile(rel: string, opts: LoadCatalogOptions, hint: string): string {
  const path = findDataFile(rel, opts.dataDir);
  if (!path) throw new NotFoundError('data file', rel, [hint]);
  return path;
}

/** Reads and merges SGD `schema.json` of train, dev and test. */
export function loadSgdServices(opts: LoadCatalogOptions = {}): SgdService[] {
  const splits = ['train', 'dev', 'test'].map((split) => {
    const path = requireFile(
      `sgd/${split}/schema.json`,
      opts,
      'pass --data DIR with sgd/<split>/schema.json',
    );
    return parseSgdSchema(readJsonFile(path), path);
  });
  return mergeSgdServices(splits);
}

/** Loads a built-in catalog by name, or a catalog JSON file (Apiary's own format) by path. */
export function loadCatalog(nameOrFile: string, opts: LoadCatalogOptions = {}): Catalog {
  switch (nameOrFile) {
    case 'appbench':
      return appBenchCatalog(loadSgdServices(opts));
    case 'sgd':
      return sgdCatalog(loadSgdServices(opts));
    case 'gta': {
      const path = requireFile('gta/toolmeta.json', opts, 'gta/toolmeta.json');
      return gtaCatalog(readJsonFile(path), path);
    }
    case 'shortcuts':
    case 'shortcutsbench': {
      const f = (name: string) => requireFile(`shortcutsbench/${name}`, opts, `shortcutsbench/${name}`);
      const optional = (name: string) => {
        const p = findDataFile(`shortcutsbench/${name}`, opts.dataDir);
        return p ? readJsonFile(p) : undefined;
      };
      return shortcutsBenchCatalog({
        api2info: readJsonFile(f('all_api2info.json')),
        api2paratype: readJsonFile(f('all_api2paraname2paratype.json')),
        identifiers: optional('2_all_detailed_identifiers.json'),
      });
    }
    case 'toolbench': {
      const path = requireFile(
        'toolbench/tools.jsonl',
        opts,
        'ToolBench tools are not bundled (no upstream licence): pass --data DIR containing toolbench/tools.jsonl',
      );
      return toolBenchCatalog(readTextFile(path), path);
    }
    default: {
      // a bare word that is no file is most likely a mistyped catalog name
      if (!/[./\\]/.test(nameOrFile) && !existsSync(nameOrFile))
        throw new NotFoundError('catalog', nameOrFile, [...BUILT_IN_CATALOGS, 'or a catalog JSON file']);
      const text = readTextFile(nameOrFile);
      return parseWith(CatalogSchema, parseJsonText(text, nameOrFile), { file: nameOrFile });
    }
  }
}
