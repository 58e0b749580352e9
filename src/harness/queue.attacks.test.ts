import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningCli, startCli } from '../cli/__fixtures__/run-cli.js';
import { runEvalCommand } from '../cli/commands/eval.js';
import { runWorkerCommand } from '../cli/commands/worker.js';
import { MINI, moduleModel, recipe, slowModel } from './__fixtures__/queue-recipes.js';
import { redisServerMissing, startRedisServer, type TestRedis } from './__fixtures__/redis-server.js';
import { createQueueAuth, resolveQueueAuth } from './queue-auth.js';
import { type QueueCoordinatorOptions, startQueueCoordinator } from './queue-coordinator.js';
import {
  jobIdFor,
  notesKey,
  openEnvelope,
  QueueNoteSchema,
  queueNameFor,
  RUNS_KEY,
  type RunAnnouncement,
  seal,
} from './queue-protocol.js';
import { moduleAllowlist, startQueueWorker } from './queue-worker.js';
import { connectRedis, createBullConnection } from './redis-connection.js';
import { readResultsFile } from './results-file.js';
import { runEval } from './run-eval.js';
import { buildRunSpec } from './run-spec.js';
import { rebuildTask, type TaskRecipe } from './sample-runner.js';

/*
 * Attacks on distributed evals by anyone who can write to their Redis server (issue 24, rows 1–4):
 * a run announcement that imports attacker code or sends the worker's key to the attacker's
 * server, invented results, a Redis that restarts empty, and a coordinator or worker started
 * without a shared secret. A real redis-server and one real `apiary worker` process (its own
 * --base-url, an allowlisted model module, the secret in APIARY_QUEUE_SECRET). About 10 s.
 */
const SECRET = 'attack-test-secret-0123456789';
const auth = createQueueAuth(SECRET);
/** The worker's own endpoint and key: the key must reach no other server. */
const WORKER_BASE_URL = 'http://127.0.0.1:9/v1';
const WORKER_KEY = 'sk-worker-key-that-must-not-leave';

const announcementOf = (runId: string, r: TaskRecipe): RunAnnouncement => ({
  runId,
  queue: queueNameFor(runId),
  recipe: r,
  dataSha256: null,
  dataPath: MINI,
  createdAt: new Date().toISOString(),
});

const until = async (check: () => boolean | Promise<boolean>, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

let redis: TestRedis;
/** The attacker's own connection to the same Redis. */
let attacker: Redis;
let worker: RunningCli;
let sampleIds: string[] = [];
const deps = { now: () => new Date('2026-01-01T00:00:00Z'), monotonic: () => 0 };

/** One distributed run through runEval, as `apiary eval --queue` does it. */
async function evalRun(
  r: TaskRecipe,
  opts: {
    out?: string;
    resume?: boolean;
    /** Another Redis than the suite's. */
    url?: string;
    coordinator?: Partial<QueueCoordinatorOptions>;
    /** Called once every sample is on the queue. */
    whileRunning?: (c: Awaited<ReturnType<typeof startQueueCoordinator>>, outFile: string) => Promise<void>;
  } = {},
) {
  const { task, dataSource } = await rebuildTask(r);
  const spec = buildRunSpec(
    {
      task: { name: 'appbench', version: task.version, options: r.taskOptions },
      solver: { name: r.solver, options: r.solverOptions },
      model: null,
      sampling: null,
      data: { path: MINI, sha256: dataSource!.sha256! },
      size: task.dataset.length,
      seed: 0,
      concurrency: 1,
    },
    { now: deps.now, gitRevision: () => null, packageVersion: () => 'test' },
  );
  const outFile = join(opts.out ?? mkdtempSync(join(tmpdir(), 'apiary-queue-attack-')), 'results.jsonl');
  const coordinator = await startQueueCoordinator({
    url: opts.url ?? redis.url,
    auth,
    recipe: r,
    data: dataSource!,
    ...opts.coordinator,
  });
  try {
    const running = runEval({
      task,
      spec,
      outFile,
      concurrency: Number.POSITIVE_INFINITY,
      pool: coordinator,
      resume: opts.resume ?? false,
      deps,
    });
    const side = opts.whileRunning
      ? until(() => coordinator.stats().queued === task.dataset.length, 'the jobs').then(() =>
          opts.whileRunning!(coordinator, outFile),
        )
      : Promise.resolve();
    const [result] = await Promise.all([running, side]);
    return { result, outFile, stats: coordinator.stats(), runId: coordinator.runId };
  } finally {
    await coordinator.close();
  }
}

const workerLog = () => worker.out.stderr;
const waitForLog = (text: string) => until(() => workerLog().includes(text), `worker log "${text}"`);

describe.skipIf(redisServerMissing !== null)(
  `distributed evals trust nothing from Redis (${redisServerMissing ?? 'redis-server'})`,
  { timeout: 30_000 },
  () => {
    beforeAll(async () => {
      redis = await startRedisServer();
      attacker = await connectRedis(redis.url);
      worker = startCli(
        [
          'worker',
          '--queue',
          redis.url,
          '--concurrency',
          '2',
          '--allow-module',
          slowModel,
          '--base-url',
          WORKER_BASE_URL,
        ],
        { env: { APIARY_QUEUE_SECRET: SECRET, APIARY_API_KEY: WORKER_KEY } },
      );
      sampleIds = (await rebuildTask(recipe(null))).task.dataset.map((s) => s.id);
      await waitForLog('waiting for runs');
    });
    afterAll(async () => {
      if (worker && worker.child.exitCode === null) {
        worker.child.kill('SIGTERM');
        await worker.done;
      }
      attacker?.disconnect();
      await redis?.close();
    });

    it('(a) an announced data: module is never imported: unsigned ones are ignored, a signed one is refused by the allowlist', async () => {
      const marker = join(mkdtempSync(join(tmpdir(), 'apiary-attack-')), 'pwned');
      const code = `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'ran');`;
      const evil = `data:text/javascript,${encodeURIComponent(code)}`;
      const asSetup = { ...recipe(null), setupModules: [evil] };
      const asModel = recipe({ kind: 'module', module: evil });
      const [plain, forgedMac, signedSetup, signedModel] = [0, 1, 2, 3].map(() => randomUUID());
      // the announcement every worker imported before: plain JSON, no MAC
      await attacker.hset(RUNS_KEY, plain!, JSON.stringify(announcementOf(plain!, asSetup)));
      await attacker.hset(
        RUNS_KEY,
        forgedMac!,
        JSON.stringify({
          payload: JSON.stringify(announcementOf(forgedMac!, asSetup)),
          mac: 'ab'.repeat(32),
        }),
      );
      // signed with the secret (a coordinator that was given this recipe): the allowlist still holds
      await attacker.hset(
        RUNS_KEY,
        signedSetup!,
        JSON.stringify(seal(auth, 'announcement', announcementOf(signedSetup!, asSetup))),
      );
      await attacker.hset(
        RUNS_KEY,
        signedModel!,
        JSON.stringify(seal(auth, 'announcement', announcementOf(signedModel!, asModel))),
      );
      try {
        await waitForLog(`refused run ${signedModel}`);
        await waitForLog(`refused run ${signedSetup}`);
        await waitForLog(`ignored run "${forgedMac}"`);
        await waitForLog(`ignored run "${plain}"`);
        // a run id holding a terminal escape (it would set the window title) is printed escaped
        await attacker.hset(RUNS_KEY, 'x\u001b]0;pwned\u0007', 'junk');
        await waitForLog('ignored run "x\\u001b]0;pwned\\u0007": not JSON');
        await attacker.hdel(RUNS_KEY, 'x\u001b]0;pwned\u0007');
        expect(workerLog()).not.toContain('\u001b');
        expect(evil.length).toBeLessThan(200); // shown whole
        const lines = workerLog().split('\n');
        expect(lines).toContain(`worker: ignored run "${plain}": not a signed envelope ({payload, mac})`);
        expect(lines).toContain(
          `worker: ignored run "${forgedMac}": bad MAC (not signed with this queue secret)`,
        );
        const refusal = (role: string) =>
          `${role} ${JSON.stringify(evil)} is not on this worker's allowlist (start it with --allow-module PATH to allow a local module); not imported`;
        expect(lines).toContain(
          `worker: refused run ${signedSetup} (appbench/flat): ${refusal('setup module')}`,
        );
        expect(lines).toContain(
          `worker: refused run ${signedModel} (appbench/flat): ${refusal('model module')}`,
        );
        // the coordinator is told, in a note signed by the worker
        const notes = await attacker.lrange(notesKey(signedSetup!), 0, -1);
        expect(notes).toHaveLength(1);
        const note = openEnvelope(auth, 'note', notes[0], QueueNoteSchema);
        expect(note.ok && note.value.text).toMatch(
          new RegExp(`^worker [^ ]+: ${refusal('setup module').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
        );
        expect(existsSync(marker)).toBe(false);
      } finally {
        await attacker.hdel(RUNS_KEY, plain!, forgedMac!, signedSetup!, signedModel!);
        await attacker.del(notesKey(signedSetup!), notesKey(signedModel!));
      }
    });

    it("(b) a run announcing the attacker's endpoint never gets the worker's key", async () => {
      const authorizations: string[] = [];
      const server: Server = createServer((req, res) => {
        authorizations.push(req.headers.authorization ?? '(none)');
        res.writeHead(500).end();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const evilURL = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
      const r = recipe({ kind: 'endpoint', baseURL: evilURL, modelId: 'gpt-4o' });
      const [plain, signed] = [randomUUID(), randomUUID()];
      const connections = [plain, signed].map(() => createBullConnection(redis.url));
      const queues = [plain, signed].map(
        (id, i) => new Queue(queueNameFor(id), { connection: connections[i]! }),
      );
      try {
        await attacker.hset(RUNS_KEY, plain, JSON.stringify(announcementOf(plain, r)));
        await attacker.hset(
          RUNS_KEY,
          signed,
          JSON.stringify(seal(auth, 'announcement', announcementOf(signed, r))),
        );
        // one job each: the old format, and a signed one
        const id = sampleIds[0]!;
        await queues[0]!.add('sample', { id, epoch: 1, seed: 0 }, { jobId: jobIdFor(id, 1) });
        await queues[1]!.add('sample', seal(auth, 'job', { runId: signed, id, epoch: 1, seed: 0 }), {
          jobId: jobIdFor(id, 1),
        });
        await waitForLog(`refused run ${signed}`);
        await waitForLog(`ignored run "${plain}"`);
        expect(workerLog().split('\n')).toContain(
          `worker: refused run ${signed} (appbench/flat with gpt-4o): the run's model endpoint ${evilURL} is not this worker's --base-url ${WORKER_BASE_URL}: its key goes only there`,
        );
        // the tools' endpoints (GTA's vision, image, embeddings) likewise; sandbox options are not announced at all
        const [toolRun, pythonRun] = [randomUUID(), randomUUID()];
        const withTools = (tools: unknown) => ({ ...recipe(null), tools }) as TaskRecipe;
        await attacker.hset(
          RUNS_KEY,
          toolRun,
          JSON.stringify(
            seal(
              auth,
              'announcement',
              announcementOf(toolRun, withTools({ config: { vision: { baseURL: evilURL, model: 'v' } } })),
            ),
          ),
        );
        await attacker.hset(
          RUNS_KEY,
          pythonRun,
          JSON.stringify(
            seal(
              auth,
              'announcement',
              announcementOf(pythonRun, withTools({ config: { python: { timeoutMs: 1 } } })),
            ),
          ),
        );
        await waitForLog(`refused run ${toolRun}`);
        await waitForLog(`ignored run "${pythonRun}"`);
        await attacker.hdel(RUNS_KEY, toolRun, pythonRun);
        await attacker.del(notesKey(toolRun));
        expect(workerLog().split('\n')).toContain(
          `worker: refused run ${toolRun} (appbench/flat): the run's vision endpoint ${evilURL} is not this worker's APIARY_VISION_BASE_URL (unset): its key goes only there`,
        );
        expect(workerLog().split('\n')).toContain(
          `worker: ignored run "${pythonRun}": invalid announcement: recipe.tools.config: Unrecognized key: "python"`,
        );
        await new Promise((res) => setTimeout(res, 300)); // a worker that joined would have called by now
        expect(authorizations).toEqual([]);
        expect(workerLog()).not.toContain(WORKER_KEY);
      } finally {
        await Promise.all(queues.map((q) => q.obliterate({ force: true }).then(() => q.close())));
        for (const c of connections) c.disconnect();
        await attacker.hdel(RUNS_KEY, plain, signed);
        await attacker.del(notesKey(signed));
        await new Promise<void>((r) => server.close(() => r()));
      }
    });

    it('(c) invented, forged, replayed and malformed results are refused; the genuine ones are recorded once', async () => {
      const notes: string[] = [];
      const forged = {
        output: 'FORGED',
        error: null,
        usage: null,
        modelCalls: 0,
        score: 'FORGED',
        infrastructureFailure: false,
        connectionFailure: false,
      };
      const run = await evalRun(recipe(moduleModel(200)), {
        coordinator: { onNote: (n) => notes.push(n), sweepMs: 300 },
        async whileRunning(c) {
          const stream = `bull:${c.queueName}:events`;
          const [s0, s1, s2, s3, s4] = sampleIds;
          const complete = (id: string, returnvalue: string) =>
            attacker.xadd(
              stream,
              '*',
              'event',
              'completed',
              'jobId',
              jobIdFor(id, 1),
              'returnvalue',
              returnvalue,
            );
          const signed = (body: unknown) => JSON.stringify(seal(auth, 'result', body));
          await complete(s0!, JSON.stringify(forged)); // what the coordinator recorded before
          await complete(
            s1!,
            JSON.stringify({
              payload: JSON.stringify({ runId: c.runId, id: s1, epoch: 1, run: forged }),
              mac: 'cd'.repeat(32),
            }),
          );
          await complete(s2!, signed({ runId: randomUUID(), id: s2, epoch: 1, run: forged })); // replayed from another run
          await complete(s3!, signed({ runId: c.runId, id: s4, epoch: 1, run: forged })); // another sample's
          await complete(
            s4!,
            signed({ runId: c.runId, id: s4, epoch: 1, run: { ...forged, modelCalls: -1 } }),
          );
          // not JSON: BullMQ's stream reader stops at it; the results are then read from the jobs
          await complete(s4!, '{not json');
        },
      });
      const [s0, s1, s2, s3, s4] = sampleIds.map((id) => jobIdFor(id, 1));
      const refused = (job: string, why: string) =>
        `refused a result for job ${job} of run ${run.runId}: ${why}`;
      expect(notes).toEqual([
        refused(s0!, 'not a signed envelope ({payload, mac})'),
        refused(s1!, 'bad MAC (not signed with this queue secret)'),
        expect.stringMatching(
          new RegExp(
            `^refused a result for job ${s2} of run ${run.runId}: it is bound to run [0-9a-f-]{36}$`,
          ),
        ),
        refused(s3!, `it is bound to sample "${sampleIds[4]}" epoch 1, the job is "${sampleIds[3]}" epoch 1`),
        refused(s4!, 'invalid result: run.modelCalls: Too small: expected number to be >=0'),
        `the event stream of ${queueNameFor(run.runId)} holds an entry that is not JSON (not written by BullMQ): results are read from their jobs from now on`,
      ]);
      expect(run.stats).toEqual({
        queued: 8,
        results: 8,
        duplicates: 0,
        failed: 0,
        retried: 0,
        lost: 0,
        refused: 5,
      });
      const lines = readResultsFile(run.outFile).samples;
      expect(lines.map((l) => l.id).sort()).toEqual([...sampleIds].sort());
      expect(readFileSync(run.outFile, 'utf8')).not.toContain('FORGED');
      expect(run.result.summary.records).toBe(8);
    });

    it('(d) Redis flushed mid-run: the coordinator stops with NETWORK within a second, keeps what it wrote, and --resume finishes', async () => {
      const out = mkdtempSync(join(tmpdir(), 'apiary-queue-flush-'));
      let flushedAt = 0;
      let runId = '';
      const failing = evalRun(recipe(moduleModel(300)), {
        out,
        coordinator: { watchMs: 100 },
        async whileRunning(c, outFile) {
          runId = c.runId;
          await until(() => readResultsFile(outFile).samples.length >= 2, 'two results');
          await attacker.flushall();
          flushedAt = Date.now();
        },
      });
      const error = await failing.catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'NETWORK',
        message: `the Redis server at ${redis.url} no longer holds this run's announcement (apiary:runs ${runId}): it restarted empty or was flushed; the results recorded so far are kept: rerun with --resume to queue the rest`,
      });
      expect(Date.now() - flushedAt).toBeLessThan(1000);
      const kept = readResultsFile(join(out, 'results.jsonl'));
      expect(kept.samples.length).toBeGreaterThanOrEqual(2);
      expect(kept.samples.length).toBeLessThan(8);
      expect(kept.truncatedTail).toBe(false);
      const resumed = await evalRun(recipe(moduleModel(0)), { out, resume: true });
      expect(resumed.result.skipped).toBe(kept.samples.length);
      expect(
        readResultsFile(resumed.outFile)
          .samples.map((l) => l.id)
          .sort(),
      ).toEqual([...sampleIds].sort());
    });

    it('(d) Redis gone for good: the coordinator stops with NETWORK once its bounded wait is over', async () => {
      const own = await startRedisServer();
      const c = await startQueueCoordinator({
        url: own.url,
        auth,
        recipe: recipe(null),
        data: { path: MINI, sha256: null },
        watchMs: 100,
        redisLostMs: 1000,
      });
      try {
        const pending = c.run(sampleIds[0]!, 1, 0);
        pending.catch(() => {}); // asserted below
        await own.close();
        const killedAt = Date.now();
        await expect(pending).rejects.toMatchObject({
          code: 'NETWORK',
          message: expect.stringMatching(
            new RegExp(
              `^the Redis server at ${own.url.replace(/[.]/g, '\\.')} has not answered for 1000 ms \\(.*\\); the results recorded so far are kept: rerun with --resume to queue the rest$`,
            ),
          ),
        });
        expect(Date.now() - killedAt).toBeLessThan(2500);
        expect(c.stats().lost).toBe(1);
      } finally {
        const closing = Date.now();
        await c.close();
        expect(Date.now() - closing).toBeLessThan(6000);
      }
    });
  },
);

describe.skipIf(redisServerMissing !== null)(
  `the Redis of docs/distributed.md (${redisServerMissing ?? 'redis-server'})`,
  { timeout: 30_000 },
  () => {
    it('its ACL user runs a distributed eval, and cannot flush the server; no password, no access', async () => {
      // the `user` lines of docs/distributed.md, as command-line directives
      const acl = [
        '--user',
        'default',
        'off',
        '--user',
        'apiary',
        'on',
        '>s3cret-pass',
        '~bull:*',
        '~apiary:*',
        '&*',
        '+@all',
        '-@dangerous',
        '+info',
      ];
      const own = await startRedisServer({ args: acl, auth: 'apiary:s3cret-pass' });
      const w = await startQueueWorker({ url: own.url, auth, pollMs: 50 });
      try {
        const run = await evalRun(recipe(null), { url: own.url });
        expect(run.stats.results).toBe(8);
        const admin = await connectRedis(own.url);
        await expect(admin.flushall()).rejects.toThrow(/NOPERM/);
        admin.disconnect();
        await expect(connectRedis(own.url.replace('apiary:s3cret-pass@', ''))).rejects.toMatchObject({
          code: 'NETWORK',
          message: expect.stringContaining('NOAUTH'),
        });
      } finally {
        await w.close();
        await own.close();
      }
    });
  },
);

describe('(e) no shared secret, no distributed eval', () => {
  const refusal =
    'distributed evals need a shared secret: set APIARY_QUEUE_SECRET (the same on the coordinator and every worker) or pass --queue-secret-file FILE; --insecure-no-auth runs without one (anyone who reaches Redis can then forge runs and results)';

  it('apiary worker and apiary eval --queue refuse to start without one', async () => {
    expect(process.env.APIARY_QUEUE_SECRET).toBeUndefined();
    // an unreachable Redis: without the check, each would fail later with NETWORK instead
    await expect(runWorkerCommand({ queue: 'redis://127.0.0.1:1', concurrency: '1' })).rejects.toMatchObject({
      code: 'USAGE',
      message: refusal,
    });
    await expect(
      runEvalCommand('appbench', { queue: 'redis://127.0.0.1:1', concurrency: '4', seed: '0', data: MINI }),
    ).rejects.toMatchObject({ code: 'USAGE', message: refusal });
  });

  it('a secret from a file or the environment; too short, or both with --insecure-no-auth, is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-secret-'));
    const file = join(dir, 'secret');
    writeFileSync(file, `${SECRET}\n`);
    const fromFile = resolveQueueAuth({ secretFile: file, env: {} });
    expect(fromFile.insecure).toBe(false);
    // the file's trailing newline is not part of the secret: both sides sign alike
    expect(fromFile.sign('note', 'x')).toBe(auth.sign('note', 'x'));
    expect(resolveQueueAuth({ env: { APIARY_QUEUE_SECRET: SECRET } }).sign('note', 'x')).toBe(
      auth.sign('note', 'x'),
    );
    expect(() => resolveQueueAuth({ env: { APIARY_QUEUE_SECRET: 'short' } })).toThrow(
      'the queue secret is 5 characters long; it needs at least 16',
    );
    expect(() => resolveQueueAuth({ env: { APIARY_QUEUE_SECRET: SECRET }, insecure: true })).toThrow(
      'APIARY_QUEUE_SECRET is set and --insecure-no-auth was given: unset one of them',
    );
    expect(resolveQueueAuth({ env: {}, insecure: true }).insecure).toBe(true);
  });

  it('--allow-module takes local files only', () => {
    expect(() => moduleAllowlist(['data:text/javascript,1'])).toThrow(
      '--allow-module data:text/javascript,1: not a local file (a path or a file: URL)',
    );
    expect(() => moduleAllowlist(['/nonexistent/model.ts'])).toThrow(
      '--allow-module /nonexistent/model.ts: no such file (/nonexistent/model.ts)',
    );
    expect([...moduleAllowlist([fileURLToPath(slowModel)])]).toEqual([slowModel]);
  });

  it.skipIf(redisServerMissing !== null)('--insecure-no-auth starts the worker, with a warning', async () => {
    const own = await startRedisServer();
    const w = startCli(['worker', '--queue', own.url, '--insecure-no-auth']);
    try {
      await until(() => w.out.stderr.includes('waiting for runs'), 'the worker');
      expect(w.out.stderr).toContain(
        'worker: warning: --insecure-no-auth: runs, jobs and results on this Redis are not authenticated; anyone who can write to it chooses what this worker runs\n',
      );
    } finally {
      w.child.kill('SIGTERM');
      await w.done;
      await own.close();
    }
  });
});
