import type { ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { ApiaryError } from '../../shared/index.js';
import { BoundedOutput } from './bounded-output.js';
import type { SandboxLimits } from './config.js';

/** The fd bwrap writes its JSON status to. */
export const STATUS_FD = 3;
/** The fd the sandbox's supervisor streams the written files back on. */
export const TRANSFER_FD = 4;
/** How long output may still arrive after the process exited. */
const PIPE_GRACE_MS = 1_000;

/** How often the limits only a look from outside can see (OOM kills, files in the tmpfs) are checked. */
const POLL_MS = 50;

/**
 * Why a run was ended from outside: `memory` when the whole sandbox reached its cgroup's memory
 * limit (the OOM killer struck, the rest is killed too), `disk-files` when its tmpfs holds more
 * files and folders than allowed. A CPU, per-process memory, disk or file-size limit shows as a
 * signal or a Python error.
 */
export type SandboxLimitHit = 'wall-time' | 'output' | 'cancelled' | 'memory' | 'disk-files';

/** How a watched process ended, with what it wrote (bounded) and bwrap's status text. */
export interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  limit: SandboxLimitHit | null;
  stdout: BoundedOutput;
  stderr: BoundedOutput;
  status: string;
  /** What arrived on the transfer fd (bounded; an overflow is simply cut). */
  transfer: BoundedOutput;
}

export interface WatchOptions {
  /** Bytes kept from the transfer fd (TRANSFER_FD). */
  transferBytes?: number;
  /**
   * Looked at every 50 ms and once more at the end, with bwrap's status text so far: a limit it
   * returns ends the run.
   */
  poll?: (status: string) => SandboxLimitHit | null;
}

/** Waits for the process, enforcing wall time, output size and cancellation by killing its group. */
export function watch(
  child: ChildProcess,
  limits: SandboxLimits,
  signal: AbortSignal | undefined,
  options: WatchOptions = {},
): Promise<Ended> {
  return new Promise((resolve, reject) => {
    let limit: SandboxLimitHit | null = null;
    const kill = (why: SandboxLimitHit) => {
      limit ??= why;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const stdout = new BoundedOutput(limits.maxOutputBytes, () => kill('output'));
    const stderr = new BoundedOutput(limits.maxOutputBytes, () => kill('output'));
    const transfer = new BoundedOutput(options.transferBytes ?? 0, () => undefined);
    let status = '';
    child.stdio[TRANSFER_FD]?.on('data', (chunk: Buffer) => transfer.add(chunk));
    const poll = options.poll;
    const looks = poll
      ? setInterval(() => {
          const hit = poll(status);
          if (hit) kill(hit);
        }, POLL_MS)
      : undefined;
    const stopTimers = () => {
      clearTimeout(timer);
      clearInterval(looks);
    };
    child.stdout!.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr!.on('data', (chunk: Buffer) => stderr.add(chunk));
    child.stdio[STATUS_FD]?.on('data', (chunk: Buffer) => {
      status += chunk.toString('utf8');
    });
    const timer = setTimeout(() => kill('wall-time'), limits.wallMs);
    const onAbort = () => kill('cancelled');
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      stopTimers();
      signal?.removeEventListener('abort', onAbort);
      reject(
        new ApiaryError('TOOL_FAILED', `the sandbox could not start: ${error.message}`, { cause: error }),
      );
    });
    // Outside bwrap a process that left our group could keep the pipes open after Python exits:
    // stop waiting for them shortly after the exit.
    child.on('exit', () => {
      setTimeout(() => {
        for (const stream of child.stdio) stream?.destroy();
      }, PIPE_GRACE_MS).unref();
    });
    child.on('close', (code, sig) => {
      stopTimers();
      // The OOM killer may have ended the run between two looks.
      if (limit === null && poll) limit = poll(status);
      signal?.removeEventListener('abort', onAbort);
      resolve({ code, signal: sig, limit, stdout, stderr, status, transfer });
    });
  });
}

/** bwrap's JSON status lines: `{"child-pid": …}` when started, `{"exit-code": …}` when done. */
export function parseStatus(text: string): { exitCode?: number } {
  const out: { exitCode?: number } = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (typeof record['exit-code'] === 'number') out.exitCode = record['exit-code'];
    } catch {
      // a partial line from a killed bwrap
    }
  }
  return out;
}

const SIGNAL_NAMES = new Map<number, NodeJS.Signals>(
  Object.entries(osConstants.signals).map(([name, number]) => [number, name as NodeJS.Signals]),
);

/**
 * Python's exit status or signal. bwrap reports a child killed by signal N as exit code 128 + N
 * (the shell's convention), so such codes are read back as signals.
 */
export function exitOf(
  code: number | null,
  signal: NodeJS.Signals | null,
  viaBwrap: boolean,
): { exitCode: number | null; signal: NodeJS.Signals | null } {
  if (signal) return { exitCode: null, signal };
  if (viaBwrap && code !== null && code > 128 && SIGNAL_NAMES.has(code - 128))
    return { exitCode: null, signal: SIGNAL_NAMES.get(code - 128)! };
  return { exitCode: code, signal: null };
}
