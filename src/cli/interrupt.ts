/** Exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells report it. */
export const EXIT_INTERRUPTED = 130;

export interface SigintTrap {
  /** Aborted by the first Ctrl-C: the command stops starting work and writes what is done. */
  readonly signal: AbortSignal;
  /** Removes the handler (Node's default, exit at once, applies again). */
  release(): void;
}

/**
 * The first SIGINT prints `interrupted: <what happens now>` and aborts `signal`; a second exits at once
 * with 130. Outputs are written by temp file and rename, so quitting mid-write leaves no half file.
 */
export function trapSigint(whatHappensNow: string): SigintTrap {
  const ctrl = new AbortController();
  const onSigint = () => {
    if (ctrl.signal.aborted) process.exit(EXIT_INTERRUPTED);
    process.stderr.write(`\ninterrupted: ${whatHappensNow} (Ctrl-C again to quit now)\n`);
    ctrl.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  return { signal: ctrl.signal, release: () => process.off('SIGINT', onSigint) };
}
