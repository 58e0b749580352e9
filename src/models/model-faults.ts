import {
  APICallError,
  InvalidResponseDataError,
  JSONParseError,
  NoContentGeneratedError,
  TypeValidationError,
} from 'ai';
import { ApiaryError } from '../shared/index.js';

/** Why one attempt failed. Every class except `fatal` is retried. */
export type ModelFaultClass =
  | 'timeout'
  | 'http429'
  | 'http5xx'
  | 'invalid-json'
  | 'empty-choices'
  | 'network'
  | 'fatal';

function hasCause(err: unknown, pred: (e: unknown) => boolean, depth = 0): boolean {
  if (!err || depth > 5) return false;
  if (pred(err)) return true;
  return hasCause((err as { cause?: unknown }).cause, pred, depth + 1);
}

/** Classifies an error thrown by `generateText` (provider: @ai-sdk/openai-compatible). */
export function classifyModelError(err: unknown, timedOut: boolean): ModelFaultClass {
  if (timedOut) return 'timeout';
  if (APICallError.isInstance(err)) {
    if (err.statusCode === 429) return 'http429';
    if (err.statusCode !== undefined && err.statusCode >= 500) return 'http5xx';
    if (hasCause(err, (e) => JSONParseError.isInstance(e) || e instanceof SyntaxError)) return 'invalid-json';
    if (/invalid json/i.test(err.message)) return 'invalid-json';
    if (/empty choices|no choices|did not contain any choices/i.test(err.message)) return 'empty-choices';
    if (err.statusCode === undefined) return 'network';
    if (err.statusCode === 408) return 'timeout';
    return 'fatal';
  }
  if (JSONParseError.isInstance(err) || TypeValidationError.isInstance(err)) return 'invalid-json';
  if (InvalidResponseDataError.isInstance(err) || NoContentGeneratedError.isInstance(err))
    return 'empty-choices';
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'timeout';
  if (
    hasCause(
      err,
      (e) =>
        typeof (e as { code?: unknown })?.code === 'string' &&
        /^E(CONN|AI_|PIPE|HOSTUNREACH|NETUNREACH)/.test((e as { code: string }).code),
    )
  )
    return 'network';
  return 'fatal';
}

/**
 * How long the server asked us to wait, from the failed call's response headers:
 * `retry-after-ms` (milliseconds, sent by OpenAI), else `Retry-After` as seconds or as an HTTP date
 * (relative to `nowMs`; a date in the past means 0). Undefined when absent or unreadable.
 */
export function retryAfterMs(err: unknown, nowMs: number): number | undefined {
  if (!APICallError.isInstance(err)) return undefined;
  const headers = err.responseHeaders ?? {};
  const ms = Number(headers['retry-after-ms'] || Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers['retry-after']?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - nowMs) : undefined;
}

/** Faults that mean the endpoint could not be reached at all (as opposed to a bad answer). */
const CONNECTION_FAULTS: ReadonlySet<ModelFaultClass> = new Set(['network', 'timeout']);

function failedCallFaults(error: unknown): readonly ModelFaultClass[] | null {
  if (!(error instanceof ApiaryError) || error.code !== 'MODEL_CALL_FAILED') return null;
  const faults = (error as { faults?: unknown }).faults;
  return Array.isArray(faults) ? (faults as ModelFaultClass[]) : [];
}

/**
 * The model endpoint failed, not the sample: a model call that failed after its retries, or an
 * endpoint that did not answer. Such a sample is an error of the run (never an empty prediction).
 */
export function isInfrastructureFailure(error: unknown): boolean {
  if (error instanceof ApiaryError && error.code === 'MODEL_UNREACHABLE') return true;
  return failedCallFaults(error) !== null;
}

/** Every attempt of the failed call was a connection error or a timeout: the endpoint is likely down. */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof ApiaryError && error.code === 'MODEL_UNREACHABLE') return true;
  const faults = failedCallFaults(error);
  return faults !== null && faults.length > 0 && faults.every((f) => CONNECTION_FAULTS.has(f));
}
