import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from '../cli/__fixtures__/run-cli.js';
import { startScriptedOpenAiServer } from '../test/index.js';
import { expectScenarioReport } from './__fixtures__/appbench-mini-scenario.js';
import { MINI, moduleModel, recipe, slowModel } from './__fixtures__/queue-recipes.js';
import { redisServerMissing, startRedisServer, type TestRedis } from './__fixtures__/redis-server.js';
import { scenarioReply } from './__fixtures__/scenario-model.js';
import { withoutTimings } from './__fixtures__/without-timings.js';
import { createQueueAuth } from './queue-auth.js';
import { startQueueCoordinator } from './queue-coordinator.js';
import { readResultsFile, type SampleLine } from './results-file.js';
import { runEval } from './run-eval.js';
import { buildRunSpec } from './run-spec.js';
import { rebuildTask, type TaskRecipe } from './sample-runner.js';

/*
 * Distributed evals against a real redis-server (started here on a free port) and real
 * `apiary worker` processes (the CLI through tsx, ≈ 1.5 s to start each): the records equal a
 * local run's, a SIGKILLed worker loses nothing, the rate limit holds over two workers, resume
 * queues only what is missing, a job that fails ends the run with WORKER_FAILED, and a worker with
 * other data refuses the run. About 15 s in all (over the 5 s guideline: four worker processes
 * must start, and the kill test waits for BullMQ's 1 s lock to expire and a 1.5 s sample to rerun).
 */
/** The secret the coordinator and the workers share (APIARY_QUEUE_SECRET of the worker processes). */
const SECRET = 'queue-test-secret-0123456789';
const auth = createQueueAuth(SECRET);

let redis: TestRedis;

// Fixed clocks: records are then equal field for field, timings included.
const deps = { now: () => new Date('2026-01-01T00:00:00Z'), monotonic: () => 0 };

async function evalRun(
  r: TaskRecipe,
  opts: {
    out?: string;
    resume?: boolean;
    stopAfter?: number;
    queue?: { rateLimit?: { max: number; durationMs: number } };
    /** Samples beyond the dataset (ids a worker's task does not have). */
    extraSamples?: string[];
  },
) {
  const { task, dataSource } = await rebuildTask(r);
  const samples = [...task.dataset, ...(opts.extraSamples ?? []).map((id) => ({ ...task.dataset[0]!, id }))];
  const spec = buildRunSpec(
    {
      task: { name: 'appbench', version: task.version, options: r.taskOptions },
      solver: { name: r.solver, options: r.solverOptions },
      model: null,
      sampling: null,
      data: { path: MINI, sha256: dataSource!.sha256! },
      size: samples.length,
      seed: 0,
      concurrency: 1,
    },
    { now: deps.now, gitRevision: () => null, packageVersion: () => 'test' },
  );
  const outFile = join(opts.out ?? mkdtempSync(join(tmpdir(), 'apiary-queue-')), 'results.jsonl');
  // the workers check the data they read against this hash
  const coordinator = opts.queue
    ? await startQueueCoordinator({ url: redis.url, auth, recipe: r, data: dataSource!, ...opts.queue })
    : null;
  const ac = new AbortController();
  try {
    const result = await runEval({
      task,
      samples,
      spec,
      outFile,
      concurrency: coordinator ? Number.POSITIVE_INFINITY : 1,
      ...(coordinator ? { pool: coordinator } : {}),
      resume: opts.resume ?? false,
      signal: ac.signal,
      onProgress: (p) => {
        if (opts.stopAfter !== undefined && p.done - p.skipped >= opts.stopAfter) ac.abort();
      },
      deps,
    });
    return { result, outFile, stats: coordinator?.stats(), runId: coordinator?.runId ?? '' };
  } finally {
    await coordinator?.close();
  }
}

interface WorkerProcess {
  child: ChildProcess;
  log: () => string;
  /** Resolves once the log holds `text`. */
  waitFor: (text: string | RegExp) => Promise<void>;
  /** SIGTERM, then the log (which ends with "stopped after N samples"). */
  stop: () => Promise<string>;
}

function startWorker(url: string, args: string[] = []): WorkerProcess {
  const { child, out } = startCli(
    [
      'worker',
      '--queue',
      url,
      '--lock-ms',
      '1000',
      '--stalled-ms',
      '300',
      '--allow-module',
      slowModel,
      ...args,
    ],
    { env: { APIARY_QUEUE_SECRET: SECRET } },
  );
  const waiters: Array<() => void> = [];
  // registered after startCli's own listener, so out.stderr already holds the new text
  child.stderr!.on('data', () => {
    for (const w of waiters.splice(0)) w();
  });
  const waitFor = (pattern: string | RegExp) =>
    new Promise<void>((res, rej) => {
      const check = () => {
        if (typeof pattern === 'string' ? out.stderr.includes(pattern) : pattern.test(out.stderr))
          return res();
        if (child.exitCode !== null) return rej(new Error(`worker exited: ${out.stderr}`));
        waiters.push(check);
      };
      check();
    });
  return {
    child,
    log: () => out.stderr,
    waitFor,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      return out.stderr;
    },
  };
}
/** Samples a worker ran for one run, once it has left the run (the run's end withdraws it). */
async function doneFor(w: WorkerProcess, runId: string): Promise<number> {
  const pattern = new RegExp(`left run ${runId} after (\\d+) samples`);
  await w.waitFor(pattern);
  return Number(pattern.exec(w.log())![1]);
}

const sorted = (lines: SampleLine[]) =>
  [...lines]
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((l) => ({
      ...l,
      output: withoutTimings(l.output),
      events: withoutTimings(l.events) as SampleLine['events'],
    }));
/** Each (id, epoch) of the file, counted: every value 1 means recorded exactly once. */
const pairCounts = (lines: SampleLine[]) => {
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(`${l.id}/${l.epoch}`, (counts.get(`${l.id}/${l.epoch}`) ?? 0) + 1);
  return [...counts.values()];
};

describe.skipIf(redisServerMissing !== null)(
  `distributed evals (${redisServerMissing ?? 'redis-server'})`,
  { timeout: 60_000 },
  () => {
    let local: SampleLine[] = [];
    /** Two workers (concurrency 2 each) shared by every test but the kill test, which has its own. */
    let pair: WorkerProcess[] = [];
    /** When each request reached the scripted model server (the workers' own --base-url). */
    const times: number[] = [];
    let server: Awaited<ReturnType<typeof startScriptedOpenAiServer>>;
    beforeAll(async () => {
      redis = await startRedisServer();
      server = await startScriptedOpenAiServer({
        respond: (req) => {
          times.push(performance.now());
          return scenarioReply(req);
        },
      });
      pair = [0, 1].map(() => startWorker(redis.url, ['--concurrency', '2', '--base-url', server.url]));
      const run = await evalRun(recipe(moduleModel(0)), {});
      local = sorted(readResultsFile(run.outFile).samples);
      await Promise.all(pair.map((w) => w.waitFor('waiting for runs')));
    });
    afterAll(async () => {
      await Promise.all(pair.map((w) => w.stop()));
      await server?.close();
      await redis?.close();
    });

    it('two workers record exactly what a local run records', async () => {
      const run = await evalRun(recipe(moduleModel(300)), { queue: {} });
      expect(run.stats).toEqual({
        queued: 8,
        results: 8,
        duplicates: 0,
        failed: 0,
        retried: 0,
        lost: 0,
        refused: 0,
      });
      expectScenarioReport(run.result.summary.report as never);
      expect(sorted(readResultsFile(run.outFile).samples)).toEqual(local);
      // 8 samples of 300 ms, 2 at a time per worker (1.2 s for one alone): both took a share
      const done = await Promise.all(pair.map((w) => doneFor(w, run.runId)));
      expect(done[0]! + done[1]!).toBe(8);
      expect(Math.min(...done)).toBeGreaterThan(0);
    });

    it('one rate limit over all workers: 2 samples per 400 ms window over two workers, measured at the model server', async () => {
      {
        const r = recipe({ kind: 'endpoint', baseURL: server.url, modelId: 'scripted' });
        const run = await evalRun(r, { queue: { rateLimit: { max: 2, durationMs: 400 } } });
        expect(run.stats?.results).toBe(8);
        expect(times).toHaveLength(8); // one request per sample (mm-0's HTTP 500 is not retried)
        times.sort((x, y) => x - y);
        // BullMQ's limiter counts job starts in fixed 400 ms windows (one opens at the first start after
        // the last closed); a request follows its job's start by a few ms to ~60 ms here (more on a
        // loaded machine): 200 ms slack. Unlimited, all 8 arrive within a few ms of each other.
        for (let i = 0; i + 2 < times.length; i++)
          expect(times[i + 2]! - times[i]!).toBeGreaterThanOrEqual(200);
        // 8 requests at 2 per window: 4 windows, the last opening ≥ 3 windows after the first
        expect(times[7]! - times[0]!).toBeGreaterThanOrEqual(3 * 400 - 200);
        const done = await Promise.all(pair.map((w) => doneFor(w, run.runId)));
        expect(done[0]! + done[1]!).toBe(8);
      }
    });

    it('resume queues only the missing samples and ends with the records of an uninterrupted run', async () => {
      const out = mkdtempSync(join(tmpdir(), 'apiary-queue-resume-'));
      const partial = await evalRun(recipe(moduleModel(0)), { out, stopAfter: 3 });
      expect(partial.result.stopReason).toBe('signal');
      expect(readResultsFile(partial.outFile).samples).toHaveLength(3);
      const resumed = await evalRun(recipe(moduleModel(0)), { out, resume: true, queue: {} });
      expect(resumed.result.skipped).toBe(3);
      expect(resumed.stats).toEqual({
        queued: 5,
        results: 5,
        duplicates: 0,
        failed: 0,
        retried: 0,
        lost: 0,
        refused: 0,
      });
      expect(sorted(readResultsFile(resumed.outFile).samples)).toEqual(local);
    });

    it('a sample a worker cannot run fails its job: the run ends with WORKER_FAILED, the others recorded', async () => {
      const out = mkdtempSync(join(tmpdir(), 'apiary-queue-failed-'));
      await expect(
        evalRun(recipe(moduleModel(0)), { out, queue: {}, extraSamples: ['not-in-the-data'] }),
      ).rejects.toMatchObject({
        code: 'WORKER_FAILED',
        message: expect.stringContaining(
          'a queue worker could not run a sample: sample "not-in-the-data" is not in the rebuilt task appbench',
        ),
      });
      const kept = readResultsFile(join(out, 'results.jsonl'));
      expect(sorted(kept.samples)).toEqual(local);
      expect(kept.truncatedTail).toBe(false);
    });

    it('a worker whose data differs refuses the run and tells the coordinator why', async () => {
      const notes: string[] = [];
      const coordinator = await startQueueCoordinator({
        url: redis.url,
        auth,
        recipe: recipe(moduleModel(0)),
        data: { path: '/elsewhere/appbench', sha256: 'f'.repeat(64) },
        onNote: (n) => notes.push(n),
        notePollMs: 50,
      });
      try {
        await Promise.all(pair.map((w) => w.waitFor(`refused run ${coordinator.runId}`)));
        await new Promise((res) => setTimeout(res, 200));
        expect(notes).toHaveLength(2); // one per worker
        for (const n of notes)
          expect(n).toMatch(
            new RegExp(
              `^worker [^ ]+: data differs: ${MINI} has SHA-256 [0-9a-f]{64}, the run read /elsewhere/appbench with f{64} \\(pass --data`,
            ),
          );
        expect(coordinator.stats().queued).toBe(0);
      } finally {
        await coordinator.close();
      }
    });

    it('a worker killed with SIGKILL mid-sample loses nothing: its samples are retried elsewhere, each recorded once', async () => {
      await Promise.all(pair.map((w) => w.stop())); // this test's two workers only
      const r = recipe(moduleModel(1500));
      const a = startWorker(redis.url, ['--concurrency', '4']);
      let b: WorkerProcess | null = null;
      try {
        await a.waitFor('waiting for runs');
        const running = evalRun(r, { queue: {} });
        // A holds 4 samples, each ~300 ms into its 1.5 s model call when killed
        await a.waitFor('joined run');
        await new Promise((res) => setTimeout(res, 300));
        a.child.kill('SIGKILL');
        b = startWorker(redis.url, ['--concurrency', '8']);
        const run = await running;
        expect(run.stats).toEqual({
          queued: 8,
          results: 8,
          duplicates: 0,
          failed: 0,
          retried: 4,
          lost: 0,
          refused: 0,
        });
        const lines = readResultsFile(run.outFile).samples;
        expect(pairCounts(lines)).toEqual(Array(8).fill(1));
        expect(sorted(lines)).toEqual(local);
        // A finished none: B ran all 8, A's 4 once their locks (1 s) expired
        expect(await doneFor(b, run.runId)).toBe(8);
        expect(a.log()).not.toContain('left run');
      } finally {
        await Promise.all([a.stop(), b?.stop()]);
      }
    });
  },
);
