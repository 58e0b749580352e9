import { join } from 'node:path';
import { publishedNumber, type ReportParts, readPublishedCsv } from '../../reports/index.js';
import { InputInvalidError } from '../../shared/index.js';
import { type ShortcutsPublished, type ShortcutsPublishedRow, shortcutsSection } from './report-section.js';

/** The paper's length buckets as our levels (docs/shortcutsbench.md §6.2: L1 ≤1, L2 ≤5, L3 ≤15, L4 ≤30). */
const SHORTCUT_LEVELS: Record<string, string> = {
  '(0, 1]': 'L1',
  '(1, 5]': 'L2',
  '(5, 15]': 'L3',
  '(15, 30]': 'L4',
  Overall: 'overall',
};

/** The paper's input-recognition accuracies (data/published/shortcutsbench_input_recognition.csv). */
function loadShortcutsPublished(dir: string): ShortcutsPublished {
  // One row per level, one column per model: turned into one row per model.
  const file = join(dir, 'shortcutsbench_input_recognition.csv');
  const csvRows = readPublishedCsv(file);
  const models = Object.keys(csvRows[0] ?? {}).filter((k) => k !== 'level');
  const rows = models.map((model): ShortcutsPublishedRow => {
    const byLevel: Record<string, number> = {};
    csvRows.forEach((row, i) => {
      const level = SHORTCUT_LEVELS[row.level ?? ''];
      if (!level)
        throw new InputInvalidError({ file, record: `line ${i + 2}`, field: 'level' }, 'unknown level');
      byLevel[level] = publishedNumber(row, model, file, `line ${i + 2}`);
    });
    return { model, byLevel };
  });
  return { split: 'full benchmark', source: 'ShortcutsBench paper, §4 (input recognition)', rows };
}

/** ShortcutsBench's report parts: the section by level, category and candidate-list size. */
export const shortcutsBenchReport: ReportParts<ShortcutsPublished> = {
  published: loadShortcutsPublished,
  tasks: { shortcuts: { title: 'ShortcutsBench', section: shortcutsSection } },
};
