import { existsSync } from 'node:fs';
import { NotFoundError, parseJsonText, parseWith, readTextFile } from '../shared/index.js';
import { type Catalog, CatalogSchema } from './schema.js';
import { type CatalogSourceOptions, type CatalogSourceRegistry, defaultCatalogSources } from './sources.js';

export interface LoadCatalogOptions extends CatalogSourceOptions {
  /** The registered catalog sources to look names up in (default: the ones plugins registered). */
  sources?: CatalogSourceRegistry;
}

/** Loads a registered catalog by name (or alias), or a catalog JSON file (Apiary's own format) by path. */
export function loadCatalog(nameOrFile: string, opts: LoadCatalogOptions = {}): Catalog {
  const sources = opts.sources ?? defaultCatalogSources;
  const source = sources.get(nameOrFile);
  if (source) return source.load({ dataDir: opts.dataDir });
  // a bare word that is no file is most likely a mistyped catalog name
  if (!/[./\\]/.test(nameOrFile) && !existsSync(nameOrFile))
    throw new NotFoundError('catalog', nameOrFile, [...sources.names(), 'or a catalog JSON file']);
  const text = readTextFile(nameOrFile);
  return parseWith(CatalogSchema, parseJsonText(text, nameOrFile), { file: nameOrFile });
}
