import pc from 'picocolors';
import { ApiaryError, type ErrorCode, fileReadError } from '../shared/index.js';

/** Exit statuses: 0 ok, 1 a check failed (e.g. plan invalid), 2 usage or input error, 3 runtime failure. */
export const EXIT = { ok: 0, failed: 1, input: 2, runtime: 3 } as const;

/**
 * A reader that closes early (`apiary ... | head`) makes the next write fail with EPIPE; nothing more can be
 * shown, so end quietly with 0 as Unix tools do. Installed once by main.ts on stdout and stderr.
 */
export function exitQuietlyOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    throw error;
  });
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * The exit status of each error code: 2 when the caller's input or command line is at fault (fix it
 * and run again), 1 when a check ran and failed, 3 for failures at run time (model, network, tools,
 * bugs). A `Record` so a new code cannot be added without deciding its status; docs/errors.md
 * shows the same table (a test compares them).
 */
export const EXIT_STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = {
  INPUT_INVALID: EXIT.input,
  CATALOG_INVALID: EXIT.input,
  PLAN_PARSE: EXIT.input,
  PLAN_INVALID: EXIT.failed,
  NOT_FOUND: EXIT.input,
  PERMISSION_DENIED: EXIT.runtime,
  MODEL_CALL_FAILED: EXIT.runtime,
  MODEL_UNREACHABLE: EXIT.runtime,
  NETWORK: EXIT.runtime,
  USAGE: EXIT.input,
  TOOL_FAILED: EXIT.runtime,
  WORKER_FAILED: EXIT.runtime,
  INTERNAL: EXIT.runtime,
};

/**
 * Any thrown value as an ApiaryError: Node's file-system errors that carry a path become the typed
 * error for that path (a folder given for a file is INPUT_INVALID, exit 2); anything else is INTERNAL.
 */
export function asApiaryError(error: unknown): ApiaryError {
  if (error instanceof ApiaryError) return error;
  const e = error as NodeJS.ErrnoException | undefined;
  if (typeof e?.code === 'string' && typeof e.path === 'string') return fileReadError(e.path, error);
  const message = e?.message ?? String(error);
  return new ApiaryError('INTERNAL', `${message} (unexpected: rerun with --debug and report the stack)`, {
    cause: error,
  });
}

/** One line `error [CODE] message` for every error, a stack only with --debug; returns the exit status. */
export function reportError(thrown: unknown, debug: boolean): number {
  const error = asApiaryError(thrown);
  process.stderr.write(`${pc.red('error')} [${error.code}] ${error.message}\n`);
  if (debug) {
    const original = thrown instanceof Error ? thrown : error;
    if (original.stack) process.stderr.write(`${original.stack}\n`);
    const cause = original.cause;
    if (cause && cause !== thrown)
      process.stderr.write(`cause: ${String((cause as Error).stack ?? cause)}\n`);
  }
  return EXIT_STATUS_OF_CODE[error.code];
}
