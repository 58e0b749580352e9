import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeToolBenchFixtures } from '../../benchmarks/toolbench/__fixtures__/data-root.js';
import { loadTrainCheckpoint, loadTrainedModel } from '../../retrieval/index.js';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';
import { ROOT, startCli } from '../__fixtures__/run-cli.js';

/*
 * Issue 13 item 2 for the other long commands: the first Ctrl-C stops starting work, writes what is
 * done (whole, by temp file and rename) and exits 130; a second exits at once. Real SIGINTs to a child.
 */

/** `apiary <args>` running on a clean machine: its child (for the SIGINTs), output so far and end. */
const apiary = (...args: string[]) => startCli(args);

async function until(what: string, ready: () => boolean, ms = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!ready()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('Ctrl-C in the long commands', { timeout: 120_000 }, () => {
  it('retrieve train: stops after the batch in progress, writes the model so far and a checkpoint, exits 130; --resume continues', async () => {
    const data = writeToolBenchFixtures();
    const dir = mkdtempSync(join(tmpdir(), 'apiary-sigint-train-'));
    const out = join(dir, 'retriever.aprm');
    const args = [
      'retrieve',
      'train',
      '--data',
      data,
      '--out',
      out,
      '--epochs',
      '1000000',
      '--no-word-vectors',
    ];
    const run = apiary(...args);
    await until('training to start', () => run.out.stderr.includes('training on G1_instruction'));
    await new Promise((r) => setTimeout(r, 300));
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(130);
    expect(run.out.stderr).toContain(
      'interrupted: training stops after this batch; the model trained so far is written and a checkpoint kept for --resume (Ctrl-C again to quit now)',
    );
    expect(run.out.stderr).toMatch(
      new RegExp(
        `interrupted: wrote ${out} after \\d+ finished epoch\\(s\\), without a ranker; checkpoints kept in ${out}\\.ckpt: the same command with --resume continues`,
      ),
    );
    // no temp file beside the model or the checkpoint
    expect(readdirSync(dir)).toEqual(['retriever.aprm', 'retriever.aprm.ckpt']);
    expect(readdirSync(`${out}.ckpt`)).toEqual(['projection.json']);
    const model = loadTrainedModel(out);
    const finished = (model.info.epochLosses as number[]).length;
    expect(model.info.interrupted).toEqual({ epochsFinished: finished });
    expect(finished).toBeLessThan(1_000_000);
    expect(model.ranker).toBeUndefined();
    const ck = loadTrainCheckpoint(join(`${out}.ckpt`, 'projection.json'));
    expect(ck.state.epochLosses).toEqual(model.info.epochLosses);
    // the model file keeps float32 weights; the checkpoint the same weights in float64
    expect([...model.projection.w]).toEqual([...ck.state.w].map((x) => Math.fround(x)));

    // the same command with --resume starts where the checkpoint is (and may replace the model)
    const again = apiary(...args, '--resume');
    await until('the resume', () => again.out.stderr.includes('projection: resuming at epoch'));
    expect(again.out.stderr).toContain(
      `projection: resuming at epoch ${ck.state.epoch + 1}, batch ${ck.state.nextBatch + 1}`,
    );
    await new Promise((r) => setTimeout(r, 300));
    again.child.kill('SIGINT');
    expect((await again.done).code).toBe(130);
    const more = (loadTrainedModel(out).info.epochLosses as number[]).length;
    expect(more).toBeGreaterThanOrEqual(finished);
    expect(readdirSync(dir)).toEqual(['retriever.aprm', 'retriever.aprm.ckpt']);
  });

  it('apps build-db: stops after the file in progress, writes nothing, keeps no temp file, exits 130', async () => {
    const data = mkdtempSync(join(tmpdir(), 'apiary-sigint-sgd-'));
    mkdirSync(join(data, 'sgd', 'train'), { recursive: true });
    const subset = join(ROOT, 'data/sgd-db/sgd-subset.json');
    for (let i = 1; i <= 200; i++)
      copyFileSync(subset, join(data, 'sgd', 'train', `dialogues_${String(i).padStart(3, '0')}.json`));
    const dir = mkdtempSync(join(tmpdir(), 'apiary-sigint-db-'));
    const out = join(dir, 'sgd.sqlite');
    const run = apiary('apps', 'build-db', '--data', data, '--out', out);
    await until('the build to start', () =>
      readdirSync(dir).some((f) => f.startsWith('sgd.sqlite.building-')),
    );
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(130);
    expect(run.out.stderr).toMatch(
      new RegExp(`interrupted after \\d+/200 file\\(s\\): ${out} not written\\n`),
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('apps build-db: a second Ctrl-C right after the first exits at once and removes the temp file', async () => {
    const data = mkdtempSync(join(tmpdir(), 'apiary-sigint-sgd2-'));
    mkdirSync(join(data, 'sgd', 'train'), { recursive: true });
    for (let i = 1; i <= 100; i++)
      copyFileSync(
        join(ROOT, 'data/sgd-db/sgd-subset.json'),
        join(data, 'sgd', 'train', `dialogues_${String(i).padStart(3, '0')}.json`),
      );
    const dir = mkdtempSync(join(tmpdir(), 'apiary-sigint-db2-'));
    const run = apiary('apps', 'build-db', '--data', data, '--out', join(dir, 'sgd.sqlite'));
    await until('the build to start', () =>
      readdirSync(dir).some((f) => f.startsWith('sgd.sqlite.building-')),
    );
    run.child.kill('SIGINT');
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(130);
    expect(readdirSync(dir)).toEqual([]);
  });

  describe('sft build --paraphrase', () => {
    let server: ScriptedOpenAiServer;
    const hung: Array<() => void> = [];
    beforeAll(async () => {
      let n = 0;
      server = await startScriptedOpenAiServer({
        // two paraphrases answer at once; the third hangs until the test ends
        respond: (req) => {
          n++;
          if (n <= 2) return `${req.messages.at(-1)!.content} please`;
          return new Promise<string>((r) => hung.push(() => r('late')));
        },
      });
    });
    afterAll(async () => {
      for (const release of hung) release();
      await server.close();
    });

    it('writes the samples paraphrased before Ctrl-C, whole, and exits 130', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'apiary-sigint-sft-'));
      const out = join(dir, 'sft.jsonl');
      const run = apiary(
        'sft',
        'build',
        '--data',
        'src/sft/__fixtures__/mini-appbench',
        '--catalog',
        'src/sft/__fixtures__/mini-catalog.json',
        '--paraphrase',
        '--base-url',
        server.url,
        '--model',
        'scripted',
        '--concurrency',
        '1',
        '--out',
        out,
      );
      await until('the third paraphrase call', () => server.requests.length >= 3);
      run.child.kill('SIGINT');
      expect((await run.done).code).toBe(130);
      expect(readdirSync(dir)).toEqual(['sft.jsonl']);
      const lines = readFileSync(out, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines.map((l) => JSON.parse(l).messages.at(-2).content.endsWith(' please'))).toEqual([
        true,
        true,
      ]);
      expect(run.out.stdout).toContain('interrupted: 2 sample(s) written, 4 left out (not paraphrased)');
      expect(existsSync(`${out}.tmp`)).toBe(false);
    });
  });
});
