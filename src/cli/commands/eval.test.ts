import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBenchGoldReply, loadAppBenchDataset } from '../../benchmarks/appbench/index.js';
import { expectScenarioReport, WRONG_SS1 } from '../../harness/__fixtures__/appbench-mini-scenario.js';
import { readResultsFile } from '../../harness/index.js';
import {
  type ScriptedChatRequest,
  type ScriptedOpenAiServer,
  type ScriptedReply,
  startScriptedOpenAiServer,
} from '../../test/index.js';
import { ROOT, runCli, startCli } from '../__fixtures__/run-cli.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

/*
 * End to end: the real CLI program (in this process; worker threads and Ctrl-C in a child) against the
 * scripted OpenAI-compatible server over loopback HTTP. Data: examples/appbench-mini (our own
 * hand-written records). Expected report values are hand-computed in the scenario fixture.
 */

const MINI = join(ROOT, 'examples', 'appbench-mini');
const samples = loadAppBenchDataset(MINI).samples;
const byInput = new Map(samples.map((s) => [s.record.input, s]));

/** An empty temp folder to run the CLI in (no apiary.config.json, no node_modules there). */
const tempCwd = () => mkdtempSync(join(tmpdir(), 'apiary-eval-cwd-'));
/** `apiary <args>` on a clean machine, in `cwd` (by default a fresh temp folder). */
const runInTempDir = (args: string[], cwd = tempCwd()) => runCliInProcess(args, { cwd });

function sampleOf(req: ScriptedChatRequest) {
  const user = req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const s = byInput.get(user);
  if (!s) throw new Error(`unexpected instruction: ${user}`);
  return s;
}

/** The scenario of the fixture: gold for 5 samples, wrong for ss-1, partial for ms-0, a hard failure for mm-0. */
function scenario(req: ScriptedChatRequest): ScriptedReply {
  const s = sampleOf(req);
  if (s.id === 'mm-0') return { fault: 'http500' };
  if (s.id === 'ss-1') return `Sure! Here is the plan:\n${WRONG_SS1}`;
  const gold = appBenchGoldReply(s.record);
  return s.id === 'ms-0' ? gold.split('\n')[0]! : gold;
}

const outDir = () => mkdtempSync(join(tmpdir(), 'apiary-eval-out-'));
const modelArgs = (server: ScriptedOpenAiServer) => ['--base-url', server.url, '--model', 'scripted-1'];
const FAST_RETRY = ['--retries', '1', '--retry-delay-ms', '5', '--timeout-ms', '2000'];

function sampleLines(file: string) {
  return readResultsFile(file).samples;
}

describe('apiary eval appbench (scripted HTTP model)', { timeout: 90_000 }, () => {
  let server: ScriptedOpenAiServer;
  let fullReport: unknown;
  beforeAll(async () => {
    server = await startScriptedOpenAiServer({ respond: scenario });
  });
  afterAll(async () => {
    await server.close();
  });

  it('--workers 2: worker threads rebuild task, solver and endpoint model; same report and scores', async () => {
    // its own server: other tests count the requests of the shared one
    const own = await startScriptedOpenAiServer({ respond: scenario });
    const run = async (workers: string) => {
      const out = outDir();
      // a true end-to-end spawn: worker threads load the task from the sources, as a user's run does
      const r = await runCli(
        [
          'eval',
          'appbench',
          '--data',
          MINI,
          ...modelArgs(own),
          '--out',
          out,
          '--concurrency',
          '3',
          '--workers',
          workers,
          ...FAST_RETRY,
          '--json',
        ],
        { cwd: tempCwd() },
      );
      expect(r.code).toBe(3); // mm-0's endpoint failure is an infrastructure error
      const scores = readResultsFile(join(out, 'results.jsonl')).samples.map((l) => [l.id, l.error, l.score]);
      return {
        json: JSON.parse(r.stdout),
        scores: scores.sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      };
    };
    let one: Awaited<ReturnType<typeof run>>;
    let two: typeof one;
    try {
      one = await run('1');
      two = await run('2');
    } finally {
      await own.close();
    }
    expectScenarioReport(two.json.summary.report);
    expect(two.json).toMatchObject({ ran: 8, infrastructureErrors: 1 });
    expect(two.scores).toEqual(one.scores);
    expect(two.json.summary.report).toEqual(one.json.summary.report);
  });

  it('records every sample and prints the hand-computed summary (--json)', async () => {
    const out = outDir();
    const r = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      ...modelArgs(server),
      '--out',
      out,
      '--concurrency',
      '3',
      ...FAST_RETRY,
      '--json',
    ]);
    expect(r.stderr).toBe(''); // --json: no progress, no notes
    expect(r.code).toBe(3); // mm-0's endpoint failure is an infrastructure error
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({
      ran: 8,
      skipped: 0,
      aborted: false,
      resultsFile: join(out, 'results.jsonl'),
    });
    expectScenarioReport(json.summary.report);
    fullReport = json.summary.report;
    expect(json.summary).toMatchObject({
      samples: 8,
      errors: 1,
      infrastructureErrors: 1,
      duplicates: 0,
      modelCalls: 7,
    });
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toEqual(json.summary);

    const contents = readResultsFile(join(out, 'results.jsonl'));
    expect(contents.header!.spec).toMatchObject({
      version: 2,
      task: { name: 'appbench', version: '1', options: { categories: null } },
      solver: { name: 'flat', options: { shots: 0, demos: 'same-app' } },
      model: { id: 'scripted-1', baseUrl: server.url },
      sampling: { temperature: 0, topP: 0, maxOutputTokens: 1024 },
      data: { path: MINI },
      limit: null,
      size: 8,
      seed: 0,
      epochs: 1,
      concurrency: 3,
      price: null,
      packageVersion: '0.1.0',
    });
    expect(contents.header!.spec.data.sha256).toMatch(/^[0-9a-f]{64}$/);
    const lines = new Map(contents.samples.map((l) => [l.id, l]));
    expect([...lines.keys()].sort()).toEqual(samples.map((s) => s.id).sort());
    const mm0 = lines.get('mm-0')!;
    expect(mm0.output).toBeNull();
    expect(mm0.error).toMatch(
      /^MODEL_CALL_FAILED: model call failed after 2 attempt\(s\) \[http5xx, http5xx\]/,
    );
    expect(mm0.score).toMatchObject({ id: 'mm-0', failed: true, official: null });
    const { trace, ...ss1 } = lines.get('ss-1')!.output as { trace: Array<Record<string, unknown>> };
    expect(ss1).toEqual({
      reply: WRONG_SS1,
      rawReply: `Sure! Here is the plan:\n${WRONG_SS1}`,
      attempts: 1,
    });
    // the runtime's trace of the one turn: what was sent, the reply, the decision, then the stop
    expect(trace.map((e) => [e.type, e.decision ?? e.reason])).toEqual([
      ['turn', 'final'],
      ['stop', 'final'],
    ]);
    expect(trace[0]).toMatchObject({
      sent: {
        messages: [
          { role: 'user', content: 'Find me a Thai place to eat in Oakland that has seats outside.' },
        ],
      },
      reply: { text: `Sure! Here is the plan:\n${WRONG_SS1}`, toolCalls: [] },
    });
    expect(lines.get('ss-0')).toMatchObject({ category: 'ss', error: null, modelCalls: 1 });
    expect(lines.get('ss-0')!.usage!.inputTokens).toBeGreaterThan(100); // the system prompt lists all apps
    // 7 answered requests + 2 attempts for mm-0
    expect(server.requests.filter((q) => q.path.endsWith('/chat/completions'))).toHaveLength(9);
  });

  it('prints the run table and the AppBench report without --json', async () => {
    const out = outDir();
    const r = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      ...modelArgs(server),
      '--out',
      out,
      ...FAST_RETRY,
    ]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('1 sample(s) failed because the model endpoint failed');
    expect(r.stdout).toMatch(/│ infrastructure errors\s+│ 1 \(the model endpoint failed\)\s+│/);
    expect(r.stderr).toContain(`data: ${MINI}`);
    expect(r.stderr).toMatch(/\[appbench\] 8\/8 \(100%\) [\d.]+\/s ETA \S+ errors 1/); // not a TTY: plain lines
    expect(r.stdout).toMatch(/│ errors\s+│ 1\s+│/);
    expect(r.stdout).toMatch(/Success \(Succ\)\s+71\.43\s+62\.50/);
    expect(r.stdout).toContain(`results: ${join(out, 'results.jsonl')}`);
    // a second run into the same folder needs --resume (or --overwrite)
    const again = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      ...modelArgs(server),
      '--out',
      out,
    ]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds results; pass --resume');
  });

  it('a run killed with SIGKILL mid-run, then resumed, gives the uninterrupted summary', async () => {
    const slow = await startScriptedOpenAiServer({ respond: scenario, latencyMs: 250 });
    try {
      const out = outDir();
      const file = join(out, 'results.jsonl');
      const args = [
        'eval',
        'appbench',
        '--data',
        MINI,
        ...modelArgs(slow),
        '--out',
        out,
        '--concurrency',
        '2',
        ...FAST_RETRY,
        '--json',
      ];
      const { child, done } = startCli(args, { cwd: tempCwd() });
      // wait until 3 samples are on disk, then kill hard
      const t0 = Date.now();
      while (!(existsSync(file) && sampleLines(file).length >= 3)) {
        if (Date.now() - t0 > 20_000) throw new Error('run made no progress');
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGKILL');
      const killed = await done;
      expect(killed.signal).toBe('SIGKILL');
      const before = sampleLines(file).length;
      expect(before).toBeGreaterThanOrEqual(3);
      const mm0Before = sampleLines(file).some((l) => l.id === 'mm-0');
      expect(before).toBeLessThan(8); // the kill landed mid-run
      // what a kill in the middle of a write leaves behind
      appendFileSync(file, '{"type":"sample","id":"ms-1","cat');
      // the partial run can be reported as it is
      const partial = await runInTempDir(['eval', 'report', out]);
      expect(partial.code).toBe(0);
      expect(partial.stderr).toContain('ignored a torn last line');
      expect(partial.stdout).toContain(
        `incomplete: ${8 - before} of 8 samples not recorded; continue with --resume`,
      );
      expect(partial.stdout).toMatch(new RegExp(`│ samples\\s+│ ${before}\\s+│`));

      const resumed = await runInTempDir([...args, '--resume']);
      // exit 3 when this invocation ran mm-0 (the endpoint fails it)
      expect(resumed.code).toBe(mm0Before ? 0 : 3);
      const json = JSON.parse(resumed.stdout);
      expect(json).toMatchObject({ skipped: before, ran: 8 - before, repairedTail: true, aborted: false });
      expect(json.summary.report).toEqual(fullReport);
      expectScenarioReport(json.summary.report);
      const ids = sampleLines(file).map((l) => l.id);
      expect(ids).toHaveLength(8); // no sample lost or recorded twice
      expect(new Set(ids).size).toBe(8);
      expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
      expect(readResultsFile(file).truncatedTail).toBe(false);
      const report = await runInTempDir(['eval', 'report', file, '--json']);
      expect(JSON.parse(report.stdout).report).toEqual(json.summary.report);
    } finally {
      await slow.close();
    }
  });

  it('--shots inserts demonstrations (gold replies of other samples) before the instruction', async () => {
    const out = outDir();
    const before = server.requests.length;
    const r = await runInTempDir([
      'eval',
      'appbench',
      '--data',
      MINI,
      ...modelArgs(server),
      '--out',
      out,
      '--categories',
      'sm,mm',
      '--limit',
      '1',
      '--shots',
      '1',
      '--demos',
      'random',
      '--concurrency',
      '1',
      ...FAST_RETRY,
      '--json',
    ]);
    expect(r.code).toBe(3); // mm-0 fails at the endpoint
    const byId = new Map(samples.map((s) => [s.id, s]));
    const sent = server.requests.slice(before).map((q) => q.messages.map((m) => [m.role, m.content]));
    const sm0 = byId.get('sm-0')!.record;
    const mm0 = byId.get('mm-0')!.record;
    const forSm0 = sent.find((m) => m.at(-1)![1] === sm0.input)!;
    expect(forSm0.slice(1)).toEqual([
      ['user', mm0.input],
      ['assistant', appBenchGoldReply(mm0)],
      ['user', sm0.input],
    ]);
    const spec = readResultsFile(join(out, 'results.jsonl')).header!.spec;
    expect(spec.solver).toEqual({ name: 'flat', options: { shots: 1, demos: 'random' } });
  });

  it('--prompting hierarchical selects Apps first, then plans with their APIs', async () => {
    const hier = await startScriptedOpenAiServer({
      respond: (req) => {
        const system = req.messages[0]!.content;
        if (system.includes('return needed app names')) return '["Weather", "Travel"]';
        expect(system).not.toContain('getcarsavailable'); // only the selected Apps' APIs
        return scenario(req);
      },
    });
    try {
      const out = outDir();
      const r = await runInTempDir([
        'eval',
        'appbench',
        '--data',
        MINI,
        ...modelArgs(hier),
        '--out',
        out,
        '--prompting',
        'hierarchical',
        '--categories',
        'ss,ms',
        '--limit',
        '2',
        ...FAST_RETRY,
        '--json',
      ]);
      expect(r.code).toBe(0);
      const lines = new Map(sampleLines(join(out, 'results.jsonl')).map((l) => [l.id, l]));
      expect(lines.get('ms-1')).toMatchObject({
        error: null,
        modelCalls: 2,
        output: { selectedApps: ['Travel', 'Weather'], attempts: 2 },
      });
      const json = JSON.parse(r.stdout);
      expect(json.summary.spec.solver).toEqual({
        name: 'hierarchical',
        options: { shots: 0, demos: 'same-app' },
      });
      expect(json.summary.modelCalls).toBe(8);
      // ss-0 and ms-1 gold, ss-1 wrong, ms-0 partial (as in the flat scenario)
      expect(json.summary.report.official.success).toBe(0.5);
    } finally {
      await hier.close();
    }
  });

  it('Ctrl-C (SIGINT) finishes the samples in flight, keeps the file clean and says how to resume', async () => {
    const slow = await startScriptedOpenAiServer({ respond: scenario, latencyMs: 300 });
    try {
      const out = outDir();
      const file = join(out, 'results.jsonl');
      const args = [
        'eval',
        'appbench',
        '--data',
        MINI,
        ...modelArgs(slow),
        '--out',
        out,
        '--concurrency',
        '1',
        ...FAST_RETRY,
      ];
      const { child, done } = startCli(args, { cwd: tempCwd() });
      const t0 = Date.now();
      while (!(existsSync(file) && sampleLines(file).length >= 1)) {
        if (Date.now() - t0 > 20_000) throw new Error('run made no progress');
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGINT');
      const r = await done;
      expect(r.code).toBe(130);
      expect(r.stderr).toContain('interrupted: finishing the samples in flight');
      expect(r.stderr).toMatch(/stopped early: \d of 8 samples recorded; rerun with --resume to finish/);
      const n = sampleLines(file).length;
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThan(8);
      expect(readResultsFile(file).truncatedTail).toBe(false);
      expect(existsSync(join(out, 'run.lock'))).toBe(false);
      expect(existsSync(join(out, 'summary.json'))).toBe(true);
      const resumed = await runInTempDir([...args, '--resume', '--json']);
      expect(JSON.parse(resumed.stdout)).toMatchObject({ skipped: n, ran: 8 - n });
    } finally {
      await slow.close();
    }
  });

  it('a second Ctrl-C exits at once (130), leaving whole lines and no lock', async () => {
    const slow = await startScriptedOpenAiServer({ respond: scenario, latencyMs: 300 });
    try {
      const out = outDir();
      const file = join(out, 'results.jsonl');
      const args = ['eval', 'appbench', '--data', MINI, ...modelArgs(slow), '--out', out, ...FAST_RETRY];
      const { child, done } = startCli(args, { cwd: tempCwd() });
      const t0 = Date.now();
      while (!(existsSync(file) && sampleLines(file).length >= 1)) {
        if (Date.now() - t0 > 20_000) throw new Error('run made no progress');
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGINT');
      child.kill('SIGINT');
      const r = await done;
      expect(r.code).toBe(130);
      expect(readResultsFile(file).truncatedTail).toBe(false);
      expect(existsSync(join(out, 'run.lock'))).toBe(false);
    } finally {
      await slow.close();
    }
  });

  it('SIGTERM stops like Ctrl-C: samples in flight finish, summary written, lock released, exit 143', async () => {
    const slow = await startScriptedOpenAiServer({ respond: scenario, latencyMs: 300 });
    try {
      const out = outDir();
      const file = join(out, 'results.jsonl');
      const args = [
        'eval',
        'appbench',
        '--data',
        MINI,
        ...modelArgs(slow),
        '--out',
        out,
        '--concurrency',
        '1',
      ];
      const { child, done } = startCli([...args, ...FAST_RETRY], { cwd: tempCwd() });
      const t0 = Date.now();
      while (!(existsSync(file) && sampleLines(file).length >= 1)) {
        if (Date.now() - t0 > 20_000) throw new Error('run made no progress');
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGTERM');
      const r = await done;
      expect(r.signal).toBe(null);
      expect(r.code).toBe(143);
      expect(r.stderr).toContain(
        'terminated (SIGTERM): finishing the samples in flight (SIGTERM or Ctrl-C again to quit now)',
      );
      expect(r.stderr).toMatch(/stopped early: \d of 8 samples recorded; rerun with --resume to finish/);
      const n = sampleLines(file).length;
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThan(8);
      expect(readResultsFile(file).truncatedTail).toBe(false);
      expect(existsSync(join(out, 'run.lock'))).toBe(false);
      expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).records).toBe(n);
    } finally {
      await slow.close();
    }
  });

  it('--cache answers a repeated run from the response cache, with the same results', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'apiary-eval-rcache-'));
    const args = (out: string) => [
      'eval',
      'appbench',
      '--data',
      MINI,
      ...modelArgs(server),
      '--out',
      out,
      '--cache',
      cacheDir,
      '--categories',
      'ss,sm',
      ...FAST_RETRY,
      '--json',
    ];
    const first = JSON.parse((await runInTempDir(args(outDir()))).stdout);
    expect(first.cache).toMatchObject({ dir: cacheDir, hits: 0, misses: 4 });
    const before = server.requests.length;
    const second = JSON.parse((await runInTempDir(args(outDir()))).stdout);
    expect(second.cache).toMatchObject({ hits: 4, misses: 0 });
    expect(server.requests.length).toBe(before); // nothing sent
    expect(second.summary.report).toEqual(first.summary.report);
  });

  it('retries endpoint faults (timeout, 429, 500, invalid JSON, empty choices) and records lasting ones', async () => {
    const seen = new Map<string, number>();
    const firstFault: Record<string, ScriptedReply> = {
      'ss-0': { fault: 'http429' },
      'ss-1': { fault: 'invalid-json' },
      'sm-0': { fault: 'empty-choices' },
      'sm-1': { fault: 'timeout' },
      'ms-1': { fault: 'http500' },
    };
    const flaky = await startScriptedOpenAiServer({
      respond: (req) => {
        const s = sampleOf(req);
        const n = (seen.get(s.id) ?? 0) + 1;
        seen.set(s.id, n);
        if (s.id === 'mm-1') return { fault: n % 2 ? 'empty-choices' : 'invalid-json' }; // never recovers
        if (n === 1 && firstFault[s.id]) return firstFault[s.id]!;
        return scenario(req);
      },
    });
    try {
      const out = outDir();
      const r = await runInTempDir([
        'eval',
        'appbench',
        '--data',
        MINI,
        ...modelArgs(flaky),
        '--out',
        out,
        '--concurrency',
        '4',
        '--retries',
        '1',
        '--retry-delay-ms',
        '5',
        '--timeout-ms',
        '500',
        '--json',
      ]);
      expect(r.code).toBe(3); // mm-0 and mm-1 failed at the endpoint
      const lines = new Map(sampleLines(join(out, 'results.jsonl')).map((l) => [l.id, l]));
      expect(lines.size).toBe(8);
      const faults = (id: string) => (lines.get(id)!.output as { faults?: string[] } | null)?.faults;
      expect(faults('ss-0')).toEqual(['http429']);
      expect(faults('ss-1')).toEqual(['invalid-json']);
      expect(faults('sm-0')).toEqual(['empty-choices']);
      expect(faults('sm-1')).toEqual(['timeout']);
      expect(faults('ms-1')).toEqual(['http5xx']);
      expect(lines.get('ms-1')).toMatchObject({ error: null, output: { attempts: 2 } });
      expect(lines.get('mm-1')!.error).toMatch(
        /MODEL_CALL_FAILED: model call failed after 2 attempt\(s\) \[empty-choices, invalid-json\]/,
      );
      expect(lines.get('mm-0')!.error).toMatch(/\[http5xx, http5xx\]/);
      const json = JSON.parse(r.stdout);
      expect(json.summary).toMatchObject({ samples: 8, errors: 2, infrastructureErrors: 2 });
      expect(json.summary.report.failedIds).toEqual(['mm-0', 'mm-1']);
      // the recovered samples score as in the scenario: ss-0, sm-0, sm-1, ms-1 perfect; ss-1 and ms-0 not
      expect(json.summary.report.official.success).toBeCloseTo(4 / 6, 12);
    } finally {
      await flaky.close();
    }
  });
});

describe('apiary eval appbench without a model', { timeout: 60_000 }, () => {
  it('runs the baseline agent on the bundled mini set and says so', async () => {
    const out = outDir();
    const r = await runInTempDir(['eval', 'appbench', '--out', out, '--categories', 'ss,mm', '--limit', '1']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no model configured: running the baseline agent');
    expect(r.stdout).toContain('agent: baseline (no model configured)');
    const contents = readResultsFile(join(out, 'results.jsonl'));
    expect(contents.header!.spec).toMatchObject({
      solver: { name: 'baseline', options: {} },
      model: null,
      sampling: null,
      task: { options: { categories: ['ss', 'mm'] } },
      limit: 1,
      size: 2,
    });
    expect(contents.samples.map((l) => l.id).sort()).toEqual(['mm-0', 'ss-0']);
    for (const l of contents.samples) expect(l).toMatchObject({ modelCalls: 0, error: null });
  });

  it('gives every run its own default folder, and --resume alone finds the latest one', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'apiary-eval-cwd-'));
    const args = ['eval', 'appbench', '--data', MINI, '--categories', 'ss', '--json'];
    const nothing = await runInTempDir([...args, '--resume'], cwd);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('nothing to resume: no earlier run appbench-baseline-nomodel-*');
    const first = JSON.parse((await runInTempDir(args, cwd)).stdout);
    const second = JSON.parse((await runInTempDir(args, cwd)).stdout);
    const folder = /^appbench-baseline-nomodel-\d{8}T\d{6}Z(-\d+)?$/;
    for (const r of [first, second]) {
      expect(dirname(dirname(r.resultsFile))).toBe(join(cwd, '.apiary', 'runs'));
      expect(basename(dirname(r.resultsFile))).toMatch(folder);
      expect(r.ran).toBe(2);
    }
    expect(second.resultsFile).not.toBe(first.resultsFile);
    const again = JSON.parse((await runInTempDir([...args, '--resume'], cwd)).stdout);
    expect(again).toMatchObject({ resultsFile: second.resultsFile, ran: 0, skipped: 2 });
    expect(again.summary.report).toEqual(first.summary.report);
  });

  it('--resume --out NEW on a folder with no results says it starts a new run, not "resuming"', async () => {
    const out = join(outDir(), 'new-run');
    const args = ['eval', 'appbench', '--data', MINI, '--categories', 'ss', '--resume', '--out', out];
    const results = join(out, 'results.jsonl');
    const first = await runInTempDir(args);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`results: ${results} (new run: --resume found no results there)\n`);
    expect(first.stderr).not.toContain('(resuming)');
    const again = await runInTempDir(args);
    expect(again.stderr).toContain(`results: ${results} (resuming)\n`);
  });

  it('rejects bad flags with exit code 2', async () => {
    const r = await runInTempDir(['eval', 'appbench', '--data', MINI, '--categories', 'ss,xx']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--categories must be a comma-separated list of ss | sm | ms | mm (got "xx")');
    const both = await runInTempDir(['eval', 'appbench', '--data', MINI, '--resume', '--overwrite']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--resume and --overwrite exclude each other');
    const p = await runInTempDir(['eval', 'appbench', '--data', MINI, '--prompting', 'tree']);
    expect(p.code).toBe(2);
    expect(p.stderr).toContain('--prompting must be one of flat | hierarchical (got');
  });
});
