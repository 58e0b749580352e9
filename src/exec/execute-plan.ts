import type { AppCallResult, AppHandler } from '../apps/index.js';
import { type Api, type Catalog, type CatalogIndex, indexCatalog } from '../catalog/index.js';
import {
  type ArgValue,
  dependenciesOf,
  type Plan,
  type PlanIssue,
  type Step,
  validatePlan,
} from '../plan/index.js';
import { ApiaryError } from '../shared/index.js';
import { type ApprovalHandler, approvalRequest, denyAll } from './approval.js';
import { type Clock, systemClock } from './clock.js';
import { defaultPrompt, type InputProviders, systemInputs } from './inputs.js';
import { type OutputSlot, outputValues, selectOutputs } from './step-outputs.js';
import type { TraceEvent, TraceSink } from './trace.js';

export type StepStatus = 'succeeded' | 'failed' | 'refused' | 'cancelled';
export type RunStatus = 'succeeded' | 'failed' | 'refused' | 'cancelled';

/**
 * Why a step did not succeed:
 * - `PLAN_INVALID`: the plan failed validation; nothing ran.
 * - `PERMISSION_DENIED`: app not granted, no handler (or a handler under the wrong owner) for
 *   the app, transactional call not approved, or the handler refused the caller. Not dispatched.
 * - `DEPENDENCY_FAILED`: an argument references an output of a step that failed or returned
 *   no such value. Not dispatched.
 * - `INPUT_UNAVAILABLE`: an `ask` or `system` argument could not be obtained. Not dispatched.
 * - `TIMEOUT`: the call did not finish within `stepTimeoutMs` (last attempt).
 * - `CANCELLED`: the run was cancelled before or while the step ran.
 * - `CALL_FAILED` (or the handler's ApiaryError code): the app call threw.
 */
export type StepErrorCode =
  | 'PLAN_INVALID'
  | 'PERMISSION_DENIED'
  | 'DEPENDENCY_FAILED'
  | 'INPUT_UNAVAILABLE'
  | 'TIMEOUT'
  | 'CANCELLED'
  | 'CALL_FAILED'
  | (string & {});

export interface StepError {
  code: StepErrorCode;
  message: string;
}

export interface StepResult {
  id: string;
  app: string;
  api: string;
  status: StepStatus;
  /** Dispatches made (0 when the step never reached its app). */
  attempts: number;
  /** Resolved argument values (when resolution got that far). */
  args?: Record<string, unknown>;
  /** The raw app result (rows or record). */
  result?: AppCallResult;
  /** Named outputs that have values (see `selectOutputs`). */
  outputs?: Record<string, unknown>;
  error?: StepError;
  /** The result was taken from the trace of the run being resumed (no call was made). */
  resumed?: boolean;
  /** ISO times from the run's clock (first dispatch / settlement). */
  startedAt?: string;
  endedAt?: string;
}

export interface ExecutionResult {
  runId: string;
  status: RunStatus;
  /** Validation problems (status `refused`); empty otherwise. */
  issues: PlanIssue[];
  /** One result per plan step, in plan order. */
  steps: StepResult[];
  /** Step id → its named outputs, for succeeded steps. */
  outputs: Record<string, Record<string, unknown>>;
  /** Milliseconds from start to end on the run's clock. */
  elapsedMs: number;
}

export interface ExecuteOptions {
  catalog: Catalog | CatalogIndex;
  handlers: readonly AppHandler[];
  /** App ids this run may call; default: every app of the catalog. */
  grant?: readonly string[];
  /** Decides transactional calls; default `denyAll` (safe by default). */
  approve?: ApprovalHandler;
  /** Answers to `ask` arguments and `system` inputs (default system inputs use the run clock). */
  inputs?: InputProviders;
  /** Steps in flight at once (default 8; `Infinity` for no limit). */
  concurrency?: number;
  /** Per-attempt time limit in ms (default 30 000). */
  stepTimeoutMs?: number;
  /** Extra attempts after a failure, for non-transactional APIs only (default 2). */
  retries?: number;
  /** First backoff wait in ms, doubled after each failed attempt (default 100). */
  retryDelayMs?: number;
  /** Cancels the run: running calls are aborted, pending steps end `cancelled`. */
  signal?: AbortSignal;
  trace?: TraceSink;
  clock?: Clock;
  /** Id written in every trace record (default: the resumed run's id, else `run-<clock ms>`). */
  runId?: string;
  /**
   * Continue an earlier run from its trace (repair it first with `repairTrace`). A step whose
   * `end` record has the same app, API and literal/reference inputs is not called again: its
   * recorded inputs and result are reused. A transactional step whose earlier attempt never
   * ended (interrupted, timed out) is refused: whether it took effect is unknown.
   */
  resume?: { runId: string; events: readonly TraceEvent[] };
}

/** Errors that will not change on a retry. */
const PERMANENT = new Set(['PERMISSION_DENIED', 'INPUT_INVALID', 'NOT_FOUND', 'USAGE', 'PLAN_INVALID']);

class StepFailure extends Error {
  constructor(
    readonly code: StepErrorCode,
    message: string,
    readonly status: StepStatus = 'failed',
  ) {
    super(message);
  }
}

function toStepError(error: unknown): StepFailure {
  if (error instanceof StepFailure) return error;
  if (error instanceof ApiaryError)
    return new StepFailure(
      error.code,
      error.message,
      error.code === 'PERMISSION_DENIED' ? 'refused' : 'failed',
    );
  const message = error instanceof Error ? error.message : String(error);
  return new StepFailure('CALL_FAILED', message);
}

/** Equal as JSON values (what a trace record can hold). */
function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** From the trace of the run being resumed: the last `end` per step, and steps with an unfinished attempt. */
function resumeState(resume: ExecuteOptions['resume']): {
  finished: Map<string, TraceEvent>;
  unknownOutcome: Set<string>;
} {
  const finished = new Map<string, TraceEvent>();
  const open = new Map<string, Set<number>>();
  const unknownOutcome = new Set<string>();
  for (const e of resume?.events ?? []) {
    if (e.run !== resume!.runId) continue;
    const attempts = open.get(e.step) ?? new Set<number>();
    open.set(e.step, attempts);
    const attempt = e.attempt ?? 1;
    if (e.event === 'start') attempts.add(attempt);
    else if (e.event === 'end') {
      attempts.delete(attempt);
      if (e.result !== undefined && e.result !== null) finished.set(e.step, e);
    } else if (e.event === 'interrupted' || (e.event === 'error' && e.error?.code === 'TIMEOUT'))
      unknownOutcome.add(e.step);
    else attempts.delete(attempt);
  }
  for (const [step, attempts] of open) if (attempts.size) unknownOutcome.add(step);
  return { finished, unknownOutcome };
}

/** Settles when the signal aborts, with its reason; never settles otherwise. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Runs one task at a time (terminal questions must not interleave). */
function serialQueue() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

function handlerMap(handlers: readonly AppHandler[]): Map<string, AppHandler> {
  const map = new Map<string, AppHandler>();
  for (const h of handlers) {
    if (map.has(h.appId))
      throw new ApiaryError('USAGE', `two handlers registered for app "${h.appId}" (ambiguous dispatch)`);
    map.set(h.appId, h);
  }
  return map;
}

/**
 * Static permission checks, before anything runs: the app is granted, a handler is registered
 * for it under the catalog's owner identity, and the catalog says the app owns the API.
 */
function permissionProblems(
  plan: Plan,
  index: CatalogIndex,
  handlers: Map<string, AppHandler>,
  grant: ReadonlySet<string> | undefined,
): Map<string, string> {
  const problems = new Map<string, string>();
  for (const step of plan.steps) {
    const app = index.app(step.app);
    const api = index.api(step.app, step.api);
    const handler = handlers.get(step.app);
    if (!app || !api)
      problems.set(step.id, `the catalog does not say app "${step.app}" owns API "${step.api}"`);
    else if (grant && !grant.has(step.app))
      problems.set(
        step.id,
        `app "${step.app}" is not granted to this run (granted: ${[...grant].join(', ') || 'none'})`,
      );
    else if (!handler) problems.set(step.id, `no handler is registered for app "${step.app}"`);
    else if (handler.owner !== app.owner)
      problems.set(
        step.id,
        `the handler for "${step.app}" runs as "${handler.owner}" but the app's owner is "${app.owner}"`,
      );
  }
  return problems;
}

/**
 * Executes a plan: validates it (any issue refuses the whole plan, nothing runs), checks
 * permissions (any violation refuses the whole plan), then runs each step as soon as the
 * steps it references have finished, at most `concurrency` at a time. See docs/execution.md.
 */
export async function executePlan(plan: Plan, opts: ExecuteOptions): Promise<ExecutionResult> {
  const clock = opts.clock ?? systemClock;
  const t0 = clock.now();
  const runId = opts.runId ?? opts.resume?.runId ?? `run-${t0}`;
  const iso = () => new Date(clock.now()).toISOString();
  const index = 'apiById' in opts.catalog ? opts.catalog : indexCatalog(opts.catalog);
  const concurrency = opts.concurrency ?? 8;
  if (!(concurrency >= 1))
    throw new ApiaryError('USAGE', `concurrency must be at least 1 (got ${concurrency})`);
  const stepTimeoutMs = opts.stepTimeoutMs ?? 30_000;
  const retries = Math.max(0, opts.retries ?? 2);
  const retryDelayMs = opts.retryDelayMs ?? 100;
  const approve = opts.approve ?? denyAll;
  const ask = opts.inputs?.ask;
  const system = opts.inputs?.system ?? systemInputs({ clock });
  const askSerially = serialQueue();
  const trace = (e: Omit<TraceEvent, 'run' | 'time'>) => opts.trace?.write({ run: runId, time: iso(), ...e });

  const results = new Map<string, StepResult>(
    plan.steps.map((s) => [s.id, { id: s.id, app: s.app, api: s.api, status: 'cancelled', attempts: 0 }]),
  );
  const finish = (status: RunStatus, issues: PlanIssue[] = []): ExecutionResult => {
    const outputs: Record<string, Record<string, unknown>> = {};
    for (const r of results.values()) if (r.status === 'succeeded' && r.outputs) outputs[r.id] = r.outputs;
    return {
      runId,
      status,
      issues,
      steps: plan.steps.map((s) => results.get(s.id)!),
      outputs,
      elapsedMs: clock.now() - t0,
    };
  };
  const refuseAll = (code: StepErrorCode, reasonOf: (step: Step) => string): void => {
    for (const step of plan.steps) {
      const error = { code, message: reasonOf(step) };
      Object.assign(results.get(step.id)!, { status: 'refused', error });
      trace({ event: 'refused', step: step.id, app: step.app, api: step.api, error });
    }
  };

  // 1. Validation: the plan is fixed and checked before anything runs.
  const issues = validatePlan(plan, index);
  if (issues.length) {
    const all = issues.map((i) => `${i.step ?? '-'}${i.field ? `.${i.field}` : ''}: ${i.message}`).join('; ');
    refuseAll('PLAN_INVALID', (step) => {
      const own = issues.filter((i) => i.step === step.id).map((i) => i.message);
      return own.length ? `plan refused: ${own.join('; ')}` : `plan refused (nothing executed): ${all}`;
    });
    return finish('refused', issues);
  }

  // 2. Permissions that do not depend on run-time values.
  const handlers = handlerMap(opts.handlers);
  const problems = permissionProblems(plan, index, handlers, opts.grant ? new Set(opts.grant) : undefined);
  if (problems.size) {
    const summary = [...problems].map(([id, p]) => `${id}: ${p}`).join('; ');
    refuseAll('PERMISSION_DENIED', (step) =>
      problems.has(step.id) ? problems.get(step.id)! : `plan refused (nothing executed): ${summary}`,
    );
    return finish('refused');
  }

  const byId = new Map(plan.steps.map((s) => [s.id, s]));
  const { finished, unknownOutcome } = resumeState(opts.resume);
  const slots = new Map<string, Map<string, OutputSlot>>();
  const runSignal = opts.signal;

  const resolveArgs = async (
    step: Step,
    api: Api,
  ): Promise<{ args: Record<string, unknown>; reuse?: TraceEvent }> => {
    const args: Record<string, unknown> = {};
    const deferred: Array<[string, ArgValue]> = [];
    for (const [name, value] of Object.entries(step.args)) {
      if (value.kind === 'literal') args[name] = value.value;
      else if (value.kind === 'ref') {
        const producer = results.get(value.step!)!;
        const slot = slots.get(value.step!)?.get(value.output);
        if (producer.status !== 'succeeded')
          throw new StepFailure(
            'DEPENDENCY_FAILED',
            `argument "${name}" needs ${value.step}.${value.output}, but step ${value.step} ${producer.status}` +
              (producer.error ? `: ${producer.error.message}` : ''),
          );
        if (!slot?.ok)
          throw new StepFailure(
            'DEPENDENCY_FAILED',
            `argument "${name}" needs ${value.step}.${value.output}: ${slot ? slot.reason : 'no such output'}`,
          );
        args[name] = slot.value;
      } else deferred.push([name, value]);
    }
    const done = finished.get(step.id);
    if (
      done?.app === step.app &&
      done.api === step.api &&
      done.inputs &&
      Object.keys(step.args).every((name) => Object.hasOwn(done.inputs!, name)) &&
      Object.entries(args).every(([name, v]) => sameValue(v, done.inputs![name]))
    )
      return {
        args: Object.fromEntries(Object.keys(step.args).map((name) => [name, done.inputs![name]])),
        reuse: done,
      };
    // User and system inputs last: never bother the user for a step that cannot run.
    for (const [name, value] of deferred) {
      const q = { step: step.id, app: step.app, api: api.name, arg: name };
      try {
        if (value.kind === 'ask') {
          if (!ask) throw new Error('the run has no answer provider for questions to the user');
          const prompt = value.prompt ?? defaultPrompt(step.app, api.name, name);
          args[name] = await askSerially(async () => ask({ ...q, prompt }));
        } else if (value.kind === 'system') args[name] = await system(value.source, q);
      } catch (error) {
        const what =
          value.kind === 'ask'
            ? 'the answer to'
            : `system input "${value.kind === 'system' ? value.source : ''}" for`;
        throw new StepFailure(
          'INPUT_UNAVAILABLE',
          `could not get ${what} argument "${name}": ${(error as Error).message ?? String(error)}`,
        );
      }
    }
    // In the order the plan writes them.
    return { args: Object.fromEntries(Object.keys(step.args).map((name) => [name, args[name]])) };
  };

  const callOnce = async (handler: AppHandler, owner: string, api: Api, args: Record<string, unknown>) => {
    const ctrl = new AbortController();
    const onRunAbort = () =>
      ctrl.abort(new StepFailure('CANCELLED', 'the run was cancelled during the call', 'cancelled'));
    runSignal?.addEventListener('abort', onRunAbort, { once: true });
    const timer = setTimeout(
      () => ctrl.abort(new StepFailure('TIMEOUT', `no answer within ${stepTimeoutMs} ms`)),
      stepTimeoutMs,
    );
    try {
      if (runSignal?.aborted) onRunAbort();
      const call = Promise.resolve().then(() =>
        handler.call(api.name, args, { caller: owner, signal: ctrl.signal }),
      );
      call.catch(() => undefined); // a call that loses the race must not surface as unhandled
      const result = await Promise.race([call, aborted(ctrl.signal)]);
      if (result === null || typeof result !== 'object')
        throw new StepFailure(
          'CALL_FAILED',
          `${api.app}.${api.name} returned ${String(result)}, not rows or a record`,
        );
      return result;
    } finally {
      clearTimeout(timer);
      runSignal?.removeEventListener('abort', onRunAbort);
    }
  };

  const runStep = async (step: Step): Promise<void> => {
    const r = results.get(step.id)!;
    const api = index.api(step.app, step.api)!;
    const app = index.app(step.app)!;
    const handler = handlers.get(step.app)!;
    // The catalog's flag, or the handler's own knowledge that the call changes state.
    const transactional = api.transactional || handler.hasSideEffects?.(api.name) === true;
    const base = { step: step.id, app: step.app, api: step.api };
    const settle = (f: StepFailure) => {
      r.status = f.status;
      r.error = { code: f.code, message: f.message };
      r.endedAt = iso();
    };
    try {
      if (runSignal?.aborted) throw new StepFailure('CANCELLED', 'the run was cancelled', 'cancelled');
      const resolving = resolveArgs(step, api);
      resolving.catch(() => undefined);
      const resolved = await (runSignal ? Promise.race([resolving, aborted(runSignal)]) : resolving);
      r.args = resolved.args;
      if (resolved.reuse) {
        const result = resolved.reuse.result as AppCallResult;
        const stepSlots = selectOutputs(step, result, r.args);
        slots.set(step.id, stepSlots);
        Object.assign(r, { status: 'succeeded', resumed: true, result, outputs: outputValues(stepSlots) });
        r.startedAt = r.endedAt = resolved.reuse.time;
        return;
      }
      if (transactional && unknownOutcome.has(step.id))
        throw new StepFailure(
          'PERMISSION_DENIED',
          `an earlier attempt of transactional call ${step.app}.${step.api} (run ${runId}) never finished, so whether it took effect is unknown; it is not repeated on resume`,
          'refused',
        );
      if (transactional) {
        let decision: { approved: boolean; reason?: string };
        try {
          decision = await askSerially(async () => approve(approvalRequest(step.id, api, r.args!)));
        } catch (error) {
          decision = { approved: false, reason: `the approver failed: ${(error as Error).message}` };
        }
        if (!decision.approved)
          throw new StepFailure(
            'PERMISSION_DENIED',
            `transactional call ${step.app}.${step.api} not approved${decision.reason ? `: ${decision.reason}` : ''}`,
            'refused',
          );
      }
      if (runSignal?.aborted) throw new StepFailure('CANCELLED', 'the run was cancelled', 'cancelled');
    } catch (error) {
      const f = runSignal?.aborted
        ? new StepFailure('CANCELLED', 'the run was cancelled before this step was dispatched', 'cancelled')
        : toStepError(error);
      settle(f);
      trace({ ...base, event: 'refused', ...(r.args ? { inputs: r.args } : {}), error: r.error! });
      return;
    }

    const maxAttempts = transactional ? 1 : retries + 1;
    for (let attempt = 1; ; attempt++) {
      r.attempts = attempt;
      r.startedAt ??= iso();
      trace({ ...base, event: 'start', attempt, inputs: r.args });
      try {
        const result = await callOnce(handler, app.owner, api, r.args);
        const stepSlots = selectOutputs(step, result, r.args);
        slots.set(step.id, stepSlots);
        r.status = 'succeeded';
        r.result = result;
        r.outputs = outputValues(stepSlots);
        r.endedAt = iso();
        trace({ ...base, event: 'end', attempt, inputs: r.args, outputs: r.outputs, result });
        return;
      } catch (error) {
        let f = toStepError(error);
        if (transactional && (f.code === 'TIMEOUT' || f.code === 'CANCELLED'))
          f = new StepFailure(
            f.code,
            `${f.message} (transactional call: it may have taken effect)`,
            f.status,
          );
        settle(f);
        const cancelled = f.status === 'cancelled';
        trace({ ...base, event: cancelled ? 'interrupted' : 'error', attempt, error: r.error! });
        const retriable = !cancelled && f.status !== 'refused' && !PERMANENT.has(f.code);
        if (!retriable || attempt >= maxAttempts) return;
        try {
          await clock.sleep(retryDelayMs * 2 ** (attempt - 1), runSignal);
        } catch {
          settle(new StepFailure('CANCELLED', 'the run was cancelled while waiting to retry', 'cancelled'));
          return;
        }
        delete r.error;
      }
    }
  };

  // 3. Scheduling: a step becomes ready when all the steps it references have settled.
  const waiting = new Map(
    plan.steps.map((s) => [s.id, new Set(dependenciesOf(s).filter((d) => byId.has(d)))]),
  );
  const dependents = new Map<string, string[]>(plan.steps.map((s) => [s.id, []]));
  for (const [id, deps] of waiting) for (const d of deps) dependents.get(d)!.push(id);
  const ready = plan.steps.filter((s) => waiting.get(s.id)!.size === 0).map((s) => s.id);
  const started = new Set<string>();

  await new Promise<void>((done) => {
    let running = 0;
    const pump = () => {
      while (!runSignal?.aborted && running < concurrency && ready.length) {
        const id = ready.shift()!;
        started.add(id);
        running++;
        runStep(byId.get(id)!)
          .catch((error) => {
            const r = results.get(id)!;
            r.status = 'failed';
            r.error = { code: 'CALL_FAILED', message: `executor error: ${(error as Error).message}` };
          })
          .finally(() => {
            running--;
            for (const next of dependents.get(id)!) {
              const w = waiting.get(next)!;
              w.delete(id);
              if (w.size === 0) ready.push(next);
            }
            pump();
          });
      }
      if (running === 0 && (ready.length === 0 || runSignal?.aborted)) done();
    };
    runSignal?.addEventListener('abort', () => queueMicrotask(pump), { once: true });
    pump();
  });

  // Steps never started (run cancelled): cancelled.
  for (const step of plan.steps)
    if (!started.has(step.id)) {
      const r = results.get(step.id)!;
      r.status = 'cancelled';
      r.error = { code: 'CANCELLED', message: 'the run was cancelled before this step started' };
    }
  const all = [...results.values()];
  const status: RunStatus = runSignal?.aborted
    ? 'cancelled'
    : all.every((r) => r.status === 'succeeded')
      ? 'succeeded'
      : 'failed';
  return finish(status);
}
