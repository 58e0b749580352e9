import { type AppCallResult, type ContentPart, isContentResult } from '../apps/index.js';

export { type ContentPart, ContentPartSchema, type ContentResult, isContentResult } from '../apps/index.js';

const CALL_ERROR_CODES = [
  'INPUT_INVALID',
  'PERMISSION_DENIED',
  'APPROVAL_DENIED',
  'UNKNOWN_API',
  'TOOL_FAILED',
  'TIMEOUT',
  'CANCELLED',
] as const;

/**
 * Why a call did not return a result:
 * - `UNKNOWN_API`: the catalog has no such app, or the app no such API (the message lists close names);
 * - `INPUT_INVALID`: arguments do not fit the API's parameters (`issues` name each field), or the
 *   app rejected them (`INPUT_INVALID` thrown by the handler);
 * - `PERMISSION_DENIED`: app not granted, no handler or one under the wrong owner, or the app refused the caller;
 * - `APPROVAL_DENIED`: a transactional call the approver refused (or the approver failed);
 * - `TOOL_FAILED`: the handler threw or returned something that is not a result;
 * - `TIMEOUT`: no answer within the time limit; `CANCELLED`: the signal aborted.
 */
export type CallErrorCode = (typeof CALL_ERROR_CODES)[number];

export interface CallError {
  code: CallErrorCode;
  message: string;
  /** INPUT_INVALID from argument validation: one entry per problem, naming the argument. */
  issues?: Array<{ field: string; message: string }>;
  /** The ApiaryError code the handler threw, when it threw one (e.g. `NOT_FOUND`, `INPUT_INVALID`). */
  appCode?: string;
}

export type CallOutcome =
  | { ok: true; content: ContentPart[]; raw: AppCallResult; transactional: boolean; durationMs: number }
  | {
      ok: false;
      error: CallError;
      transactional: boolean;
      durationMs: number;
      /** The call reached the handler (it may have had an effect). */
      dispatched: boolean;
    };

/** A handler's result as content parts: rows for a list, `json` for a record, or the parts it gave. */
export function toContent(result: AppCallResult): ContentPart[] {
  if (Array.isArray(result)) return [{ type: 'rows', rows: result }];
  if (isContentResult(result)) return result.content;
  return [{ type: 'json', value: result }];
}

/** Compact JSON that never throws (cycles and BigInts fall back to `String`). */
function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export interface ContentTextOptions {
  /** Rows shown per `rows` part before "… and K more rows" (default 10). */
  maxRows?: number;
}

/**
 * A compact, deterministic text rendering of content for a model observation: text as is, JSON
 * compact, rows one JSON line each (at most `maxRows`, then "… and K more rows"; "(no rows)" when
 * empty), images as `[image](path)` and files as `[file](path)`; one part per line.
 */
export function contentToText(parts: readonly ContentPart[], opts: ContentTextOptions = {}): string {
  const maxRows = Math.max(0, opts.maxRows ?? 10);
  const lines: string[] = [];
  for (const part of parts)
    switch (part.type) {
      case 'text':
        lines.push(part.text);
        break;
      case 'json':
        lines.push(compactJson(part.value));
        break;
      case 'rows': {
        if (!part.rows.length) lines.push('(no rows)');
        for (const row of part.rows.slice(0, maxRows)) lines.push(compactJson(row));
        const more = part.rows.length - maxRows;
        if (more > 0) lines.push(`… and ${more} more row${more === 1 ? '' : 's'}`);
        break;
      }
      case 'image':
        lines.push(`[image](${part.path})`);
        break;
      case 'file':
        lines.push(`[file](${part.path})`);
        break;
    }
  return lines.join('\n');
}

/** One line for a model or a person: `CODE: message` (the message names the fields at fault). */
export function describeCallError(error: CallError): string {
  return `${error.code}: ${error.message}`;
}
