import pc from 'picocolors';
import { ApiaryError } from '../shared/index.js';

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

/** One-line message for a known error, a stack only with --debug; returns the exit status. */
export function reportError(error: unknown, debug: boolean): number {
  if (error instanceof ApiaryError) {
    process.stderr.write(`${pc.red('error')} [${error.code}] ${error.message}\n`);
    if (debug && error.stack) process.stderr.write(`${error.stack}\n`);
    if (debug && error.cause)
      process.stderr.write(`cause: ${String((error.cause as Error).stack ?? error.cause)}\n`);
    return error.code === 'USAGE' ||
      error.code === 'INPUT_INVALID' ||
      error.code === 'NOT_FOUND' ||
      error.code === 'PLAN_PARSE'
      ? EXIT.input
      : EXIT.runtime;
  }
  const e = error as Error;
  process.stderr.write(`${pc.red('error')} ${e?.message ?? String(error)}\n`);
  if (debug && e?.stack) process.stderr.write(`${e.stack}\n`);
  else process.stderr.write('(run with --debug for details)\n');
  return EXIT.runtime;
}
