/**
 * Reports: one self-contained HTML page (inline SVG charts rendered with Vega-Lite at build time,
 * no script, no network) with each task's paper tables and charts, the published numbers beside
 * the user's runs, and run comparison (spec differences, changed samples, epoch CIs). Subpath
 * `apiary/reports`.
 * @module
 */

export {
  type GtaRunReport,
  type GtaSampleScore,
  GtaSampleScoreSchema,
  type GtaToolRow,
  summarizeGtaScores,
} from '../benchmarks/gta/report-scores.js';
export { buildHtmlReport, buildHtmlReportFromFolders, type HtmlReportOptions } from './build.js';
export { type ChartDatum, type ChartOptions, groupedBarSpec, renderChartSvg } from './charts.js';
export {
  type ChangedSample,
  changedSamples,
  formatSpecDifferences,
  type SpecDifference,
  specDifferences,
} from './compare.js';
export {
  type Block,
  type Cell,
  type HtmlTable,
  type ReportSection,
  renderPage,
} from './html.js';
export {
  APPBENCH_PUBLISHED_CATEGORIES,
  loadPublishedResults,
  type MetaBenchPublishedRow,
  type PublishedResults,
  type ShortcutsPublishedRow,
} from './published.js';
export { loadReportRun, type ReportRun, uniqueLabels } from './run.js';
// the blocks every report section shares (headline, run facts, comparisons, charts)
export { chart, commonBlocks, comparisonBlocks, f2, publishedLabel } from './sections/common.js';
