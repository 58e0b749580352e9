import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { read } from 'vega';
import { type GtaLeaderboardRow, parseGtaLeaderboard } from '../benchmarks/gta/index.js';
import { bundledDataDir } from '../catalog/index.js';
import { InputInvalidError } from '../shared/index.js';

/**
 * The papers' published numbers, vendored under data/published/ (see data/ATTRIBUTION.md). All
 * values are percentages as printed. `split` says which data the numbers were measured on.
 */

export const APPBENCH_PUBLISHED_CATEGORIES = ['SS', 'SM', 'MS', 'MM'] as const;

/** MetaBench Table 3: F1_app, F1_api and Succ per category. */
export interface MetaBenchPublishedRow {
  model: string;
  byCategory: Record<string, { appF1: number; apiF1: number; success: number }>;
}

/** ShortcutsBench: accuracy of recognising the necessary system/user inputs, per level. */
export interface ShortcutsPublishedRow {
  model: string;
  /** `L1`…`L4` and `overall`. */
  byLevel: Record<string, number>;
}

export interface PublishedResults {
  metabench: { split: string; source: string; rows: MetaBenchPublishedRow[] };
  shortcutsInput: { split: string; source: string; rows: ShortcutsPublishedRow[] };
  gta: { split: string; source: string; rows: GtaLeaderboardRow[] };
}

type CsvRow = Record<string, string>;

function csv(file: string): CsvRow[] {
  return read(readFileSync(file, 'utf8'), { type: 'csv' }) as CsvRow[];
}

function num(row: CsvRow, field: string, file: string, record: string): number {
  const v = Number(row[field]);
  if (row[field] === undefined || row[field] === '' || Number.isNaN(v))
    throw new InputInvalidError({ file, record, field }, 'expected a number');
  return v;
}

/** The paper's length buckets as our levels (docs/shortcutsbench.md §6.2: L1 ≤1, L2 ≤5, L3 ≤15, L4 ≤30). */
const SHORTCUT_LEVELS: Record<string, string> = {
  '(0, 1]': 'L1',
  '(1, 5]': 'L2',
  '(5, 15]': 'L3',
  '(15, 30]': 'L4',
  Overall: 'overall',
};

export function loadPublishedResults(dir = join(bundledDataDir(), 'published')): PublishedResults {
  const mbFile = join(dir, 'metabench_table3.csv');
  const metabench = csv(mbFile).map((row, i): MetaBenchPublishedRow => {
    const record = `line ${i + 2}`;
    const byCategory: MetaBenchPublishedRow['byCategory'] = {};
    for (const c of APPBENCH_PUBLISHED_CATEGORIES)
      byCategory[c] = {
        appF1: num(row, `${c}_F1_app`, mbFile, record),
        apiF1: num(row, `${c}_F1_api`, mbFile, record),
        success: num(row, `${c}_Succ`, mbFile, record),
      };
    return { model: row.model ?? '', byCategory };
  });

  // One row per level, one column per model: turned into one row per model.
  const scFile = join(dir, 'shortcutsbench_input_recognition.csv');
  const scRows = csv(scFile);
  const models = Object.keys(scRows[0] ?? {}).filter((k) => k !== 'level');
  const shortcuts = models.map((model): ShortcutsPublishedRow => {
    const byLevel: Record<string, number> = {};
    scRows.forEach((row, i) => {
      const level = SHORTCUT_LEVELS[row.level ?? ''];
      if (!level)
        throw new InputInvalidError(
          { file: scFile, record: `line ${i + 2}`, field: 'level' },
          'unknown level',
        );
      byLevel[level] = num(row, model, scFile, `line ${i + 2}`);
    });
    return { model, byLevel };
  });

  const gtaFile = join(dir, 'gta_leaderboard.csv');
  return {
    metabench: {
      split: 'test (full)',
      source: 'MetaBench paper, Table 3 (official scoring)',
      rows: metabench,
    },
    shortcutsInput: {
      split: 'full benchmark',
      source: 'ShortcutsBench paper, §4 (input recognition)',
      rows: shortcuts,
    },
    gta: {
      split: 'test (229 queries)',
      source: 'GTA leaderboard (open-compass/GTA)',
      rows: parseGtaLeaderboard(readFileSync(gtaFile, 'utf8'), gtaFile),
    },
  };
}
