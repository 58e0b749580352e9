import { join } from 'node:path';
import { publishedNumber, type ReportParts, readPublishedCsv } from '../../reports/index.js';
import {
  APPBENCH_PUBLISHED_CATEGORIES,
  appBenchSection,
  type MetaBenchPublished,
  type MetaBenchPublishedRow,
} from './report-section.js';

/** MetaBench Table 3 as published (data/published/metabench_table3.csv). */
function loadMetaBenchPublished(dir: string): MetaBenchPublished {
  const file = join(dir, 'metabench_table3.csv');
  const rows = readPublishedCsv(file).map((row, i): MetaBenchPublishedRow => {
    const record = `line ${i + 2}`;
    const byCategory: MetaBenchPublishedRow['byCategory'] = {};
    for (const c of APPBENCH_PUBLISHED_CATEGORIES)
      byCategory[c] = {
        appF1: publishedNumber(row, `${c}_F1_app`, file, record),
        apiF1: publishedNumber(row, `${c}_F1_api`, file, record),
        success: publishedNumber(row, `${c}_Succ`, file, record),
      };
    return { model: row.model ?? '', byCategory };
  });
  return { split: 'test (full)', source: 'MetaBench paper, Table 3 (official scoring)', rows };
}

/** The text of a reply, when the output has one (the plan in AppBench line format). */
const reply = (output: unknown): string | null => {
  const r = (output as { reply?: unknown } | null)?.reply;
  return typeof r === 'string' ? r : null;
};

/** AppBench's report parts: the MetaBench Table 3 section, and the plan as the viewer's answer. */
export const appBenchReport: ReportParts<MetaBenchPublished> = {
  published: loadMetaBenchPublished,
  tasks: {
    appbench: {
      title: 'AppBench / MetaBench',
      section: appBenchSection,
      // tool-loop outputs carry a copy of the runtime's trace: the viewer shows it as events
      viewer: { answer: reply, hiddenOutputFields: ['trace'] },
    },
  },
};
