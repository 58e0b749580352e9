import type { Api } from '../catalog/index.js';

/** What an approver sees before a transactional call: the step, its API and the resolved arguments. */
export interface ApprovalRequest {
  step: string;
  app: string;
  api: string;
  description: string;
  args: Record<string, unknown>;
}

export interface ApprovalDecision {
  approved: boolean;
  /** Why it was refused (shown in the step's error and the trace). */
  reason?: string;
}

/**
 * Decides whether a transactional call (booking, payment) may run. Asked once per call,
 * after its arguments are resolved and before anything is dispatched.
 */
export type ApprovalHandler = (request: ApprovalRequest) => Promise<ApprovalDecision> | ApprovalDecision;

export const autoApprove: ApprovalHandler = () => ({ approved: true });

export const denyAll: ApprovalHandler = () => ({
  approved: false,
  reason: 'transactional calls are denied for this run',
});

/** Wraps a yes/no callback (sync or async) as an approval handler. */
export function approveWith(
  decide: (request: ApprovalRequest) => boolean | Promise<boolean>,
): ApprovalHandler {
  return async (request) =>
    (await decide(request)) ? { approved: true } : { approved: false, reason: 'refused by the approver' };
}

export function approvalRequest(step: string, api: Api, args: Record<string, unknown>): ApprovalRequest {
  return { step, app: api.app, api: api.name, description: api.description, args };
}

/** One line describing a call, e.g. `Payment.makepayment(amount=12, receiver="Ann")`. */
export function describeCall(request: ApprovalRequest): string {
  const args = Object.entries(request.args)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ');
  return `${request.app}.${request.api}(${args})`;
}

/** Asks on the terminal (yes/no, default no). Interactive: not for tests or non-TTY runs. */
export function askOnTerminal(
  deps: { confirm?: (opts: { message: string; default: boolean }) => Promise<boolean> } = {},
): ApprovalHandler {
  return async (request) => {
    const confirm = deps.confirm ?? (await import('@inquirer/prompts')).confirm;
    const ok = await confirm({
      message: `Allow transactional call ${describeCall(request)}?`,
      default: false,
    });
    return ok ? { approved: true } : { approved: false, reason: 'refused on the terminal' };
  };
}

/** Runs one task at a time, in call order (terminal questions must not interleave). */
export function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * The approver asked one request at a time: calls of one agent turn run in parallel, but a person
 * answers one question after the other.
 */
export function oneAtATime(approve: ApprovalHandler): ApprovalHandler {
  const queue = serialQueue();
  return (request) => queue(async () => approve(request));
}
