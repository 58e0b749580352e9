import pc from 'picocolors';
import { ApiaryError, type ErrorCode, fileReadError, redactSecrets } from '../shared/index.js';

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

/**
 * Characters a terminal would act on instead of showing: C0 controls but newline and tab (ESC
 * starts `ESC]52;c;…` clipboard writes, `ESC]0;…` title changes, `ESC[2J` screen clears; CR
 * overwrites a line; BEL rings), DEL, C1 controls (`\x9b` is CSI on 8-bit terminals), and the
 * Unicode bidirectional overrides and isolates that reorder what is shown ("Trojan Source").
 */
const TERMINAL_UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

const visibleEscape = (c: string): string => {
  const code = c.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * Text from outside (tool results, model answers, error messages) made safe to print in
 * human-readable output: API keys redacted, and every control character written as visible text
 * (`ESC` → `\x1b`, U+202E → `\u202e`), so printed text can never move the cursor, retitle the
 * window, write the clipboard or hide what follows. Applied whether or not the stream is a
 * terminal: output sent to a file or a pipe is read on a terminal later (`cat`, `tail -f`, `less -R`,
 * a CI log), and the same command prints the same bytes everywhere. `--json` keeps the exact text
 * (see {@link printJson}).
 */
export function terminalText(text: string): string {
  return redactSecrets(text).replace(TERMINAL_UNSAFE, visibleEscape);
}

/** What JSON.stringify leaves raw of TERMINAL_UNSAFE (it escapes C0 itself): only ever inside strings. */
const JSON_UNSAFE = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Prints a value as JSON for programs: the same value, with API keys redacted and DEL, C1 and
 * bidi controls written as `\u` escapes (JSON.stringify escapes only C0), so it is terminal-safe too.
 */
export function printJson(value: unknown): void {
  const text = redactSecrets(JSON.stringify(value, null, 2)).replace(
    JSON_UNSAFE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  process.stdout.write(`${text}\n`);
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
function asApiaryError(error: unknown): ApiaryError {
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
  process.stderr.write(`${pc.red('error')} [${error.code}] ${terminalText(error.message)}\n`);
  if (debug) {
    const original = thrown instanceof Error ? thrown : error;
    if (original.stack) process.stderr.write(`${terminalText(original.stack)}\n`);
    const cause = original.cause;
    if (cause && cause !== thrown)
      process.stderr.write(`cause: ${terminalText(String((cause as Error).stack ?? cause))}\n`);
  }
  return EXIT_STATUS_OF_CODE[error.code];
}
