import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProgram } from '../program.js';
import { type CliOptions, type CliResult, cliEnvironment, ROOT } from './run-cli.js';

/**
 * Runs `apiary <args>` inside the test process: the same program main.ts runs, with the
 * environment, HOME and working directory runCli gives a child, and stdout and stderr captured.
 * Some 50× cheaper than a spawn (no Node and tsx start, no module graph loaded again).
 *
 * For commands that end by returning: not for Ctrl-C, a closed stdout (EPIPE), stdin, worker
 * threads started from the sources or servers that wait for a signal; those keep runCli. Calls
 * made together (`Promise.all`) run one after another: process.env, the cwd and the streams are
 * the process's own.
 */
export function runCliInProcess(args: string[], opts: Omit<CliOptions, 'closedStdout'> = {}): Promise<CliResult> {
  const run = previous.then(() => runNow(args, opts));
  previous = run.catch(() => undefined);
  return run;
}

let previous: Promise<unknown> = Promise.resolve();

async function runNow(args: string[], opts: Omit<CliOptions, 'closedStdout'>): Promise<CliResult> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'apiary-home-'));
  const restoreEnv = replaceEnv(cliEnvironment({ env: opts.env, home }));
  const cwd = process.cwd();
  process.chdir(opts.cwd ?? ROOT);
  const out = { stdout: '', stderr: '' };
  const restoreStdout = capture(process.stdout, (text) => {
    out.stdout += text;
  });
  const restoreStderr = capture(process.stderr, (text) => {
    out.stderr += text;
  });
  // a child's stdio are pipes: no progress display, no question asked on a terminal
  const restoreTty = [process.stdin, process.stdout, process.stderr].map(notTerminal);
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  try {
    const code = await runProgram(['node', 'apiary', ...args]);
    return { code, signal: null, ...out };
  } finally {
    process.exitCode = exitCode;
    for (const restore of restoreTty) restore();
    restoreStderr();
    restoreStdout();
    process.chdir(cwd);
    restoreEnv();
    if (opts.home === undefined) rmSync(home, { recursive: true, force: true });
  }
}

/** Sets process.env to `env` in place (so os.homedir() and children see it); returns the undo. */
function replaceEnv(env: Record<string, string>): () => void {
  const saved = { ...process.env };
  const setTo = (next: Record<string, string | undefined>) => {
    for (const k of Object.keys(process.env)) if (!(k in next)) delete process.env[k];
    for (const [k, v] of Object.entries(next)) if (v !== undefined) process.env[k] = v;
  };
  setTo(env);
  return () => setTo(saved);
}

/** Makes `stream.isTTY` undefined, as on a pipe; returns the undo. */
function notTerminal(stream: { isTTY?: boolean }): () => void {
  const own = Object.getOwnPropertyDescriptor(stream, 'isTTY');
  Object.defineProperty(stream, 'isTTY', { value: undefined, configurable: true, writable: true });
  return () => {
    if (own) Object.defineProperty(stream, 'isTTY', own);
    else delete stream.isTTY;
  };
}

/** Sends what is written to `stream` to `sink` instead; returns the undo. */
function capture(stream: NodeJS.WriteStream, sink: (text: string) => void): () => void {
  const write = stream.write;
  stream.write = ((chunk: string | Uint8Array, encoding?: unknown, done?: unknown): boolean => {
    sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const callback = typeof encoding === 'function' ? encoding : done;
    if (typeof callback === 'function') process.nextTick(callback as () => void);
    return true;
  }) as typeof stream.write;
  return () => {
    stream.write = write;
  };
}
