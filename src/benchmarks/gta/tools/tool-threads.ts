import { availableParallelism } from 'node:os';
import type { Piscina } from 'piscina';
import { ApiaryError, type ErrorCode } from '../../../shared/index.js';
import type { AddTextTask, DrawBoxTask } from './image-render.js';

/**
 * Worker threads for the tools whose cost depends on their input (Calculator, DrawBox, AddText).
 * On the main thread such a call would hold the event loop until it ended: `dispatchCall`'s time
 * limit could not fire, and every other session and sample would wait. In a worker, the call's
 * abort signal terminates the thread (piscina's abort), and the pool starts another.
 *
 * One pool for all these tools, made on first use: at least one warm thread (a cold one loads
 * mathjs or jimp first), at most one per core, extra threads ended after IDLE_TIMEOUT_MS. Each tool
 * holds a lease; the pool ends when the last tool is disposed. Idle threads never keep the process alive.
 */

export interface CalculateTask {
  kind: 'calculate';
  expression: string;
}
export type ToolTask = CalculateTask | DrawBoxTask | AddTextTask;

/** What a worker answers: its value, or the coded error it threw (an Error's class does not cross threads). */
export type ToolReply = { ok: true; value: unknown } | { ok: false; code: ErrorCode; message: string };

/** Extra threads end after this long without work. */
const IDLE_TIMEOUT_MS = 30_000;
/**
 * V8 heap of one tool thread. The tools' own caps keep far below it (10,000-digit integers; image
 * pixels live in buffers outside the heap, capped by MAX_IMAGE_PIXELS); a thread that passes it
 * is ended by V8 and the call fails, not the process.
 */
const TOOL_THREAD_HEAP_MB = 512;

let shared: Promise<Piscina> | undefined;
let leases = 0;

/**
 * The worker entry beside this module: from `dist/` the compiled tool-worker.js; from the
 * TypeScript sources (tsx, vitest) a boot file that registers tsx's loader first, which a worker
 * does not inherit (as harness/worker-pool.ts boots its eval workers).
 */
function workerEntry(): string {
  const self = import.meta.url;
  return new URL(self.endsWith('.ts') ? './tool-worker-boot.mjs' : './tool-worker.js', self).href;
}

function pool(): Promise<Piscina> {
  shared ??= import('piscina').then(
    ({ Piscina }) =>
      new Piscina({
        filename: workerEntry(),
        minThreads: 1,
        maxThreads: Math.max(1, availableParallelism()),
        idleTimeout: IDLE_TIMEOUT_MS,
        resourceLimits: { maxOldGenerationSizeMb: TOOL_THREAD_HEAP_MB },
      }),
  );
  return shared;
}

export interface ToolThreads {
  /**
   * Runs one task on a tool thread. Resolves with the worker's value; rejects with its coded
   * error, or with `TOOL_FAILED` when `signal` stopped the task (the thread is terminated) or the
   * thread died.
   */
  run(tool: string, task: ToolTask, signal?: AbortSignal): Promise<unknown>;
  /** Gives the tool's lease back; the pool ends with the last one. */
  dispose(): Promise<void>;
}

/** A tool's handle on the shared pool (the lease is taken on the first run). */
export function toolThreads(): ToolThreads {
  let leased = false;
  return {
    async run(tool, task, signal) {
      if (signal?.aborted) throw stopped(tool, signal.reason);
      if (!leased) {
        leased = true;
        leases += 1;
      }
      let reply: ToolReply;
      try {
        reply = (await (await pool()).run(task, signal ? { signal } : {})) as ToolReply;
      } catch (e) {
        if (signal?.aborted) throw stopped(tool, signal.reason);
        throw new ApiaryError('TOOL_FAILED', `${tool}: its worker thread failed: ${(e as Error).message}`, {
          cause: e,
        });
      }
      if (!reply.ok) throw new ApiaryError(reply.code, reply.message);
      return reply.value;
    },
    async dispose() {
      if (!leased) return;
      leased = false;
      leases -= 1;
      if (leases > 0 || !shared) return;
      const ending = shared;
      shared = undefined;
      await (await ending).destroy();
    },
  };
}

function stopped(tool: string, reason: unknown): ApiaryError {
  const why = reason instanceof Error ? reason.message : String(reason);
  return new ApiaryError('TOOL_FAILED', `${tool}: stopped (${why}); its worker thread was ended`);
}
