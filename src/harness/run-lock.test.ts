import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleSolver, type Task, type TaskSample } from '../tasks/index.js';
import { runEval } from './run-eval.js';
import { createRunFolder, latestRunFolder, runFolderPrefix, runTimestamp } from './run-folder.js';
import { acquireRunLock, processIsAlive, RUN_LOCK_FILE } from './run-lock.js';
import { buildRunSpec } from './run-spec.js';

const dir = () => mkdtempSync(join(tmpdir(), 'apiary-lock-'));
const at = (iso: string) => () => new Date(iso);

describe('run-folder lock', () => {
  it('a second holder is refused at once, naming the first; release frees the folder', () => {
    const d = dir();
    const first = acquireRunLock(d, { pid: 4242, hostname: 'box', now: at('2026-01-01T00:00:00.000Z') });
    expect(JSON.parse(readFileSync(join(d, RUN_LOCK_FILE), 'utf8'))).toEqual({
      pid: 4242,
      hostname: 'box',
      startedAt: '2026-01-01T00:00:00.000Z',
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(() => acquireRunLock(d, { pid: 7, hostname: 'box', isAlive: () => true })).toThrow(
      `${d} is in use by another run (pid 4242 on box, started 2026-01-01T00:00:00.000Z)`,
    );
    // another host's lock is never judged stale from here
    expect(() => acquireRunLock(d, { pid: 7, hostname: 'other', isAlive: () => false })).toThrow(
      /pid 4242 on box/,
    );
    first.release();
    expect(existsSync(join(d, RUN_LOCK_FILE))).toBe(false);
    const second = acquireRunLock(d, { pid: 7, hostname: 'box' });
    expect(second.tookOver).toBeNull();
    first.release(); // a late second release leaves the new holder's lock alone
    expect(existsSync(join(d, RUN_LOCK_FILE))).toBe(true);
    second.release();
  });

  it('a stale lock (dead pid on this host) is taken over and reported', () => {
    const d = dir();
    writeFileSync(
      join(d, RUN_LOCK_FILE),
      JSON.stringify({ pid: 999_999, hostname: 'box', startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    const lock = acquireRunLock(d, { pid: 5, hostname: 'box', isAlive: (pid) => pid !== 999_999 });
    expect(lock.tookOver).toEqual({ pid: 999_999, hostname: 'box', startedAt: '2026-01-01T00:00:00.000Z' });
    expect(JSON.parse(readFileSync(join(d, RUN_LOCK_FILE), 'utf8')).pid).toBe(5);
    lock.release();
  });

  it('an unreadable lock file is refused, not taken over', () => {
    const d = dir();
    writeFileSync(join(d, RUN_LOCK_FILE), '');
    expect(() => acquireRunLock(d)).toThrow(/is locked \(unreadable lock file .*run\.lock\); delete it/);
  });

  it('probes processes: this one is alive', () => {
    expect(processIsAlive(process.pid)).toBe(true);
  });

  it('runEval holds the lock while it runs: a second run on the folder fails, the first completes', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const task: Task<TaskSample, number, number, number> = {
      name: 'toy',
      version: '1',
      dataset: [{ id: 'a' }],
      solver: sampleSolver(async () => {
        await gate;
        return { output: 1 };
      }),
      scorer: (_s, o) => o.output ?? 0,
      summarize: (xs) => xs.length,
    };
    const spec = buildRunSpec(
      {
        task: { name: 'toy', version: '1', options: {} },
        solver: { name: 'toy', options: {} },
        model: null,
        sampling: null,
        data: { path: 'memory', sha256: 'x' },
        size: 1,
        seed: 0,
        concurrency: 1,
      },
      { now: () => new Date(), gitRevision: () => null, packageVersion: () => 'test' },
    );
    const d = dir();
    const outFile = join(d, 'results.jsonl');
    const first = runEval({ task, spec, outFile });
    await expect(runEval({ task, spec, outFile, resume: true })).rejects.toThrow(
      new RegExp(`is in use by another run \\(pid ${process.pid} on `),
    );
    release();
    expect((await first).ran).toBe(1);
    expect(existsSync(join(d, RUN_LOCK_FILE))).toBe(false);
    // released on error too: the refused resume above left nothing behind, and a failing run unlocks
    await expect(runEval({ task, spec, outFile })).rejects.toThrow(/already holds results/);
    expect(existsSync(join(d, RUN_LOCK_FILE))).toBe(false);
  });
});

describe('default run folders', () => {
  it('are unique per run and the latest is found for --resume', () => {
    const root = join(dir(), 'runs');
    const prefix = runFolderPrefix('appbench', 'flat', 'org/model:7b');
    expect(prefix).toBe('appbench-flat-org-model-7b');
    expect(runTimestamp(new Date('2026-01-02T03:04:05.678Z'))).toBe('20260102T030405Z');
    const t = new Date('2026-01-02T03:04:05.678Z');
    const a = createRunFolder(root, prefix, t);
    const b = createRunFolder(root, prefix, t);
    const c = createRunFolder(root, prefix, new Date('2026-01-02T03:04:06Z'));
    expect([a, b, c].map((p) => p.slice(root.length + 1))).toEqual([
      'appbench-flat-org-model-7b-20260102T030405Z',
      'appbench-flat-org-model-7b-20260102T030405Z-2',
      'appbench-flat-org-model-7b-20260102T030406Z',
    ]);
    expect(latestRunFolder(root, prefix)).toBeUndefined(); // no results file yet
    writeFileSync(join(a, 'results.jsonl'), '');
    writeFileSync(join(b, 'results.jsonl'), '');
    expect(latestRunFolder(root, prefix)).toBe(b);
    writeFileSync(join(c, 'results.jsonl'), '');
    expect(latestRunFolder(root, prefix)).toBe(c);
    // a longer model name sharing the prefix is another series
    const other = createRunFolder(root, runFolderPrefix('appbench', 'flat', 'org/model:7b-x'), t);
    writeFileSync(join(other, 'results.jsonl'), '');
    expect(latestRunFolder(root, prefix)).toBe(c);
  });
});
