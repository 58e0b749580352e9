import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { read } from 'vega';
import { bundledDataDir } from '../catalog/index.js';
import { defaultPluginRegistry, type PluginRegistry } from '../plugins/index.js';
import { InputInvalidError } from '../shared/index.js';

/**
 * The papers' published numbers, vendored under data/published/ (see data/ATTRIBUTION.md). Each
 * benchmark's plugin reads its own files there (`PluginReport.published`); these are the helpers
 * they share. Values are percentages as printed.
 */

/** Published numbers by plugin name, as each plugin's `published(dir)` read them. */
export type PublishedResults = Readonly<Record<string, unknown>>;

/** The vendored folder of published numbers: data/published/ of the package. */
export const bundledPublishedDir = (): string => join(bundledDataDir(), 'published');

/** One CSV row: column name → the cell's text. */
export type PublishedCsvRow = Record<string, string>;

/** The rows of a CSV file of published numbers. */
export function readPublishedCsv(file: string): PublishedCsvRow[] {
  return read(readFileSync(file, 'utf8'), { type: 'csv' }) as PublishedCsvRow[];
}

/** A cell as a number; an empty or non-numeric cell is an input error naming the file, line and column. */
export function publishedNumber(row: PublishedCsvRow, field: string, file: string, record: string): number {
  const v = Number(row[field]);
  if (row[field] === undefined || row[field] === '' || Number.isNaN(v))
    throw new InputInvalidError({ file, record, field }, 'expected a number');
  return v;
}

/** Every registered plugin's published numbers (plugins without any are left out). */
export async function loadPublishedResults(
  dir = bundledPublishedDir(),
  plugins: PluginRegistry = defaultPluginRegistry,
): Promise<PublishedResults> {
  const out: Record<string, unknown> = {};
  for (const plugin of plugins.list()) {
    const report = await plugin.report?.();
    if (report?.published) out[plugin.name] = report.published(dir);
  }
  return out;
}
