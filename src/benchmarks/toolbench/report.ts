import type { ReportParts } from '../../reports/index.js';
import { toolBenchSection } from './report-section.js';

/** ToolBench's report parts: NDCG and recall per query group (no published rows). */
export const toolBenchReport: ReportParts = {
  tasks: { 'toolbench-retrieval': { title: 'ToolBench retrieval', section: toolBenchSection } },
};
