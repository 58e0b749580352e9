import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The repository root, the CLI's source entry and tsx's loader: CLI tests run the sources, not dist/. */
export const ROOT = resolve(import.meta.dirname, '../../..');
const MAIN = join(ROOT, 'src', 'cli', 'main.ts');
// tsx's loader by absolute URL, so the CLI also starts from a cwd outside the repository
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** How a test wants the CLI started; with none, a clean machine at the repository root. */
export interface CliOptions {
  /** The working directory (default: the repository root). */
  cwd?: string;
  /** Variables set on top of the clean environment (APIARY_* included); `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** A HOME the test prepared (config, cache); by default a fresh empty one, removed at exit. */
  home?: string;
  /** Close the read end of stdout at once, as `apiary … | head -0` does (stdout stays ''). */
  closedStdout?: boolean;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A CLI still running: the child (for signals), its output so far, and its end. */
export interface RunningCli {
  child: ChildProcess;
  /** The child's HOME (the fresh one is removed when the child has exited). */
  home: string;
  /** The output so far, updated as it arrives. */
  out: { stdout: string; stderr: string };
  done: Promise<CliResult>;
}

/** The names a test's CLI must not inherit: model and data settings, API keys, colours, user folders. */
const inheritedNot = (k: string) =>
  k.startsWith('APIARY_') ||
  k.startsWith('XDG_') ||
  k === 'OPENAI_API_KEY' ||
  k === 'SERPER_API_KEY' ||
  k === 'FORCE_COLOR';

/**
 * The environment of `apiary` under test: the caller's without APIARY_*, XDG_*, API keys or
 * FORCE_COLOR, with NO_COLOR=1, the given HOME, then `env` on top (`undefined` removes a variable).
 */
export function cliEnvironment(opts: Pick<CliOptions, 'env'> & { home: string }): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !inheritedNot(k)) env[k] = v;
  env.NO_COLOR = '1';
  env.HOME = opts.home;
  for (const [k, v] of Object.entries(opts.env ?? {}))
    if (v === undefined) delete env[k];
    else env[k] = v;
  return env;
}

/**
 * The command, arguments and environment that start `apiary <args>` from the sources: for a test
 * that hands them to another spawner (the MCP SDK's stdio transport). The environment is
 * cliEnvironment's, with `opts.home` or a fresh HOME.
 */
export function cliCommand(
  args: string[],
  opts: Pick<CliOptions, 'env' | 'home'> = {},
): { command: string; args: string[]; env: Record<string, string> } {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'apiary-home-'));
  const env = cliEnvironment({ env: opts.env, home });
  return { command: process.execPath, args: ['--import', TSX, MAIN, ...args], env };
}

/** Starts `apiary <args>` (see cliCommand for the environment) and returns it while it runs. */
export function startCli(args: string[], opts: CliOptions = {}): RunningCli {
  const cmd = cliCommand(args, opts);
  const child = spawn(cmd.command, cmd.args, { cwd: opts.cwd ?? ROOT, env: cmd.env });
  child.stdin.end(); // no input: a command waiting on stdin sees its end, as under `< /dev/null`
  if (opts.closedStdout) child.stdout.destroy();
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => {
    out.stdout += d;
  });
  child.stderr.on('data', (d) => {
    out.stderr += d;
  });
  const done = new Promise<CliResult>((res, rej) => {
    child.on('error', rej);
    child.on('close', (code, signal) => {
      if (opts.home === undefined) rmSync(cmd.env.HOME!, { recursive: true, force: true });
      res({ code, signal, ...out });
    });
  });
  return { child, home: cmd.env.HOME!, out, done };
}

/** Runs `apiary <args>` to its end (see startCli): exit code, signal, stdout and stderr. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return startCli(args, opts).done;
}
