import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedOpenAiServer, startScriptedOpenAiServer } from '../../test/index.js';
import { runCliInProcess } from '../__fixtures__/run-cli-in-process.js';

const FIX = [
  '--data',
  'src/sft/__fixtures__/mini-appbench',
  '--catalog',
  'src/sft/__fixtures__/mini-catalog.json',
];

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

const SUMMARY = (format: string, out: string) => [
  `6 samples (3 single-step, 3 multi-step; 1 repeats, balance upsample, style appbench) from 6 tasks, format ${format} → ${out}`,
  'skipped 1 task(s) whose gold plan does not validate:',
  '  ss-3: s1.city: missing-argument: required argument "city" is missing',
  'per category: sm 3, ss 3',
  'per app: Food 2, Trains 2, Weather 2',
];

describe('apiary sft build', () => {
  let server: ScriptedOpenAiServer;
  beforeAll(async () => {
    server = await startScriptedOpenAiServer({
      respond: (req) => {
        const user = req.messages.at(-1)!.content;
        return user.startsWith('Find Thai') ? 'Thai restaurant options in Bergen, please.' : user;
      },
    });
  });
  afterAll(() => server.close());

  it('writes ShareGPT JSONL and prints the counts', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-sft-cli-')), 'sft.jsonl');
    const r = await apiary(
      'sft',
      'build',
      ...FIX,
      '--seed',
      '7',
      '--distractors',
      '1',
      '--format',
      'sharegpt',
      '--out',
      out,
    );
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toEqual(SUMMARY('sharegpt', out));
    const lines = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(6);
    expect(lines[0].conversations.map((c: { from: string }) => c.from)).toEqual(['system', 'human', 'gpt']);
    expect(lines[0].conversations[0].value).toContain("accessible Apps and their APIs: Food: {'desc': ");
    expect(lines[0].conversations[0].value).toContain('Infer dates from the current date "2019-03-01"');
    expect(lines[0].conversations.slice(1)).toEqual([
      { from: 'human', value: 'Find Thai restaurant options in Bergen.' },
      {
        from: 'gpt',
        value: "Food: [restaurant_name, city = Food_findrestaurants(#city='Bergen', #cuisine='Thai')]",
      },
    ]);
  });

  it('streams OpenAI JSONL to stdout with the counts on stderr, or the counts as JSON', async () => {
    const r = await apiary(
      'sft',
      'build',
      ...FIX,
      '--seed',
      '7',
      '--limit',
      '2',
      '--style',
      'compact',
      '--json',
    );
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.messages.map((m: { role: string }) => m.role))).toEqual([
      ['system', 'user', 'assistant'],
      ['system', 'user', 'assistant'],
    ]);
    expect(JSON.parse(r.stderr)).toMatchObject({
      format: 'openai',
      style: 'compact',
      samples: 2,
      single: 1,
      multi: 1,
    });
    expect(lines[0].messages[0].content).toContain('\nCurrent date: 2019-03-01.\n\nApps and APIs:\n\nFood: ');
    expect(lines[0].messages[2].content).toBe(
      "Food: [restaurant_name, city = findrestaurants(#city='Bergen', #cuisine='Thai')]",
    );
  });

  it('paraphrases through an OpenAI-compatible endpoint', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'apiary-sft-cli-')), 'sft.jsonl');
    const r = await apiary(
      'sft',
      'build',
      ...FIX,
      '--seed',
      '7',
      '--limit',
      '2',
      '--out',
      out,
      '--paraphrase',
      '--model',
      'para-1',
      '--base-url',
      server.url,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('paraphrase: 1 ok, 1 rejected, 0 failed (original kept)');
    const users = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).messages[1].content);
    expect(users).toEqual([
      'Thai restaurant options in Bergen, please.',
      'Find a train from Oslo to Bergen on March 5th and book 2 seats.',
    ]);
    expect(server.requests.map((q) => q.model)).toEqual(['para-1', 'para-1']);
  });

  it('refuses bad flags with exit 2 and one line', async () => {
    const [bad, noFlags, seed, model, noData, badOut] = await Promise.all([
      apiary('sft', 'build', ...FIX, '--format', 'xml'),
      apiary('sft', 'build'),
      apiary('sft', 'build', ...FIX, '--seed', 'x'),
      apiary('sft', 'build', ...FIX, '--model', 'm'),
      apiary('sft', 'build', '--data', 'no/such/dir'),
      apiary('sft', 'build', ...FIX, '--out', '/proc/no/such/x.jsonl'),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('[USAGE] --format must be one of openai | sharegpt (got "xml")');
    expect(noFlags.stderr).toContain('[USAGE] --data <dir> is required');
    expect(seed.stderr).toContain('[USAGE] --seed must be an integer ≥ 0 (got "x")');
    expect(model.stderr).toContain('only used with --paraphrase');
    expect(noData.code).toBe(2);
    expect(noData.stderr).toContain('[NOT_FOUND] unknown AppBench data folder "no/such/dir"');
    expect(badOut.code).toBe(2);
    expect(badOut.stderr).toContain(
      '[USAGE] --out must be a path in a writable folder (/proc is not) (got "/proc/no/such/x.jsonl")',
    );
  });
});
