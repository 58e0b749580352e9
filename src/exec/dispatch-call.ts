import type { AppCallResult, AppHandler } from '../apps/index.js';
import type { Api, App, CatalogIndex } from '../catalog/index.js';
import { ApiaryError, MAX_JSON_DEPTH, redactSecrets, valueDepthExceeds } from '../shared/index.js';
import { type ApprovalDecision, type ApprovalHandler, approvalRequest, denyAll } from './approval.js';
import { argumentIssues } from './call-arguments.js';
import { type CallError, type CallOutcome, toContent } from './call-result.js';
import { type Clock, systemClock } from './clock.js';
import { closeNames } from './close-names.js';

/** One call as a caller (an agent, a plan step) asks for it. */
export interface CallRequest {
  /** Names the call in approval requests (default `<app>.<api>`). */
  id?: string;
  app: string;
  api: string;
  args: Record<string, unknown>;
}

/** Handlers by app id. */
export type AppRegistry = ReadonlyMap<string, AppHandler>;

/** Indexes handlers by app id; two handlers for one app is a configuration error (`USAGE`). */
export function appRegistry(handlers: Iterable<AppHandler>): AppRegistry {
  const map = new Map<string, AppHandler>();
  for (const h of handlers) {
    if (map.has(h.appId))
      throw new ApiaryError('USAGE', `two handlers registered for app "${h.appId}" (ambiguous dispatch)`);
    map.set(h.appId, h);
  }
  return map;
}

const DEFAULT_CALL_TIMEOUT_MS = 30_000;

export interface DispatchContext {
  catalog: CatalogIndex;
  apps: AppRegistry;
  /** App ids the caller may call (default: all). */
  grant?: ReadonlySet<string>;
  /** Decides transactional calls (default `denyAll`: safe by default). */
  approve?: ApprovalHandler;
  /** Time limit of the handler call in ms (default 30 000). */
  timeoutMs?: number;
  /** Cancels the call: before dispatch nothing runs; during the call the handler's signal aborts. */
  signal?: AbortSignal;
  /** Check arguments against the catalog (default true). */
  validate?: boolean;
  clock?: Clock;
  /**
   * Called synchronously right before the handler is invoked, once every check has passed
   * (the executor writes its trace `start` record here, so a crash mid-call leaves it open).
   */
  onDispatch?: () => void;
}

/** The catalog's flag, or the handler's own knowledge that the call changes state. */
export function isTransactionalCall(api: Api, handler: AppHandler | undefined): boolean {
  return api.transactional || handler?.hasSideEffects?.(api.name) === true;
}

/**
 * Why the caller may not call `app`'s APIs, or undefined: the app is granted, and a handler is
 * registered for it under the catalog's owner identity.
 */
export function permissionProblem(
  app: App,
  apps: AppRegistry,
  grant: ReadonlySet<string> | undefined,
): string | undefined {
  const handler = apps.get(app.id);
  if (grant && !grant.has(app.id))
    return `app "${app.id}" is not granted to this run (granted: ${[...grant].join(', ') || 'none'})`;
  if (!handler) return `no handler is registered for app "${app.id}"`;
  if (handler.owner !== app.owner)
    return `the handler for "${app.id}" runs as "${handler.owner}" but the app's owner is "${app.owner}"`;
  return undefined;
}

/** The app and API a call names, or why the catalog has no such API (with close names). */
function lookUp(call: CallRequest, index: CatalogIndex): { app: App; api: Api } | { problem: string } {
  const app = index.app(call.app);
  if (!app) {
    const owners = index.appsWithApi(call.api);
    const close = owners.length
      ? owners
      : closeNames(
          call.app,
          index.catalog.apps.map((a) => a.id),
        );
    return {
      problem: `unknown app "${call.app}"${close.length ? `; did you mean: ${close.join(', ')}` : ''}`,
    };
  }
  const api = index.api(call.app, call.api);
  if (api) return { app, api };
  const owners = index.appsWithApi(call.api);
  if (owners.length)
    return {
      problem: `app "${call.app}" has no API "${call.api}" (owned by ${owners.map((o) => `${o}.${call.api}`).join(', ')})`,
    };
  const names = index.apisOf(call.app).map((a) => a.name);
  const close = closeNames(call.api, names);
  return {
    problem: close.length
      ? `app "${call.app}" has no API "${call.api}"; did you mean: ${close.join(', ')}`
      : `app "${call.app}" has no API "${call.api}" (has: ${names.slice(0, 20).join(', ') || 'none'}${names.length > 20 ? ', …' : ''})`,
  };
}

type Settled =
  | { kind: 'value'; value: unknown }
  | { kind: 'threw'; error: unknown }
  | { kind: 'timeout' }
  | { kind: 'cancelled' };

/** `setTimeout` fires at once for delays beyond this (32-bit): treat them as no limit. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs the handler with its own abort signal, settling on the first of: its answer, the time
 * limit, or the caller's signal. The handler's signal aborts on timeout and cancellation, and a
 * handler that ignores it is abandoned. One listener on the caller's signal, removed on settling.
 * The handler's signal is made when the handler first reads it (an AbortSignal costs more than
 * the rest of a dispatch, and many handlers never look at it).
 */
function invoke(
  handler: AppHandler,
  api: string,
  args: Record<string, unknown>,
  caller: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Settled> {
  return new Promise<Settled>((resolve) => {
    let ctrl: AbortController | undefined;
    let abortedWith: { reason: unknown } | undefined;
    const abortHandler = (reason: unknown) => {
      abortedWith = { reason };
      ctrl?.abort(reason);
    };
    const context = {
      caller,
      get signal(): AbortSignal {
        if (!ctrl) {
          ctrl = new AbortController();
          if (abortedWith) ctrl.abort(abortedWith.reason);
        }
        return ctrl.signal;
      },
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const settle = (s: Settled) => {
      if (done) return;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(s);
    };
    const onAbort = () => {
      settle({ kind: 'cancelled' });
      abortHandler(signal?.reason);
    };
    if (timeoutMs <= MAX_TIMER_MS)
      timer = setTimeout(() => {
        settle({ kind: 'timeout' });
        abortHandler(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
      }, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // Promise.resolve: a plain-JS handler may return its result synchronously.
      Promise.resolve(handler.call(api, args, context)).then(
        (value) => settle({ kind: 'value', value }),
        (error) => settle({ kind: 'threw', error }),
      );
    } catch (error) {
      settle({ kind: 'threw', error });
    }
  });
}

/** Milliseconds on the clock since `t0` (0 if the clock fails: an outcome must still be returned). */
function elapsedSince(clock: Clock, t0: number): number {
  try {
    return clock.now() - t0;
  } catch {
    return 0;
  }
}

/** A handler's exception as a call error (its ApiaryError code kept as `appCode`). */
function thrownError(error: unknown): CallError {
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof ApiaryError)) return { code: 'TOOL_FAILED', message };
  const code =
    error.code === 'PERMISSION_DENIED'
      ? 'PERMISSION_DENIED'
      : error.code === 'INPUT_INVALID'
        ? 'INPUT_INVALID'
        : 'TOOL_FAILED';
  return { code, message, appCode: error.code };
}

/**
 * Executes one call, checking in order: the catalog has the app and API (`UNKNOWN_API`), the
 * arguments fit its parameters (`INPUT_INVALID`), the caller may call the app (`PERMISSION_DENIED`),
 * a transactional call is approved (`APPROVAL_DENIED`); then runs the handler under a time limit
 * and the caller's signal (`TIMEOUT`, `CANCELLED`, `TOOL_FAILED`). Expected failures are
 * outcomes, never exceptions. See docs/execution.md.
 */
export async function dispatchCall(call: CallRequest, ctx: DispatchContext): Promise<CallOutcome> {
  const clock = ctx.clock ?? systemClock;
  const t0 = clock.now();
  let transactional = false;
  let dispatched = false;
  const fail = (error: CallError): CallOutcome => ({
    ok: false,
    // a tool's error may quote what a web service answered, and that may quote the key it was sent
    error: { ...error, message: redactSecrets(error.message) },
    transactional,
    durationMs: elapsedSince(clock, t0),
    dispatched,
  });
  const what = () => `${call.app}.${call.api}`;
  try {
    const found = lookUp(call, ctx.catalog);
    if ('problem' in found) return fail({ code: 'UNKNOWN_API', message: found.problem });
    const { app, api } = found;

    // what checks, records and runs the arguments recurses: a deeper value would overflow the stack
    if (valueDepthExceeds(call.args, MAX_JSON_DEPTH))
      return fail({
        code: 'INPUT_INVALID',
        message: `invalid arguments for ${what()}: nested deeper than ${MAX_JSON_DEPTH} levels`,
      });
    if (ctx.validate !== false) {
      const issues = argumentIssues(api, call.args);
      if (issues.length)
        return fail({
          code: 'INPUT_INVALID',
          message: `invalid arguments for ${what()}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
          issues,
        });
    }

    const problem = permissionProblem(app, ctx.apps, ctx.grant);
    if (problem) return fail({ code: 'PERMISSION_DENIED', message: problem });
    const handler = ctx.apps.get(app.id)!;
    transactional = isTransactionalCall(api, handler);

    const cancelledBefore = (): CallOutcome =>
      fail({ code: 'CANCELLED', message: `${what()} was cancelled before it was dispatched` });
    if (ctx.signal?.aborted) return cancelledBefore();
    if (transactional) {
      const approve = ctx.approve ?? denyAll;
      let decision: ApprovalDecision;
      try {
        decision = await approve(approvalRequest(call.id ?? what(), api, call.args));
      } catch (error) {
        decision = { approved: false, reason: `the approver failed: ${(error as Error)?.message ?? error}` };
      }
      if (!decision?.approved)
        return fail({
          code: 'APPROVAL_DENIED',
          message: `transactional call ${what()} not approved${decision?.reason ? `: ${decision.reason}` : ''}`,
        });
      if (ctx.signal?.aborted) return cancelledBefore();
    }

    ctx.onDispatch?.();
    dispatched = true;
    const timeoutMs = ctx.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const settled = await invoke(handler, api.name, call.args, app.owner, timeoutMs, ctx.signal);
    const mayHaveTakenEffect = transactional ? ' (transactional call: it may have taken effect)' : '';
    switch (settled.kind) {
      case 'timeout':
        return fail({ code: 'TIMEOUT', message: `no answer within ${timeoutMs} ms${mayHaveTakenEffect}` });
      case 'cancelled':
        return fail({
          code: 'CANCELLED',
          message: `${what()} was cancelled during the call${mayHaveTakenEffect}`,
        });
      case 'threw':
        return fail(thrownError(settled.error));
    }
    const raw = settled.value;
    if (raw === null || typeof raw !== 'object')
      return fail({
        code: 'TOOL_FAILED',
        message: `${what()} returned ${String(raw)}, not rows or a record`,
      });
    return {
      ok: true,
      content: toContent(raw as AppCallResult),
      raw: raw as AppCallResult,
      transactional,
      durationMs: elapsedSince(clock, t0),
    };
  } catch (error) {
    // Not an expected failure (e.g. a throwing clock or dispatch hook): still an outcome.
    return fail({
      code: 'TOOL_FAILED',
      message: `dispatch failed: ${(error as Error)?.message ?? String(error)}`,
    });
  }
}
