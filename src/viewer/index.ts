/**
 * The trace viewer: `apiary view <run-folder>` serves a run's samples (filtered by score and
 * error) and each sample's trace, verdict and images on a local Hono server. Subpath `apiary/viewer`.
 * @module
 */

// Lines of a JSONL file with their byte offsets, streamed
export { type JsonlLine, jsonlLines } from './jsonl-lines.js';
// Files a trace names, served only from inside the run folder
export {
  type RunFileAccess,
  runFileAccess,
} from './run-files.js';
// The index of a results file: one small entry per record, the rest read on demand
export {
  indexRun,
  type RunIndex,
  readSampleRecord,
  refreshIndex,
  type SampleEntry,
  type ViewedRecord,
} from './run-index.js';
// What one record shows: its kinds of error, its metrics and pass/fail
export {
  SAMPLE_ERROR_KINDS,
  type SampleErrorKind,
  type SampleScoring,
  sampleErrorKinds,
  scoringFor,
} from './sample-facts.js';
// The sample list's filters
export {
  filterSamples,
  type SamplePage,
  type SampleQuery,
  SampleQuerySchema,
} from './sample-filter.js';
// A record's events as a timeline, and what its task's hints pick out of its output and score
export {
  type SampleHintsView,
  type SampleTimeline,
  sampleHintsView,
  sampleTimeline,
  type TimelineItem,
} from './sample-view.js';
// The HTTP server
export {
  newViewerToken,
  type RunningViewer,
  scoringForTask,
  startViewer,
  VIEWER_TOKEN_BYTES,
  type ViewerAppOptions,
  type ViewerOptions,
  viewerApp,
} from './server.js';
