import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerBuiltinPlugins } from '../../benchmarks/builtin.js';
import { redisServerMissing, startRedisServer } from '../../harness/__fixtures__/redis-server.js';
import { withoutTimings } from '../../harness/__fixtures__/without-timings.js';
import {
  createQueueAuth,
  INSECURE_QUEUE_AUTH,
  readResultsFile,
  type SampleLine,
  startQueueWorker,
} from '../../harness/index.js';
import { RUNS_KEY } from '../../harness/queue-protocol.js';
import { ROOT, runCli, startCli } from '../__fixtures__/run-cli.js';
import { runEvalCommand } from './eval.js';

// what the CLI's entry point does before `eval` and `worker` run: the built-in tasks are known
beforeAll(() => {
  registerBuiltinPlugins();
});

describe('eval --queue flags', () => {
  const base = { concurrency: '4', seed: '0' };
  it.each([
    [{ queue: 'redis://127.0.0.1:1', workers: '2' }, '--queue and --workers exclude each other'],
    [{ rateLimit: '5' }, '--rate-limit shares one limit among queue workers: it needs --queue'],
    [{ queue: 'redis://127.0.0.1:1', rateWindowMs: '500' }, '--rate-window-ms needs --rate-limit'],
    [
      { queue: 'redis://127.0.0.1:1', maxCost: '1', priceInput: '1', priceOutput: '1' },
      '--max-cost is not supported with --queue',
    ],
  ])('%o is a usage error', async (flags, message) => {
    await expect(runEvalCommand('appbench', { ...base, ...flags })).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining(message),
    });
  });

  it('a worker that cannot reach Redis fails at once, naming the URL', async () => {
    await expect(
      startQueueWorker({ url: 'redis://127.0.0.1:1', auth: INSECURE_QUEUE_AUTH }),
    ).rejects.toMatchObject({
      code: 'NETWORK',
      message: expect.stringMatching(/^cannot reach the Redis server at redis:\/\/127\.0\.0\.1:1: /),
    });
    await expect(
      startQueueWorker({ url: 'http://127.0.0.1:6379', auth: INSECURE_QUEUE_AUTH }),
    ).rejects.toMatchObject({
      code: 'NETWORK',
      message: expect.stringContaining('not a Redis URL: http://127.0.0.1:6379 (expected redis://host:port)'),
    });
  });
});

const withoutTimes = (lines: SampleLine[]) =>
  [...lines]
    .sort((a, b) => a.id.localeCompare(b.id))
    // the times measured inside a run (its events' latencies) differ between any two runs
    .map(({ startedAt: _s, durationMs: _d, ...rest }) => withoutTimings(rest));

describe.skipIf(redisServerMissing !== null)(
  `apiary eval --queue end to end (${redisServerMissing ?? 'redis-server'})`,
  { timeout: 60_000 },
  () => {
    it('records what a local run records, with the queue counts in --json', async () => {
      const redis = await startRedisServer();
      const secret = 'worker-test-secret-0123456789';
      const worker = await startQueueWorker({
        url: redis.url,
        auth: createQueueAuth(secret),
        concurrency: 3,
        pollMs: 100,
      });
      try {
        const out = mkdtempSync(join(tmpdir(), 'apiary-eval-queue-'));
        const data = join(ROOT, 'examples', 'appbench-mini');
        const common = ['eval', 'appbench', '--data', data, '--json'];
        const [queued, local] = await Promise.all([
          runCli([...common, '--out', join(out, 'queued'), '--queue', redis.url], {
            env: { APIARY_QUEUE_SECRET: secret },
          }),
          runCli([...common, '--out', join(out, 'local')]),
        ]);
        expect(queued.code).toBe(0);
        expect(local.code).toBe(0);
        const json = JSON.parse(queued.stdout);
        expect(json.queue).toEqual({
          queued: 8,
          results: 8,
          duplicates: 0,
          failed: 0,
          retried: 0,
          lost: 0,
          refused: 0,
        });
        expect(json.ran).toBe(8);
        expect(worker.done).toBe(8);
        const q = readResultsFile(join(out, 'queued', 'results.jsonl'));
        const l = readResultsFile(join(out, 'local', 'results.jsonl'));
        expect(withoutTimes(q.samples)).toEqual(withoutTimes(l.samples));
        expect(q.header!.spec.data).toEqual(l.header!.spec.data);
      } finally {
        await worker.close();
        await redis.close();
      }
    });

    it('SIGTERM to the coordinator withdraws its run from Redis, writes the summary and releases the lock', async () => {
      const redis = await startRedisServer();
      const client = new Redis(redis.url, { lazyConnect: true });
      try {
        await client.connect();
        const out = mkdtempSync(join(tmpdir(), 'apiary-eval-queue-term-'));
        const data = join(ROOT, 'examples', 'appbench-mini');
        // no worker: the samples wait in the queue, as when the workers start after the coordinator
        const coordinator = startCli(
          ['eval', 'appbench', '--data', data, '--out', out, '--queue', redis.url],
          {
            env: { APIARY_QUEUE_SECRET: 'worker-test-secret-0123456789' },
          },
        );
        const t0 = Date.now();
        while ((await client.hlen(RUNS_KEY)) === 0) {
          if (Date.now() - t0 > 20_000) throw new Error(`run never announced: ${coordinator.out.stderr}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        coordinator.child.kill('SIGTERM');
        const r = await coordinator.done;
        expect(r.code).toBe(143);
        expect(r.stderr).toContain('stopped early: 0 of 8 samples recorded; rerun with --resume to finish');
        // a worker started now finds no run to join
        expect(await client.hlen(RUNS_KEY)).toBe(0);
        expect(existsSync(join(out, 'run.lock'))).toBe(false);
        expect(existsSync(join(out, 'summary.json'))).toBe(true);
      } finally {
        client.disconnect();
        await redis.close();
      }
    });
  },
);
