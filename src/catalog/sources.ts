import { ApiaryError, NotFoundError } from '../shared/index.js';
import { findDataFile } from './data-paths.js';
import type { Catalog } from './schema.js';

/** Where a catalog source reads its files. */
export interface CatalogSourceOptions {
  /** Folder laid out like the official releases; defaults to $APIARY_DATA, then the bundled data. */
  dataDir?: string;
}

/**
 * A catalog `loadCatalog(name)` knows without a file: a benchmark plugin declares its sources
 * (`BenchmarkPlugin.catalogs`) and the plugin registry registers them here, so the catalog domain
 * never imports a benchmark. Loading is synchronous: the loaders are small and read local files.
 */
export interface CatalogSource {
  /** Lower-case name, e.g. `sgd`: what `--catalog` takes and `loadCatalog` looks up. */
  readonly name: string;
  /** Other names that load the same catalog (a long form of the name). */
  readonly aliases?: readonly string[];
  readonly description: string;
  load(options: CatalogSourceOptions): Catalog;
}

const SOURCE_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** Catalog sources by name and alias, in the order they were registered. */
export class CatalogSourceRegistry {
  private readonly sources: CatalogSource[] = [];
  private readonly byName = new Map<string, CatalogSource>();

  /** Adds a source; the same value again does nothing, another one claiming a taken name is refused. */
  register(source: CatalogSource): void {
    this.registerAll([source]);
  }

  /** Adds sources all or none: nothing is registered when one of them is refused. */
  registerAll(sources: readonly CatalogSource[]): void {
    const fresh = sources.filter((s, i) => !this.sources.includes(s) && sources.indexOf(s) === i);
    const claimed = new Set<string>();
    for (const name of fresh.flatMap((s) => [s.name, ...(s.aliases ?? [])])) {
      if (!SOURCE_NAME.test(name))
        throw new ApiaryError('USAGE', `invalid catalog name "${name}" (lower-case letters, digits, dashes)`);
      if (this.byName.has(name) || claimed.has(name))
        throw new ApiaryError('USAGE', `catalog "${name}" is already registered`);
      claimed.add(name);
    }
    for (const source of fresh) {
      this.sources.push(source);
      for (const name of [source.name, ...(source.aliases ?? [])]) this.byName.set(name, source);
    }
  }

  /** The source of a name or alias. */
  get(name: string): CatalogSource | undefined {
    return this.byName.get(name);
  }

  list(): CatalogSource[] {
    return [...this.sources];
  }

  /** Primary names, in registration order (aliases left out, as in the "unknown catalog" hint). */
  names(): string[] {
    return this.sources.map((s) => s.name);
  }
}

/** The sources `loadCatalog` consults unless given others. */
export const defaultCatalogSources = new CatalogSourceRegistry();

export function registerCatalogSource(source: CatalogSource): void {
  defaultCatalogSources.register(source);
}

export function listCatalogSources(): CatalogSource[] {
  return defaultCatalogSources.list();
}

/**
 * The path of a benchmark file (`rel` in the official layout) under the data folder, else the
 * bundled one; a missing file is a NOT_FOUND error whose `hint` says how to provide it.
 */
export function requireDataFile(rel: string, options: CatalogSourceOptions, hint: string): string {
  const path = findDataFile(rel, options.dataDir);
  if (!path) throw new NotFoundError('data file', rel, [hint]);
  return path;
}
