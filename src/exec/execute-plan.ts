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
import { type ApprovalHandler, denyAll, serialQueue } from './approval.js';
import { type CallError, type ContentPart, toContent } from './call-result.js';
import { type Clock, systemClock } from './clock.js';
import {
  type AppRegistry,
  appRegistry,
  dispatchCall,
  isTransactionalCall,
  permissionProblem,
} from './dispatch-call.js';
import { defaultPrompt, type InputProviders, systemInputs } from './inputs.js';
import { type OutputSlot, outputValues, resultRows, selectOutputs } from './step-outputs.js';
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
  /** The raw app result (rows, record or content parts). */
  result?: AppCallResult;
  /** The result as content parts (see `toContent`). */
  content?: ContentPart[];
  /** Named outputs that have values (see `selectOutputs`). */
  outputs?: Record<string, unknown>;
  error?: StepError;
  /**
   * The call succeeded and returned no row (a search that matched nothing): the step has no
   * outputs, and steps reading them fail with "returned no row". Set only then.
   */
  empty?: true;
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

/**
 * A dispatch error as the step error the executor has always reported: a refused approval is
 * `PERMISSION_DENIED` (refused), a handler's ApiaryError keeps its code, anything else it threw
 * is `CALL_FAILED`, cancellation is worded for the run.
 */
function stepFailureOf(error: CallError, dispatched: boolean, transactional: boolean): StepFailure {
  switch (error.code) {
    case 'UNKNOWN_API':
      return new StepFailure('PLAN_INVALID', error.message, 'refused');
    case 'PERMISSION_DENIED':
    case 'APPROVAL_DENIED':
      return new StepFailure('PERMISSION_DENIED', error.message, 'refused');
    case 'INPUT_INVALID':
      return new StepFailure(error.appCode ?? 'INPUT_INVALID', error.message);
    case 'TOOL_FAILED':
      return new StepFailure(error.appCode ?? 'CALL_FAILED', error.message);
    case 'TIMEOUT':
      return new StepFailure('TIMEOUT', error.message);
    case 'CANCELLED':
      return dispatched
        ? new StepFailure(
            'CANCELLED',
            `the run was cancelled during the call${transactional ? ' (transactional call: it may have taken effect)' : ''}`,
            'cancelled',
          )
        : cancelledBeforeDispatch();
  }
}

const cancelledBeforeDispatch = () =>
  new StepFailure('CANCELLED', 'the run was cancelled before this step was dispatched', 'cancelled');

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

/** How long the scheduler runs steps before it lets the event loop turn (signals, timers, I/O). */
const YIELD_EVERY_MS = 20;

/** `work`, or its signal's abort reason if that comes first (the listener goes when either settles). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Static permission checks, before anything runs: the app is granted, a handler is registered
 * for it under the catalog's owner identity, and the catalog says the app owns the API.
 */
function permissionProblems(
  plan: Plan,
  index: CatalogIndex,
  apps: AppRegistry,
  grant: ReadonlySet<string> | undefined,
): Map<string, string> {
  const problems = new Map<string, string>();
  const byApp = new Map<string, string | undefined>(); // the same answer for every step of an app
  for (const step of plan.steps) {
    const app = index.app(step.app);
    let problem: string | undefined;
    if (!app || !index.api(step.app, step.api))
      problem = `the catalog does not say app "${step.app}" owns API "${step.api}"`;
    else if (byApp.has(app.id)) problem = byApp.get(app.id);
    else {
      problem = permissionProblem(app, apps, grant);
      byApp.set(app.id, problem);
    }
    if (problem) problems.set(step.id, problem);
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
  const sink = opts.trace;
  // Undefined without a sink, so `trace?.({...})` builds no record at all.
  const trace = sink
    ? (e: Omit<TraceEvent, 'run' | 'time'>) => sink.write({ run: runId, time: iso(), ...e })
    : undefined;

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
      trace?.({ event: 'refused', step: step.id, app: step.app, api: step.api, error });
    }
  };

  // 1. Validation: the plan is fixed and checked before anything runs.
  const issues = validatePlan(plan, index);
  if (issues.length) {
    const all = issues.map((i) => `${i.step ?? '-'}${i.field ? `.${i.field}` : ''}: ${i.message}`).join('; ');
    const byStep = new Map<string, string[]>();
    for (const i of issues)
      if (i.step !== undefined) byStep.set(i.step, [...(byStep.get(i.step) ?? []), i.message]);
    refuseAll('PLAN_INVALID', (step) => {
      const own = byStep.get(step.id);
      return own ? `plan refused: ${own.join('; ')}` : `plan refused (nothing executed): ${all}`;
    });
    return finish('refused', issues);
  }

  // 2. Permissions that do not depend on run-time values.
  const apps = appRegistry(opts.handlers);
  const problems = permissionProblems(plan, index, apps, opts.grant ? new Set(opts.grant) : undefined);
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

  /**
   * Literal and reference arguments (synchronously), or the recorded call to reuse on resume;
   * `deferred` lists the `ask`/`system` arguments still to obtain (`askAndRead`).
   */
  const resolveArgs = (
    step: Step,
  ): { args: Record<string, unknown>; reuse?: TraceEvent; deferred: Array<[string, ArgValue]> } => {
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
        deferred: [],
      };
    return { args, deferred };
  };

  /** User and system inputs, last: never bother the user for a step that cannot run. */
  const askAndRead = async (
    step: Step,
    api: Api,
    args: Record<string, unknown>,
    deferred: Array<[string, ArgValue]>,
  ): Promise<void> => {
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
  };

  // The run times steps itself (startedAt/endedAt): dispatch durations are not read, and reading
  // the run clock for them would move every later timestamp of a clock that ticks per read.
  const untimed: Clock = { now: () => 0, sleep: clock.sleep };
  /** Approvals share the question queue: one terminal prompt at a time. */
  const approveSerially: ApprovalHandler = (request) => askSerially(async () => approve(request));

  const runStep = async (step: Step, signal: AbortSignal | undefined): Promise<void> => {
    const r = results.get(step.id)!;
    const api = index.api(step.app, step.api)!;
    const handler = apps.get(step.app)!;
    const transactional = isTransactionalCall(api, handler);
    const base = { step: step.id, app: step.app, api: step.api };
    const settle = (f: StepFailure) => {
      r.status = f.status;
      r.error = { code: f.code, message: f.message };
      r.endedAt = iso();
    };
    const refuse = (f: StepFailure) => {
      settle(runSignal?.aborted ? cancelledBeforeDispatch() : f);
      trace?.({ ...base, event: 'refused', ...(r.args ? { inputs: r.args } : {}), error: r.error! });
    };
    try {
      if (runSignal?.aborted) throw new StepFailure('CANCELLED', 'the run was cancelled', 'cancelled');
      const resolved = resolveArgs(step);
      if (resolved.deferred.length) {
        const reading = askAndRead(step, api, resolved.args, resolved.deferred);
        reading.catch(() => undefined);
        await untilAborted(reading, signal);
      }
      // In the order the plan writes them (deferred inputs were filled in last).
      r.args =
        resolved.deferred.length === 0
          ? resolved.args
          : Object.fromEntries(Object.keys(step.args).map((name) => [name, resolved.args[name]]));
      if (resolved.reuse) {
        const result = resolved.reuse.result as AppCallResult;
        const stepSlots = selectOutputs(step, result, r.args);
        slots.set(step.id, stepSlots);
        Object.assign(r, {
          status: 'succeeded',
          resumed: true,
          result,
          content: toContent(result),
          outputs: outputValues(stepSlots),
        });
        if (resultRows(result).length === 0) r.empty = true;
        r.startedAt = r.endedAt = resolved.reuse.time;
        return;
      }
      if (transactional && unknownOutcome.has(step.id))
        throw new StepFailure(
          'PERMISSION_DENIED',
          `an earlier attempt of transactional call ${step.app}.${step.api} (run ${runId}) never finished, so whether it took effect is unknown; it is not repeated on resume`,
          'refused',
        );
    } catch (error) {
      refuse(toStepError(error));
      return;
    }

    const maxAttempts = transactional ? 1 : retries + 1;
    for (let attempt = 1; ; attempt++) {
      const args = r.args;
      const outcome = await dispatchCall(
        { id: step.id, app: step.app, api: step.api, args },
        {
          catalog: index,
          apps,
          approve: approveSerially,
          timeoutMs: stepTimeoutMs,
          signal,
          // The plan was validated before the run; resolved values (references, answers, system
          // inputs) are passed on as they are, as they always were.
          validate: false,
          clock: untimed,
          onDispatch: () => {
            r.attempts = attempt;
            r.startedAt ??= iso();
            trace?.({ ...base, event: 'start', attempt, inputs: args });
          },
        },
      );
      if (outcome.ok) {
        const stepSlots = selectOutputs(step, outcome.raw, args);
        slots.set(step.id, stepSlots);
        r.status = 'succeeded';
        r.result = outcome.raw;
        r.content = outcome.content;
        r.outputs = outputValues(stepSlots);
        r.endedAt = iso();
        if (resultRows(outcome.raw).length === 0) r.empty = true;
        trace?.({
          ...base,
          event: 'end',
          attempt,
          inputs: args,
          outputs: r.outputs,
          result: outcome.raw,
          ...(r.empty ? { empty: true } : {}),
        });
        return;
      }
      const f = stepFailureOf(outcome.error, outcome.dispatched, transactional);
      if (!outcome.dispatched) {
        refuse(f);
        return;
      }
      settle(f);
      const cancelled = f.status === 'cancelled';
      trace?.({ ...base, event: cancelled ? 'interrupted' : 'error', attempt, error: r.error! });
      const retriable = !cancelled && f.status !== 'refused' && !PERMANENT.has(f.code);
      if (!retriable || attempt >= maxAttempts) return;
      try {
        await clock.sleep(retryDelayMs * 2 ** (attempt - 1), signal);
      } catch {
        settle(new StepFailure('CANCELLED', 'the run was cancelled while waiting to retry', 'cancelled'));
        return;
      }
      delete r.error;
    }
  };

  // 3. Scheduling: a step becomes ready when all the steps it references have settled. Every
  // operation is O(1) per step or per reference: a FIFO by index, counts of unsettled
  // dependencies, and one listener on the run's signal that aborts the steps in flight (each
  // step has its own signal, so a wide run never piles listeners onto the caller's signal).
  const unsettled = new Map<string, number>();
  const dependents = new Map<string, string[]>(plan.steps.map((s) => [s.id, []]));
  for (const s of plan.steps) {
    const deps = dependenciesOf(s).filter((d) => byId.has(d)); // deduplicated
    unsettled.set(s.id, deps.length);
    for (const d of deps) dependents.get(d)!.push(s.id);
  }
  const ready = plan.steps.filter((s) => unsettled.get(s.id) === 0).map((s) => s.id);
  let nextReady = 0;
  const started = new Set<string>();
  const inFlight = new Set<AbortController>();

  await new Promise<void>((done) => {
    let running = 0;
    let lastYield = performance.now();
    let yieldPending = false;
    const pump = () => {
      while (!runSignal?.aborted && running < concurrency && nextReady < ready.length) {
        const id = ready[nextReady++]!;
        started.add(id);
        running++;
        const ctrl = runSignal ? new AbortController() : undefined;
        if (ctrl) inFlight.add(ctrl);
        runStep(byId.get(id)!, ctrl?.signal)
          .catch((error) => {
            const r = results.get(id)!;
            r.status = 'failed';
            r.error = { code: 'CALL_FAILED', message: `executor error: ${(error as Error).message}` };
          })
          .finally(() => {
            if (ctrl) inFlight.delete(ctrl);
            running--;
            for (const next of dependents.get(id)!) {
              const left = unsettled.get(next)! - 1;
              unsettled.set(next, left);
              if (left === 0) ready.push(next);
            }
            // Steps of in-process apps settle in microtasks only: without a turn of the event
            // loop now and then, a signal (Ctrl-C) or a timer would wait for the whole plan. While a
            // turn is pending no step starts, so the microtask chain runs dry and the loop turns.
            if (yieldPending) return;
            if (performance.now() - lastYield >= YIELD_EVERY_MS) {
              yieldPending = true;
              setImmediate(() => {
                yieldPending = false;
                lastYield = performance.now();
                pump();
              });
            } else pump();
          });
      }
      if (running === 0 && (nextReady === ready.length || runSignal?.aborted)) {
        runSignal?.removeEventListener('abort', onRunAbort);
        done();
      }
    };
    const onRunAbort = () => {
      for (const ctrl of inFlight) ctrl.abort(runSignal!.reason);
      queueMicrotask(pump);
    };
    runSignal?.addEventListener('abort', onRunAbort, { once: true });
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
