/**
 * Reports: one self-contained HTML page (inline SVG charts rendered with Vega-Lite at build time,
 * no script, no network) with each task's paper tables and charts, the published numbers beside
 * the user's runs, and run comparison (spec differences, changed samples, epoch CIs). Each task's
 * section comes from its benchmark's plugin (`BenchmarkPlugin.report`); the helpers below are
 * what a section is built with. Subpath `apiary/reports`.
 * @module
 */

export { buildHtmlReport, buildHtmlReportFromFolders, type HtmlReportOptions } from './build.js';
export { type ChartDatum, type ChartOptions, groupedBarSpec, renderChartSvg } from './charts.js';
export {
  type ChangedSample,
  compareSamples,
  formatSpecDifferences,
  type SampleComparison,
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
  type FoundTaskReport,
  type ReportParts,
  type TaskReportParts,
  taskReportParts,
} from './parts.js';
export {
  bundledPublishedDir,
  loadPublishedResults,
  type PublishedCsvRow,
  type PublishedResults,
  publishedNumber,
  readPublishedCsv,
} from './published.js';
export { loadReportRun, type ReportRun, uniqueLabels } from './run.js';
// What a task's section is built with: the run facts and headline table, comparison, charts
export {
  chart,
  commonBlocks,
  comparisonBlocks,
  f2,
  publishedLabel,
} from './sections/common.js';
