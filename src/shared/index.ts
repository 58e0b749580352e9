/**
 * Plumbing every domain shares: errors, JSON reading, seeded randomness, hashes, downloads.
 * Subpath `apiary/shared`; `apiary` re-exports the errors.
 * @module
 */

// Downloads with checksum and atomic writes
export {
  type DownloadDeps,
  type DownloadOptions,
  type DownloadResult,
  downloadFile,
  writeFileAtomic,
} from './download.js';

// Errors: one base class, a code for programs, a message naming file, record and field
export {
  ApiaryError,
  ERROR_CODES,
  type ErrorCode,
  InputInvalidError,
  type InputLocation,
  NotFoundError,
} from './errors.js';
// Content hash of a set of data files (run specs record it)
export { sha256OfFiles } from './file-hash.js';
// Hashes: FNV-1a for stable bucketing, sha256 for content identity
export { fnv1a32, fnv1a32Bytes, sha256Hex } from './hash.js';
// Nesting limit of JSON from outside (parsers and walkers recurse)
export {
  checkJsonDepth,
  jsonDepthExceededAt,
  MAX_JSON_DEPTH,
  parseJsonWithinDepth,
  valueDepthExceeds,
} from './json-depth.js';
// Reading JSON files with errors that name the file
export {
  fileReadError,
  forEachLineOfFile,
  parseJsonText,
  readBytesFile,
  readJsonFile,
  readTextFile,
} from './json-file.js';
// JSON as Python's json module reads and writes it (key order, float lexemes, json.dumps defaults)
export {
  detachedString,
  isPyNumber,
  isPyObject,
  type PyJson,
  type PyNumber,
  type PyObject,
  parsePyJson,
  pyFloatRepr,
  pyGet,
  pyJsonDumps,
  pyJsonString,
  pyNumberText,
  pyString,
  toPyJson,
} from './py-json.js';
// Python's text conventions (repr, strip) where official Python harnesses must be matched exactly
export { PY_WHITESPACE, pyRepr, pyStrip, pyStripChars } from './python-text.js';
// Seeded randomness (mulberry32)
export { mulberry32, type Rand, sampleWithoutReplacement, shuffled } from './random.js';
// API keys kept out of what is written and shown
export {
  redactSecrets,
  registerSecret,
} from './secrets.js';
// JSON with sorted keys (equality independent of key order)
export { stableJson } from './stable-json.js';
// Field-wise sums of per-sample count records (run summaries)
export { sumCounts, zeroCounts } from './sum-counts.js';
// zod validation with file/record/field locations
export { parseWith } from './zod-issues.js';
