/**
 * One error base for the whole package. `code` is for programs, the message is for people,
 * `cause` keeps the original error for `--debug`. docs/errors.md lists every code with its meaning,
 * exit status and an example (a test keeps the page and this list equal).
 *
 * Codes:
 * - `INPUT_INVALID`: a data file or record does not match its schema (fields: file, record, field).
 * - `CATALOG_INVALID`: a catalog definition is inconsistent (duplicate ids, unknown app).
 * - `PLAN_PARSE`: plan text could not be parsed (fields: source, line, column).
 * - `PLAN_INVALID`: a plan failed validation against a catalog (see `issues`).
 * - `NOT_FOUND`: a named thing (file, catalog, api) does not exist.
 * - `PERMISSION_DENIED`: a call was refused by permission isolation.
 * - `MODEL_CALL_FAILED`: the model endpoint failed after retries.
 * - `MODEL_UNREACHABLE`: the model endpoint did not answer the check made before a run.
 * - `NETWORK`: a download failed (offline, bad status, checksum mismatch).
 * - `USAGE`: the caller asked for something that cannot be done (bad flag combination).
 * - `TOOL_FAILED`: an executable tool could not do what it was asked (sandbox refusal, bad image).
 * - `WORKER_FAILED`: a worker thread of an eval (`--workers`) died; results written so far are kept.
 * - `INTERNAL`: anything else (a bug in Apiary or an unexpected system failure); only the CLI's
 *   last-resort report uses it, for errors that are not ApiaryErrors.
 */
export const ERROR_CODES = [
  'INPUT_INVALID',
  'CATALOG_INVALID',
  'PLAN_PARSE',
  'PLAN_INVALID',
  'NOT_FOUND',
  'PERMISSION_DENIED',
  'MODEL_CALL_FAILED',
  'MODEL_UNREACHABLE',
  'NETWORK',
  'USAGE',
  'TOOL_FAILED',
  'WORKER_FAILED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ApiaryError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Where in an input a problem sits: the file, the record (index or id) and the field path. */
export interface InputLocation {
  file: string;
  record?: string | number;
  field?: string;
}

function formatLocation(loc: InputLocation): string {
  let out = loc.file;
  if (loc.record !== undefined) out += `: record ${loc.record}`;
  if (loc.field) out += `: field "${loc.field}"`;
  return out;
}

/** Bad input data: names the file, the record and the field. */
export class InputInvalidError extends ApiaryError {
  readonly file: string;
  readonly record: string | number | undefined;
  readonly field: string | undefined;
  constructor(loc: InputLocation, problem: string, options?: { cause?: unknown }) {
    super('INPUT_INVALID', `${formatLocation(loc)}: ${problem}`, options);
    this.file = loc.file;
    this.record = loc.record;
    this.field = loc.field;
  }
}

/**
 * A file leads with its path, as every input error does, and `available` says what to do instead;
 * other things are named in quotes with the names that do exist.
 */
function notFoundMessage(what: string, key: string, available?: readonly string[]): string {
  if (what === 'file')
    return `${key}: no such file; ${available?.length ? available.join('; ') : 'check the path'}`;
  const hint = available?.length ? ` (available: ${available.slice(0, 20).join(', ')})` : '';
  return `unknown ${what} "${key}"${hint}`;
}

export class NotFoundError extends ApiaryError {
  constructor(
    readonly what: string,
    readonly key: string,
    readonly available?: readonly string[],
  ) {
    super('NOT_FOUND', notFoundMessage(what, key, available));
  }
}
