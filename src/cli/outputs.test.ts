import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from './__fixtures__/run-cli-in-process.js';

/** Issue 13 item 4: every output is checked before the work and never destroyed or polluted. */

const root = join(import.meta.dirname, '../..');

/** `apiary <args>` on a clean machine, in this process (see runCliInProcess). */
const apiary = (...args: string[]) => runCliInProcess(args);

const SFT = [
  'sft',
  'build',
  '--data',
  'src/sft/__fixtures__/mini-appbench',
  '--catalog',
  'src/sft/__fixtures__/mini-catalog.json',
];
const PLAN = 'src/cli/commands/__fixtures__/run-payment.plan.txt';

describe('outputs are checked before the work (issue 13 item 4)', () => {
  it('sft build refuses an existing --out without --overwrite and leaves it intact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-out-'));
    const out = join(dir, 'precious.jsonl');
    writeFileSync(out, 'keep me\n');
    const r = await apiary(...SFT, '--out', out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error [USAGE] --out must be a file that does not exist yet; pass --overwrite to replace it (got "${out}")`,
    );
    expect(readFileSync(out, 'utf8')).toBe('keep me\n');

    const ok = await apiary(...SFT, '--out', out, '--overwrite', '--json');
    expect(ok.code).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(6);
    // written through a temp file and a rename: nothing else is left in the folder
    expect(readdirSync(dir)).toEqual(['precious.jsonl']);
  });

  it('retrieve train refuses an --out it cannot write before training', async () => {
    const data = mkdtempSync(join(tmpdir(), 'apiary-tb-'));
    const fixtures = join(root, 'src/benchmarks/toolbench/__fixtures__');
    mkdirSync(join(data, 'toolbench', 'queries'), { recursive: true });
    copyFileSync(join(fixtures, 'tools.jsonl'), join(data, 'toolbench', 'tools.jsonl'));
    copyFileSync(join(fixtures, 'queries.json'), join(data, 'toolbench', 'queries', 'G1_instruction.json'));
    // /proc takes no new files, even from root (a chmod'ed folder would not stop root)
    const out = '/proc/apiary-test/model.aprm';
    const r = await apiary('retrieve', 'train', '--data', data, '--out', out, '--no-word-vectors');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error [USAGE] --out must be a path in a writable folder (/proc is not) (got "${out}")`,
    );
    expect(r.stderr).not.toContain('training on');
  });

  it('run --trace into a missing folder creates it and the steps run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-trace-'));
    const trace = join(dir, 'a', 'b', 'trace.jsonl');
    const r = await apiary('run', PLAN, '--approve', 'auto', '--trace', trace);
    expect(r.stdout).toContain('succeeded: 2/2 steps succeeded');
    expect(r.code).toBe(0);
    const events = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).event);
    expect(events).toEqual(['start', 'end', 'start', 'end']);
  });

  it('run --trace refuses an existing file that is not a trace and leaves it unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apiary-trace-'));
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'my notes\n');
    const r = await apiary('run', PLAN, '--approve', 'auto', '--trace', notes);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error [INPUT_INVALID] ${notes}: line 1: not a trace event; --trace appends to an earlier trace only: pick a new file`,
    );
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
    expect(existsSync(join(dir, 'a'))).toBe(false);
  });
});

/**
 * Issue 27 item A13: every command that writes a file or a folder checks it before any work, so an
 * unwritable place is one USAGE line (exit 2), not a failure after the work (or another code). /proc
 * takes no new files, even from root. Each command is given input that would fail (or wait) later,
 * so only a check made first gives USAGE.
 */
describe('each writer checks its output before any work (issue 27 A13)', () => {
  const refused = (flag: string, path: string) =>
    `error [USAGE] ${flag} must be a path in a writable folder (/proc is not) (got "${path}")\n`;
  const cases: Array<[string, string[], string, string]> = [
    // [writer, command line, flag, path]
    [
      'ask --trace',
      ['ask', 'book a table', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'],
      '--trace',
      '/proc/apiary/t.jsonl',
    ],
    [
      'catalog import openapi --out',
      ['catalog', 'import', 'openapi', 'http://127.0.0.1:9/spec.yaml'],
      '--out',
      '/proc/apiary/c.json',
    ],
    [
      'catalog import mcp --out',
      ['catalog', 'import', 'mcp', '--url', 'http://127.0.0.1:9/mcp'],
      '--out',
      '/proc/apiary/c.json',
    ],
    [
      'gta predictions --out',
      ['gta', 'predictions', '/nonexistent/run'],
      '--out',
      '/proc/apiary/gta_bench.json',
    ],
    [
      'shortcuts dataset --out',
      ['shortcuts', 'dataset', '/nonexistent/shortcuts', '--data', '/nonexistent/api'],
      '--out',
      '/proc/apiary/data',
    ],
    ['report --html', ['report', '/nonexistent/run'], '--html', '/proc/apiary/report.html'],
    [
      'retrieve index build --out',
      ['retrieve', 'index', 'build', '--data', '/nonexistent/data'],
      '--out',
      '/proc/apiary/index.bin',
    ],
    [
      'data pull --dir',
      ['data', 'pull', 'gta', '--url', 'http://127.0.0.1:9/gta.zip'],
      '--dir',
      '/proc/apiary/gta',
    ],
    [
      'eval --cache',
      ['eval', 'appbench', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'],
      '--cache',
      '/proc/apiary/cache',
    ],
  ];
  it.each(cases)('%s: USAGE before any work', async (_writer, args, flag, path) => {
    const r = await apiary(...args, flag, path);
    expect([r.code, r.stderr]).toEqual([2, refused(flag, path)]);
  });
});
