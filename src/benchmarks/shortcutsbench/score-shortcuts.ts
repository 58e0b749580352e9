import { readTextFile } from '../../shared/index.js';
import { loadCategories, loadSignificantParams } from './data-files.js';
import { parseResultRecords } from './result-records.js';
import { type ShortcutScore, scoreResultRecord } from './score-record.js';
import { type ShortcutsReport, summarizeShortcuts } from './summary.js';

export interface ShortcutsScoring {
  scores: ShortcutScore[];
  official: ShortcutsReport;
  corrected: ShortcutsReport;
  notes: string[];
}

/**
 * Scores a file of official result records (JSONL or a JSON array) against the check-intersection
 * and category files in `dataDir`. Every record counts (as upstream iterates its result lines).
 */
export function scoreShortcutsResults(resultsFile: string, dataDir: string): ShortcutsScoring {
  const text = readTextFile(resultsFile);
  const records = parseResultRecords(text, resultsFile);
  const significant = loadSignificantParams(dataDir);
  const categories = loadCategories(dataDir);
  const scores = records.map((r) => scoreResultRecord(r, significant, (url) => categories.get(url)));
  const notes: string[] = [];
  const urls = new Set(records.map((r) => r.URL));
  if (urls.size < records.length)
    notes.push(`${records.length - urls.size} repeated URL(s): every record counts`);
  const noSig = records.filter((r) => !significant.has(r.URL)).length;
  if (noSig)
    notes.push(`${noSig} record(s) without significant_paras: no primitive parameter counted for them`);
  return {
    scores,
    official: summarizeShortcuts(scores, 'official'),
    corrected: summarizeShortcuts(scores, 'corrected'),
    notes,
  };
}
